// Chunked DMA: a scatter/gather list cut into chunks of at most `max_bytes` of payload each,
// a segment longer than that cut into word-aligned pieces. A backend with a bound on one
// transfer (a remote device's frame, a card's buffer object) moves one chunk at a time; the
// pieces keep their tiles, addresses and host offsets, so the chunks together move exactly
// what the whole list does.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "tessera/device/device.h"

namespace tessera::device {

// The payload bytes of `segments` (what a DMA of them moves).
inline uint64_t dma_bytes(std::span<const DmaSegment> segments) {
  uint64_t n = 0;
  for (const DmaSegment& s : segments) n += s.bytes;
  return n;
}

// `max_bytes` is rounded down to whole words (at least one word). Empty segments are dropped.
inline std::vector<std::vector<DmaSegment>> dma_chunks(std::span<const DmaSegment> segments,
                                                       uint64_t max_bytes) {
  max_bytes = std::max<uint64_t>(4, max_bytes & ~uint64_t{3});
  std::vector<std::vector<DmaSegment>> chunks(1);
  uint64_t in_chunk = 0;
  for (const DmaSegment& s : segments) {
    uint32_t done = 0;
    while (done < s.bytes) {
      if (in_chunk == max_bytes) {
        chunks.emplace_back();
        in_chunk = 0;
      }
      const uint32_t take =
          static_cast<uint32_t>(std::min<uint64_t>(s.bytes - done, max_bytes - in_chunk));
      chunks.back().push_back({s.tile, s.addr + done, take, s.host_offset + done});
      in_chunk += take;
      done += take;
    }
  }
  if (chunks.back().empty()) chunks.pop_back();
  return chunks;
}

}  // namespace tessera::device
