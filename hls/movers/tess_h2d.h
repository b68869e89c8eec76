// tess_h2d: host-to-device data mover (HLS kernel; tess_movers.h has the formats).
#pragma once

#include <cstdint>

#include "ap_int.h"
#include "hls_stream.h"

// Checks all `ndesc` descriptors first (a bad one stops the mover before any flit leaves:
// status {code, its index, 0, 0}), then sends each descriptor's flits from node `src_node`
// (the host node's id, tiles + h: a read request's reply node) into `h2d`. `data_bytes` bounds the data buffer, `tiles`
// and `sram_bytes` the destinations. Writes `status` (tess_movers::kStatusWords words).
void tess_h2d(const ap_uint<128>* desc, const ap_uint<512>* data, hls::stream<ap_uint<64>>& h2d, uint32_t ndesc,
              uint32_t data_bytes, uint32_t src_node, uint32_t tiles, uint32_t sram_bytes, uint32_t* status);
