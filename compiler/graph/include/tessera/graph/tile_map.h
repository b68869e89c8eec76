// A variable's tile mapping as runs of elements, each on one tile (not a word per element):
// sorted, disjoint, and adjacent runs on the same tile merged, so that the runs are exactly
// the variable's intervals. Elements in no run are unmapped. The runs are one flat sorted
// array: a lookup is a binary search, mapping in element order appends, and setting a range
// elsewhere moves the runs after it.
#pragma once

#include <cstdint>
#include <vector>

namespace tessera::graph {

class TileMap {
 public:
  struct Run {
    uint32_t begin = 0, end = 0, tile = 0;
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
  const std::vector<Run>& runs() const { return runs_; }
  // The run holding element i, or nullptr.
  const Run* find(uint32_t i) const;

 private:
  // The first run that ends after element i.
  std::vector<Run>::const_iterator first_ending_after(uint32_t i) const;

  std::vector<Run> runs_;
};

}  // namespace tessera::graph
