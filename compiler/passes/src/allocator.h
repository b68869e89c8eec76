// First-fit allocation of one tile's SRAM between the firmware's end and the end of SRAM
// (private to plan_memory). Tensors are placed by live range (alloc_live): first fit in
// time x address. What does not fit is placed past the end, so that planning
// goes on and the report shows everything a model would need.
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
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
  // [first, last] (last = UINT32_MAX: for good): the lowest aligned address in the free
  // ranges (what alloc() has not taken for good) where no earlier alloc_live() block whose
  // step range overlaps lies. Blocks kept for good are merged into occupied runs; the others
  // are indexed by address, so a request looks only at the blocks near the addresses it
  // tries, not at every block of the tile. Past the end of SRAM the search goes on as if
  // SRAM had no end (unless alloc() overflowed already), so that what a tile needs is
  // counted with the same sharing as inside it.
  uint32_t alloc_live(uint32_t bytes, uint32_t align, uint32_t first, uint32_t last) {
    const auto up = [align](uint64_t a) { return (a + align - 1) & ~uint64_t{align - 1}; };
    std::vector<LiveRange> ranges(free_.begin(), free_.end());
    if (overflow_ == end_) {
      if (!ranges.empty() && ranges.back().end == end_) ranges.back().end = kNoEnd;
      else ranges.push_back({end_, kNoEnd});
    }
    for (const LiveRange& r : ranges) {
      uint64_t at = up(r.begin);
      for (bool moved = true; moved && at + bytes <= r.end;) {
        moved = false;
        // A run taken for good that holds `at`, then one that starts before at + bytes.
        for (auto it = forever_.upper_bound(static_cast<uint32_t>(at)); it != forever_.begin();) {
          if (std::prev(it)->second <= at) break;
          at = up(std::prev(it)->second), moved = true;
          it = forever_.upper_bound(static_cast<uint32_t>(at));
        }
        if (auto it = forever_.lower_bound(static_cast<uint32_t>(at)); it != forever_.end() && it->first < at + bytes) {
          at = up(it->second), moved = true;
          continue;
        }
        // Blocks of overlapping step ranges, in address order from the first that may reach `at`.
        const uint64_t from = at > widest_ ? at - widest_ : 0;
        for (auto it = by_addr_.lower_bound(static_cast<uint32_t>(from)); it != by_addr_.end() && it->first < at + bytes; ++it) {
          const Live& b = it->second;
          if (b.first <= last && first <= b.last && uint64_t{b.addr} + b.bytes > at) {
            at = up(uint64_t{b.addr} + b.bytes), moved = true;  // later blocks start no lower: keep sweeping
          }
        }
      }
      if (at + bytes <= r.end) {
        const uint32_t addr = static_cast<uint32_t>(at);
        if (last == UINT32_MAX && first == 0) {
          take_forever(addr, addr + bytes);
        } else {
          by_addr_.emplace(addr, Live{addr, bytes, first, last});
          widest_ = std::max<uint64_t>(widest_, bytes);
        }
        high_ = std::max<uint64_t>(high_, at + bytes);
        return addr;
      }
    }
    return past_end(bytes, align);
  }

  // What the tile needs: from `begin` to the highest byte allocated inside SRAM, plus
  // everything that went past the end.
  uint64_t needed() const { return (high_ > begin_ ? high_ - begin_ : 0) + (overflow_ - end_); }
  // (high_ passes end_ only through alloc_live(), and then overflow_ is still end_.)
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
  struct LiveRange {  // a free range for alloc_live(), possibly past the end of SRAM
    LiveRange(const Range& r) : begin(r.begin), end(r.end) {}
    LiveRange(uint64_t b, uint64_t e) : begin(b), end(e) {}
    uint64_t begin, end;
  };
  static constexpr uint64_t kNoEnd = 0xFFFFFF00u;  // below 2^32, so that addr + bytes fits
  uint32_t begin_, end_;
  uint64_t overflow_, high_ = 0;
  struct Live {
    uint32_t addr, bytes, first, last;
  };
  // [begin, end) taken for good by alloc_live, merged with its neighbours.
  void take_forever(uint32_t begin, uint32_t end) {
    auto it = forever_.lower_bound(begin);
    if (it != forever_.begin() && std::prev(it)->second == begin) {
      --it;
      it->second = end;
    } else {
      it = forever_.emplace(begin, end).first;
    }
    auto next = std::next(it);
    if (next != forever_.end() && next->first == it->second) {
      it->second = next->second;
      forever_.erase(next);
    }
  }
  std::vector<Range> free_;
  std::map<uint32_t, uint32_t> forever_;     // begin -> end
  std::multimap<uint32_t, Live> by_addr_;    // blocks with a step range, by address
  uint64_t widest_ = 0;                      // the largest of them, in bytes
};

}  // namespace tessera::passes
