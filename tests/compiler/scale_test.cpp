// The compiler's scalable structures against plain references on random operations (seeds
// printed): the tile map's runs against a tile per element, and the memory planner's first
// fit in time x address against a scan of every block at every candidate address; the
// passes' parallel_for against a sequential loop.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "../../compiler/passes/src/allocator.h"
#include "../../compiler/passes/src/parallel.h"
#include "tessera/graph/tile_map.h"

namespace tessera::testing {
namespace {

TEST(TileMap, AgreesWithATilePerElementOnRandomMappings) {
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    std::printf("seed %u\n", seed);
    std::mt19937 rng(seed);
    const uint32_t n = 1 + rng() % 300;
    std::vector<int32_t> ref(n, -1);
    graph::TileMap map;
    for (int op = 0; op < 60; ++op) {
      const uint32_t b = rng() % n, e = b + 1 + rng() % (n - b), tile = rng() % 4;
      map.set(b, e, tile);
      std::fill(ref.begin() + b, ref.begin() + e, static_cast<int32_t>(tile));
      for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(map.tile_at(i), ref[i]) << "seed " << seed << " element " << i;
      // Runs: disjoint, sorted, merged where adjacent on one tile.
      uint32_t prev_end = 0;
      int32_t prev_tile = -1;
      for (const graph::TileMap::Run& run : map.runs()) {
        ASSERT_LT(run.begin, run.end);
        ASSERT_GE(run.begin, prev_end);
        ASSERT_FALSE(run.begin == prev_end && int32_t(run.tile) == prev_tile) << "unmerged runs, seed " << seed;
        prev_end = run.end, prev_tile = static_cast<int32_t>(run.tile);
      }
      const uint32_t qb = rng() % n, qe = qb + 1 + rng() % (n - qb);
      const auto first = std::find(ref.begin() + qb, ref.begin() + qe, -1) - ref.begin();
      ASSERT_EQ(map.first_unmapped(qb, qe), static_cast<uint32_t>(first));
      ASSERT_EQ(map.none_mapped(qb, qe), std::all_of(ref.begin() + qb, ref.begin() + qe, [](int32_t t) { return t < 0; }));
    }
  }
}

// The first fit in time x address as plan_memory defines it, by brute force: the lowest
// aligned address from `begin` whose bytes no block of an overlapping step range holds.
struct Block {
  uint32_t addr, bytes, first, last;
};
uint32_t reference_fit(const std::vector<Block>& blocks, uint32_t begin, uint32_t end, uint32_t bytes, uint32_t align,
                       uint32_t first, uint32_t last) {
  for (uint64_t at = (begin + align - 1) & ~uint64_t{align - 1}; at + bytes <= end; at += align) {
    bool clash = false;
    for (const Block& b : blocks)
      clash |= b.first <= last && first <= b.last && b.addr < at + bytes && at < uint64_t{b.addr} + b.bytes;
    if (!clash) return static_cast<uint32_t>(at);
  }
  return 0xFFFFFFFFu;  // nowhere
}

TEST(TileAllocator, FirstFitMatchesABruteForceScan) {
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    std::printf("seed %u\n", seed);
    std::mt19937 rng(seed);
    const uint32_t begin = 0x1000, end = 0x1000 + 4096;
    passes::TileAllocator a(begin, end);
    std::vector<Block> blocks;
    for (int i = 0; i < 200; ++i) {
      const uint32_t bytes = 4 * (1 + rng() % 64), align = rng() % 2 ? 8 : 4;
      uint32_t first = rng() % 100, last = first + rng() % 30;
      if (rng() % 5 == 0) first = 0, last = 0xFFFFFFFFu;  // kept for the whole run
      // Past the end of SRAM the search goes on (what the tile would need, with sharing).
      const uint32_t want = reference_fit(blocks, begin, 0xFFFFFF00u, bytes, align, first, last);
      const uint32_t got = a.alloc_live(bytes, align, first, last);
      ASSERT_EQ(got, want) << "seed " << seed << " request " << i << (got >= end ? " (past the end)" : "");
      blocks.push_back({got, bytes, first, last});
    }
  }
}

}  // namespace
}  // namespace tessera::testing

// parallel_for: every item exactly once, and of several failing items the lowest one's
// exception, as a sequential loop would throw (whatever thread ran which item).
TEST(Scale, ParallelForRunsEachItemOnceAndRethrowsTheLowestFailure) {
  std::vector<std::atomic<uint32_t>> runs(1000);
  tessera::passes::parallel_for(1000, [&](uint32_t i) { runs[i].fetch_add(1); });
  for (uint32_t i = 0; i < runs.size(); ++i) ASSERT_EQ(runs[i].load(), 1u) << "item " << i;
  for (int trial = 0; trial < 20; ++trial) {
    try {
      tessera::passes::parallel_for(500, [](uint32_t i) {
        if (i == 137 || i == 300 || i == 499) throw std::runtime_error("item " + std::to_string(i));
      });
      FAIL() << "no exception";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "item 137");
    }
  }
}
