// tess_h2d: descriptors in, flits out (tess_h2d.h, tess_movers.h). One flit per word at one
// beat a clock once running; the data are read in bursts of up to kBurstLines 512-bit lines.
#include "tess_h2d.h"

#include "tess_movers.h"

namespace {

using namespace tess_movers;

struct Desc {
  uint32_t words, addr, tile, kind, offset, reserved;
};

Desc unpack(ap_uint<128> d) {
  Desc x;
  x.words = d.range(31, 0).to_uint();
  x.addr = d.range(63, 32).to_uint();
  const uint32_t w2 = d.range(95, 64).to_uint();
  x.tile = w2 & kDescTileMask;
  x.kind = (w2 >> kDescKindShift) & 3;
  x.reserved = w2 & kDescReservedMask;
  x.offset = d.range(127, 96).to_uint();
  return x;
}

uint32_t check(const Desc& d, uint32_t data_bytes, uint32_t tiles, uint32_t sram_bytes) {
  if (d.reserved || (d.kind == kKindRead && (d.offset & ~kTagMask))) return kReserved;
  if (d.kind == 3) return kBadKind;
  if (d.tile >= tiles) return kBadTile;
  if (d.words == 0) return kEmpty;
  if ((d.addr & 3) || (d.kind != kKindRead && (d.offset & 3))) return kMisaligned;
  const uint64_t end = uint64_t{d.addr} + 4ull * d.words;
  if (d.addr < kSramBase || end > uint64_t{kSramBase} + sram_bytes) return kOutsideSram;
  if (d.kind != kKindRead && uint64_t{d.offset} + 4ull * d.words > data_bytes) return kPastData;
  return kOk;
}

// addr: the tile's byte address; its word address in the tile's SRAM goes in the flit.
ap_uint<64> flit(uint32_t kind, uint32_t dst, uint32_t addr, uint32_t data) {
  ap_uint<64> f = 0;
  f.range(kFlitAddrLsb - 1, kFlitDataLsb) = data;
  f.range(kFlitDstLsb - 1, kFlitAddrLsb) = (addr >> 2) & ((1u << kFlitAddrBits) - 1);
  f.range(kFlitKindLsb - 1, kFlitDstLsb) = dst & ((1u << kFlitDstBits) - 1);
  f.range(kFlitKindLsb + kFlitKindBits - 1, kFlitKindLsb) = kind;
  return f;
}

// A read request's data: the reply goes to node `node`, address `tag`.
uint32_t reply_to(uint32_t node, uint32_t tag) {
  return (node & ((1u << kFlitDstBits) - 1)) << kFlitReplyNodeLsb | (tag & kTagMask) << kFlitReplyAddrLsb;
}

}  // namespace

void tess_h2d(const ap_uint<128>* desc, const ap_uint<512>* data, hls::stream<ap_uint<64>>& h2d, uint32_t ndesc,
              uint32_t data_bytes, uint32_t src_node, uint32_t tiles, uint32_t sram_bytes, uint32_t* status) {
#pragma HLS INTERFACE m_axi port = desc offset = slave bundle = gmem0 max_read_burst_length = 16
#pragma HLS INTERFACE m_axi port = status offset = slave bundle = gmem0
#pragma HLS INTERFACE m_axi port = data offset = slave bundle = gmem1 max_read_burst_length = 64 num_read_outstanding = 4
#pragma HLS INTERFACE axis port = h2d
#pragma HLS INTERFACE s_axilite port = desc bundle = control
#pragma HLS INTERFACE s_axilite port = data bundle = control
#pragma HLS INTERFACE s_axilite port = status bundle = control
#pragma HLS INTERFACE s_axilite port = ndesc bundle = control
#pragma HLS INTERFACE s_axilite port = data_bytes bundle = control
#pragma HLS INTERFACE s_axilite port = src_node bundle = control
#pragma HLS INTERFACE s_axilite port = tiles bundle = control
#pragma HLS INTERFACE s_axilite port = sram_bytes bundle = control
#pragma HLS INTERFACE s_axilite port = return bundle = control
  // All or nothing: every descriptor is checked before the first flit leaves.
check_loop:
  for (uint32_t i = 0; i < ndesc; ++i) {
    const uint32_t code = check(unpack(desc[i]), data_bytes, tiles, sram_bytes);
    if (code != kOk) {
      status[0] = code;
      status[1] = i;
      status[2] = 0;
      status[3] = 0;
      return;
    }
  }
  uint32_t flits = 0, lines_read = 0;
desc_loop:
  for (uint32_t i = 0; i < ndesc; ++i) {
    const Desc d = unpack(desc[i]);
    if (d.kind == kKindRead) {
    read_loop:
      for (uint32_t k = 0; k < d.words; ++k) {
#pragma HLS PIPELINE II = 1
        h2d.write(flit(kKindRead, d.tile, d.addr + 4 * k, reply_to(src_node, d.offset + k)));
      }
      flits += d.words;
      continue;
    }
    // Writes: the lines holding words offset/4 .. offset/4 + words - 1, a burst at a time.
    const uint32_t first_word = d.offset / 4, last_word = first_word + d.words - 1;
    const uint32_t first_line = first_word / 16, last_line = last_word / 16;
    uint32_t k = 0;  // words sent of this descriptor
  burst_loop:
    for (uint32_t line = first_line; line <= last_line; line += kBurstLines) {
      const uint32_t n = last_line - line + 1 < uint32_t(kBurstLines) ? last_line - line + 1 : uint32_t(kBurstLines);
      ap_uint<512> buf[kBurstLines];
    fetch_loop:
      for (uint32_t j = 0; j < n; ++j) {
#pragma HLS PIPELINE II = 1
        buf[j] = data[line + j];
      }
      lines_read += n;
    emit_loop:
      for (uint32_t j = 0; j < n * 16; ++j) {
#pragma HLS PIPELINE II = 1
        const uint32_t w = (line * 16) + j;
        if (w < first_word || w > last_word) continue;
        ap_uint<512> l = buf[j / 16];
        const uint32_t lane = j % 16;
        h2d.write(flit(d.kind, d.tile, d.addr + 4 * k, l.range(32 * lane + 31, 32 * lane).to_uint()));
        ++k;
      }
    }
    flits += d.words;
  }
  status[0] = kOk;
  status[1] = 0;
  status[2] = flits;
  status[3] = lines_read;
}
