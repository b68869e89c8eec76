// tess_d2h: device-to-host data mover (HLS kernel; tess_movers.h has the formats).
#pragma once

#include <cstdint>

#include "ap_int.h"
#include "hls_stream.h"

// Moves up to `count` flits from `d2h` into the ring of `ring_records` records at `ring`,
// from `head` on, never reaching `tail` (the host's: the first record it has not drained;
// head == tail is an empty ring, so at most ring_records - 1 are held). Writes `status`
// {code, new head, records written, 0}: kRingFull when it stopped for want of room, the
// flits it did not take left in the stream (the kernel sees back-pressure).
void tess_d2h(hls::stream<ap_uint<64>>& d2h, ap_uint<128>* ring, uint32_t ring_records, uint32_t head, uint32_t tail,
              uint32_t count, uint32_t* status);
