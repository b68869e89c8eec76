// A variable's tile mapping as runs of elements, each on one tile (not a word per element):
// sorted, disjoint, and adjacent runs on the same tile merged, so that the runs are exactly
// the variable's intervals. Elements in no run are unmapped. Setting a range is O(log runs
// + runs it replaces); a lookup is O(log runs).
#pragma once

#include <cstdint>
#include <map>

namespace tessera::graph {

class TileMap {
 public:
  struct Run {
    uint32_t end = 0, tile = 0;
  };

  // Maps elements [begin, end) to `tile`, replacing what they were mapped to.
  void set(uint32_t begin, uint32_t end, uint32_t tile);
  // The tile of element i, or -1 if it is unmapped.
  int32_t tile_at(uint32_t i) const;
  // The first unmapped element of [begin, end), or `end` if every one is mapped.
  uint32_t first_unmapped(uint32_t begin, uint32_t end) const;
  bool all_mapped(uint32_t begin, uint32_t end) const { return first_unmapped(begin, end) == end; }
  bool none_mapped(uint32_t begin, uint32_t end) const;
  // The runs by first element.
  const std::map<uint32_t, Run>& runs() const { return runs_; }
  // The run holding element i, or runs().end().
  std::map<uint32_t, Run>::const_iterator find(uint32_t i) const;

 private:
  std::map<uint32_t, Run> runs_;
};

}  // namespace tessera::graph
