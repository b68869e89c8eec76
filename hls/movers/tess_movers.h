// The data movers between the card's memory (DDR or HBM, XRT buffer objects) and the
// kernel's host-node streams (docs/kernel.md, docs/alveo.md): what the HLS kernels
// tess_h2d.cpp and tess_d2h.cpp, their C-simulation tests and the host's card driver
// (host/card) share. Plain integers only, so the driver needs no HLS header.
//
// tess_h2d reads descriptors and turns each into flits on its AXI4-Stream output, one per
// word: writes carry words burst-read from a data buffer, read requests carry their reply's
// node (this host node) and a tag, the reply's address (the replies come back on the
// device-to-host stream). tess_d2h writes the flits of its AXI4-Stream input, one 128-bit
// record each, into a ring in card memory that the host drains (head: the mover's, tail: the
// host's).
#pragma once

#include <cstdint>

#include "tessera/arch/flit.h"

namespace tess_movers {

// The flit (arch/flit.toml, docs/network.md): 64 bits, one 64-bit beat.
constexpr int kFlitDataLsb = tessera::arch::kFlitDataLsb, kFlitAddrLsb = tessera::arch::kFlitAddrLsb,
              kFlitDstLsb = tessera::arch::kFlitDstLsb, kFlitKindLsb = tessera::arch::kFlitKindLsb;
constexpr int kFlitAddrBits = tessera::arch::kFlitAddrBits, kFlitDstBits = tessera::arch::kFlitDstBits,
              kFlitKindBits = tessera::arch::kFlitKindBits;
constexpr int kFlitReplyNodeLsb = tessera::arch::kFlitReplyNodeLsb, kFlitReplyAddrLsb = tessera::arch::kFlitReplyAddrLsb;
constexpr int kBeatBits = tessera::arch::kFlitBeatBits;
static_assert(kBeatBits == 64, "the movers' streams are ap_uint<64>");
constexpr uint32_t kSramBase = 0x80000000u;  // arch/tile_map.toml (the driver static_asserts it)
constexpr uint32_t kKindWrite = tessera::arch::kFlitKindWrite, kKindRead = tessera::arch::kFlitKindRead,
                   kKindDebugWrite = tessera::arch::kFlitKindDebugWrite;

// A host-to-device descriptor: 128 bits, four little-endian 32-bit words.
//   word 0: words, the number of 32-bit words (>= 1)
//   word 1: the tile's byte address of the first word (word aligned, inside SRAM)
//   word 2: bits 15:0 the destination tile, bits 17:16 the kind (kKind*), bits 31:18 zero
//   word 3: writes: the byte offset of the first word in the data buffer (word aligned);
//           read requests: the tag of the first word's reply (its address at the host node,
//           kTagBits bits; word k's is tag + k, mod 2^kTagBits)
constexpr int kDescBytes = 16;
constexpr uint32_t kDescTileMask = 0xffff, kDescKindShift = 16, kDescReservedMask = 0xfffc0000u;
constexpr int kTagBits = tessera::arch::kFlitReplyAddrBits;
constexpr uint32_t kTagMask = (1u << kTagBits) - 1;

// A device-to-host record: 128 bits, the flit in bits 63:0, zero above. A read reply's
// address field (bits 32 + kFlitAddrBits - 1 .. 32) is its request's tag.
constexpr int kRecordBytes = 16;

// The status block each mover writes when it finishes (4 little-endian words):
//   tess_h2d: {code, index of the bad descriptor, flits sent, 512-bit lines read}
//   tess_d2h: {code, new head, records written, 0}
constexpr int kStatusWords = 4;
enum Status : uint32_t {
  kOk = 0,
  kBadKind = 1,      // descriptor kind 3
  kBadTile = 2,      // destination tile >= the tile count
  kMisaligned = 3,   // tile address or data offset not a multiple of 4
  kEmpty = 4,        // 0 words
  kOutsideSram = 5,  // [address, address + 4 words) not inside the tile's SRAM
  kPastData = 6,     // a write's words run past the end of the data buffer
  kReserved = 7,     // reserved descriptor bits set (a read's tag wider than kTagBits too)
  kRingSize = 8,     // tess_d2h: a ring of fewer than 2 records
  kRingIndex = 9,    // tess_d2h: head or tail outside the ring
  kRingFull = 10,    // tess_d2h: stopped early, the ring had no room (the rest stays in the stream)
};

inline const char* status_name(uint32_t s) {
  switch (s) {
    case kOk: return "ok";
    case kBadKind: return "bad kind";
    case kBadTile: return "no such tile";
    case kMisaligned: return "address or data offset not word aligned";
    case kEmpty: return "zero words";
    case kOutsideSram: return "outside the tile's SRAM";
    case kPastData: return "runs past the end of the data buffer";
    case kReserved: return "reserved bits set";
    case kRingSize: return "ring smaller than 2 records";
    case kRingIndex: return "head or tail outside the ring";
    case kRingFull: return "ring full";
    default: return "unknown status";
  }
}

// Read bursts of tess_h2d's data port: up to this many 512-bit lines (4 KiB, AXI's limit).
constexpr int kBurstLines = 64;

}  // namespace tess_movers
