// A hand-built program whose exchanges use strided send-list entries (control.h
// kSendRepeat, docs/network.md "Send lists"), built either with them or with the same
// transfers written as plain entries, and a plain-C++ reference of what every tile holds at
// the end. Any number of tiles from 2 up (the tests run it on `small`'s 16 and `tiny`'s 4).
//
// Tile t holds `src`, 8 channels x 8 rows x 8 columns of seeded words. Twice: one exchange in
// which tile t sends to tiles t + 1 and t + n/2 + 1 (mod n):
//   - rows 2..5 of every channel, packed (8 runs of 32 words, source stride 64 words);
//   - a plain entry (channel 7, row 0);
//   - columns 2..4 of channel 3's rows, with a word's gap between runs at the destination;
//   - channel 0 row 7's first 4 words to 5 places (a source stride of 0);
//   - a strided entry of one run, and one of 3 runs of 0 bytes (sends nothing);
//   - every other row of channel 5 (the list's last entry is strided);
// then each tile copies the first 64 words it received over channel 0 of its `src`, so the
// second exchange sends other words than the first.
#pragma once

#include <cstdint>
#include <vector>

#include "program_builder.h"

namespace tessera::handbuilt {

class StridedSends {
 public:
  static constexpr uint32_t kChannels = 8, kRows = 8, kCols = 8;
  static constexpr uint32_t kSrcWords = kChannels * kRows * kCols;
  static constexpr uint32_t kRecvWords = 296, kBcastWords = 72;
  static constexpr uint32_t kRounds = 2;

  StridedSends(uint32_t tiles, uint32_t seed);
  // `strided`: the transfers as strided entries (else as plain entries, one a run).
  void build(ProgramBuilder& b, bool strided);

  // One transfer of the program: `count` runs of `bytes`, run k from src + k * src_stride to
  // dst + k * dst_stride (offsets in bytes from the regions' starts) on tile `to`.
  enum Region : uint32_t { kSrc, kRecv, kBcast };
  struct Transfer {
    uint32_t from, src, bytes, count, src_stride, dst_stride;
    uint32_t to;
    Region region;
    uint32_t dst;
  };
  std::vector<Transfer> transfers() const;
  // Words tile t receives in one exchange.
  std::vector<uint32_t> expected_words() const;
  // Send-list slots of tile t's exchange, either way.
  uint32_t slots(uint32_t tile, bool strided) const;

  // Every tile's regions after the program, by the transfers' definition.
  struct Memory {
    std::vector<uint32_t> src, recv, bcast;
  };
  std::vector<Memory> reference() const;
  // The regions read back from a device that ran the program.
  std::vector<Memory> read(device::Device& dev) const;

  uint32_t tiles;
  std::vector<std::vector<uint32_t>> src;  // each tile's initial `src`

 private:
  struct TileAddrs {
    uint32_t src, recv, bcast;
  };
  std::vector<TileAddrs> addr_;
};

}  // namespace tessera::handbuilt
