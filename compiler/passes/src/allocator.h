// First-fit allocation of one tile's SRAM between the firmware's end and the end of SRAM
// (private to plan_memory). Tensors are placed by live range (alloc_live): first fit in
// time x address. What does not fit is placed past the end, so that planning
// goes on and the report shows everything a model would need.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace tessera::passes {

class TileAllocator {
 public:
  TileAllocator(uint32_t begin, uint32_t end) : begin_(begin), end_(end), overflow_(end) {
    free_.push_back({begin, end});
  }

  // The address of `bytes` bytes aligned to `align` (a power of two).
  uint32_t alloc(uint32_t bytes, uint32_t align = 4) {
    for (size_t i = 0; i < free_.size(); ++i) {
      Range& r = free_[i];
      const uint64_t at = (uint64_t{r.begin} + align - 1) & ~uint64_t{align - 1};
      if (at + bytes > r.end) continue;
      const uint32_t addr = static_cast<uint32_t>(at);
      // Keep the alignment gap free, take the rest from the front.
      const Range gap{r.begin, addr}, rest{addr + bytes, r.end};
      free_.erase(free_.begin() + i);
      if (rest.end > rest.begin) free_.insert(free_.begin() + i, rest);
      if (gap.end > gap.begin) free_.insert(free_.begin() + i, gap);
      high_ = std::max<uint64_t>(high_, uint64_t{addr} + bytes);
      return addr;
    }
    return past_end(bytes, align);
  }

  // The address of `bytes` bytes aligned to `align`, needed only during steps
  // [first, last]: first fit in the free ranges (what alloc() has not taken for good),
  // sharing bytes with earlier alloc_live() blocks whose step ranges do not overlap.
  uint32_t alloc_live(uint32_t bytes, uint32_t align, uint32_t first, uint32_t last) {
    for (const Range& r : free_) {
      uint64_t at = (uint64_t{r.begin} + align - 1) & ~uint64_t{align - 1};
      while (at + bytes <= r.end) {
        uint64_t clash = 0;  // the end of the highest block in the way
        for (const Live& b : live_)
          if (b.first <= last && first <= b.last && b.addr < at + bytes && at < uint64_t{b.addr} + b.bytes)
            clash = std::max<uint64_t>(clash, uint64_t{b.addr} + b.bytes);
        if (!clash) {
          const uint32_t addr = static_cast<uint32_t>(at);
          live_.push_back({addr, bytes, first, last});
          high_ = std::max<uint64_t>(high_, at + bytes);
          return addr;
        }
        at = (clash + align - 1) & ~uint64_t{align - 1};
      }
    }
    return past_end(bytes, align);
  }

  // What the tile needs: from `begin` to the highest byte allocated inside SRAM, plus
  // everything that went past the end.
  uint64_t needed() const { return (high_ > begin_ ? high_ - begin_ : 0) + (overflow_ - end_); }
  uint32_t available() const { return end_ - begin_; }

 private:
  uint32_t past_end(uint32_t bytes, uint32_t align) {
    overflow_ = (overflow_ + align - 1) & ~uint64_t{align - 1};
    const uint64_t addr = overflow_;
    overflow_ += bytes;
    return static_cast<uint32_t>(addr);  // past the end: reported, never loaded
  }
  struct Range {
    uint32_t begin, end;
  };
  uint32_t begin_, end_;
  uint64_t overflow_, high_ = 0;
  struct Live {
    uint32_t addr, bytes, first, last;
  };
  std::vector<Range> free_;
  std::vector<Live> live_;
};

}  // namespace tessera::passes
