// How a matrix variable's elements are stored (Graph::set_blocking): by default row-major,
// element offsets being the logical ones; blocked, its [rows, cols] split into a pr x pc
// grid (grid line i begins at split(rows, pr, i), as the matmul plans split), the blocks
// stored one after another in row-major grid order and each block row-major. A blocked
// weight's blocks are then contiguous, so that a matmul vertex reads its block in place
// however the columns are split. Offsets within the graph (slices, intervals, mappings,
// initial values, vertex fields) are stored offsets; the host sees the logical order (the
// executable's tensor intervals).
#pragma once

#include <cstdint>
#include <vector>

namespace tessera::graph {

struct Blocking {
  uint32_t rows = 0, cols = 0;  // the logical matrix (0 x 0 when not blocked)
  uint32_t pr = 1, pc = 1;      // the grid

  bool blocked() const { return pr > 1 || pc > 1; }
  bool operator==(const Blocking&) const = default;

  // [begin, end) of part i when `total` is split into `parts` near-equal runs.
  static uint32_t split(uint32_t total, uint32_t parts, uint32_t i) {
    return static_cast<uint32_t>(uint64_t{total} * i / parts);
  }
  uint32_t row_begin(uint32_t i) const { return split(rows, pr, i); }
  uint32_t col_begin(uint32_t j) const { return split(cols, pc, j); }
  // The grid row holding logical row r, the grid column holding column c.
  uint32_t row_block(uint32_t r) const { return static_cast<uint32_t>(((uint64_t{r} + 1) * pr - 1) / rows); }
  uint32_t col_block(uint32_t c) const { return static_cast<uint32_t>(((uint64_t{c} + 1) * pc - 1) / cols); }
  // The stored offset of block (i, j)'s first element.
  uint32_t block_begin(uint32_t i, uint32_t j) const {
    return row_begin(i) * cols + (row_begin(i + 1) - row_begin(i)) * col_begin(j);
  }
  uint32_t stored(uint32_t logical) const;  // where logical element `logical` is stored
  uint32_t logical(uint32_t stored) const;  // the logical element stored at `stored`

  // A run of elements contiguous both in logical and in stored order (part of one row of
  // one block).
  struct Run {
    uint32_t stored = 0, logical = 0, count = 0;
  };
  // Logical elements [begin, end) as stored runs, in logical order.
  std::vector<Run> logical_runs(uint32_t begin, uint32_t end) const;
  // Stored elements [begin, end) as runs, in stored order.
  std::vector<Run> stored_runs(uint32_t begin, uint32_t end) const;
  // Block (i, j) when rows [r0, r1) x columns [c0, c1) are exactly one block: true and i, j
  // set.
  bool is_block(uint32_t r0, uint32_t r1, uint32_t c0, uint32_t c1, uint32_t& i, uint32_t& j) const;
};

}  // namespace tessera::graph
