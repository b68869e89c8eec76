// A blocked matrix's offsets (graph/blocking.h) against the stored order written out by
// hand, block after block; and Graph::set_blocking permuting an initial value and refusing
// what it cannot block.
#include <gtest/gtest.h>

#include <bit>
#include <cstdio>
#include <random>

#include "tessera/graph/graph.h"

namespace tessera::testing {
namespace {

using graph::Blocking;

// The logical element stored at each offset, by nested loops (blocks in grid order, each
// row-major).
std::vector<uint32_t> stored_order(uint32_t rows, uint32_t cols, uint32_t pr, uint32_t pc) {
  std::vector<uint32_t> order;
  auto cut = [](uint32_t total, uint32_t parts, uint32_t i) { return uint32_t(uint64_t{total} * i / parts); };
  for (uint32_t i = 0; i < pr; ++i)
    for (uint32_t j = 0; j < pc; ++j)
      for (uint32_t r = cut(rows, pr, i); r < cut(rows, pr, i + 1); ++r)
        for (uint32_t c = cut(cols, pc, j); c < cut(cols, pc, j + 1); ++c) order.push_back(r * cols + c);
  return order;
}

TEST(Blocking, OffsetsAndRunsMatchTheOrderWrittenOut) {
  const uint32_t seed = std::random_device{}();
  std::printf("seed %u\n", seed);
  std::mt19937 rng(seed);
  for (int trial = 0; trial < 200; ++trial) {
    const uint32_t rows = 1 + rng() % 40, cols = 1 + rng() % 40;
    const Blocking b{rows, cols, 1 + uint32_t(rng() % rows), 1 + uint32_t(rng() % cols)};
    SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols) + " grid " + std::to_string(b.pr) + "x" +
                 std::to_string(b.pc) + " seed " + std::to_string(seed));
    const std::vector<uint32_t> order = stored_order(rows, cols, b.pr, b.pc);
    ASSERT_EQ(order.size(), size_t{rows} * cols);
    for (uint32_t s = 0; s < order.size(); ++s) {
      ASSERT_EQ(b.logical(s), order[s]) << "stored " << s;
      ASSERT_EQ(b.stored(order[s]), s) << "logical " << order[s];
    }
    // Runs of a random range cover it in order, each contiguous both ways.
    const uint32_t lo = rng() % order.size(), hi = lo + 1 + rng() % (order.size() - lo);
    uint32_t next = lo;
    for (const Blocking::Run& r : b.logical_runs(lo, hi)) {
      ASSERT_EQ(r.logical, next);
      for (uint32_t e = 0; e < r.count; ++e) ASSERT_EQ(order[r.stored + e], r.logical + e);
      next += r.count;
    }
    EXPECT_EQ(next, hi);
    next = lo;
    for (const Blocking::Run& r : b.stored_runs(lo, hi)) {
      ASSERT_EQ(r.stored, next);
      for (uint32_t e = 0; e < r.count; ++e) ASSERT_EQ(order[r.stored + e], r.logical + e);
      next += r.count;
    }
    EXPECT_EQ(next, hi);
    // Every block of a blocked matrix is found by its bounds, and nothing else is a block.
    uint32_t i = 0, j = 0;
    for (uint32_t bi = 0; b.blocked() && bi < b.pr; ++bi)
      for (uint32_t bj = 0; bj < b.pc; ++bj) {
        ASSERT_TRUE(b.is_block(b.row_begin(bi), b.row_begin(bi + 1), b.col_begin(bj), b.col_begin(bj + 1), i, j));
        EXPECT_EQ(i, bi);
        EXPECT_EQ(j, bj);
        EXPECT_EQ(order[b.block_begin(bi, bj)], b.row_begin(bi) * cols + b.col_begin(bj));
      }
    if (b.blocked()) {
      EXPECT_FALSE(b.is_block(0, rows, 0, cols, i, j));
    }
  }
}

TEST(Blocking, SetBlockingPermutesTheInitialValueAndRefusesWhatItCannotBlock) {
  graph::Graph g(*arch::find_target("small"));
  graph::Tensor w = g.add_variable(exe::DType::kF32, {3, 4}, "w");
  std::vector<float> v(12);
  for (int i = 0; i < 12; ++i) v[i] = float(i);
  g.set_initial_value(w, v);
  EXPECT_THROW(g.set_blocking(w.slice(0, 4), 1, 2), graph::GraphError);  // not whole
  EXPECT_THROW(g.set_blocking(w, 4, 1), graph::GraphError);              // more grid rows than rows
  g.set_blocking(w, 1, 2);
  const std::vector<uint32_t> order = stored_order(3, 4, 1, 2);
  for (uint32_t s = 0; s < 12; ++s) EXPECT_EQ(std::bit_cast<float>(g.variables()[w.var].initial[s]), float(order[s]));
  EXPECT_THROW(g.set_blocking(w, 1, 2), graph::GraphError);  // already blocked
  graph::Tensor m = g.add_variable(exe::DType::kF32, {3, 4}, "m");
  g.set_tile_mapping(m, 0);
  EXPECT_THROW(g.set_blocking(m, 1, 2), graph::GraphError);  // already mapped
}

}  // namespace
}  // namespace tessera::testing
