// Weight regions (lower.cpp): an inference model whose constant matmul weights fill most of
// the chip gets its matmuls' blocks on runs of tiles of their own and its convs on the tiles
// left, and still computes what the interpreter does. The model: a conv, then a fully
// connected layer whose 1 MB of weights take more than half of what `small` (16 tiles of
// 128 KB) leaves above the firmware. Without regions the conv's tensors land on tiles 0 and
// up, which the fc's blocks fill too (the tile check fails on each of them).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <set>
#include <span>

#include "tessera/arch/tile_map.h"
#include "tessera/emu/machine.h"
#include "tessera/opgraph/eval.h"
#include "tessera/opgraph/lower.h"
#include "tessera/opgraph/opgraph.h"
#include "tessera/passes/passes.h"
#include "tessera/runtime/engine.h"
#include "tessera/testutil/conv_classifier.h"
#include "tessera/testutil/seeded.h"

namespace tessera {
namespace {

using opgraph::DType;
using opgraph::OpGraph;
using opgraph::Value;
using testutil::seeded;

// The tiles holding parts of the graph's variables whose name starts with `prefix`.
std::set<uint32_t> tiles_of(const graph::Graph& g, const std::string& prefix) {
  std::set<uint32_t> tiles;
  for (uint32_t v = 0; v < g.variables().size(); ++v)
    if (g.variables()[v].name.rfind(prefix, 0) == 0)
      for (const graph::Interval& iv : g.intervals(g.tensor(v))) tiles.insert(iv.tile);
  return tiles;
}

TEST(WeightRegions, BigClassifierApartFromTheConvsMatchesTheInterpreter) {
  const uint32_t seed = 20261203;
  std::printf("seed %u\n", seed);
  std::mt19937 rng(seed);
  OpGraph og;
  testutil::conv_classifier(og, 512, rng);  // fc.w: 1 MB of 1.7 free

  const passes::CompileOptions co =
      passes::firmware_options(std::string(TESSERA_TILE_BIN_DIR) + "/runtime/tessera-firmware.elf");
  graph::Graph g(*arch::find_target("small"));
  opgraph::LowerOptions lo;
  lo.firmware_bytes = co.layout.firmware_end - arch::kSramBase;
  opgraph::lower(og, g, lo);

  // The fc's blocks and the conv's tensors on different tiles, the blocks on most of them.
  const std::set<uint32_t> fc = tiles_of(g, "fc.w"), conv = tiles_of(g, "conv");
  ASSERT_FALSE(conv.empty());
  EXPECT_GE(fc.size(), 10u);
  for (const uint32_t t : conv) EXPECT_EQ(fc.count(t), 0u) << "tile " << t << " holds fc blocks and the conv's tensors";

  const exe::Executable e = passes::compile(g, co);  // throws if a tile does not fit
  const std::vector<float> in = seeded(4 * 16 * 16, 1.0f, rng);
  const std::vector<float> ref = testutil::evaluate_output(og, {{"x", opgraph::to_words(in)}});
  ASSERT_EQ(ref.size(), 512u);

  emu::MachineOptions mo;
  mo.target = arch::find_target(e.target);
  mo.mode = emu::Mode::kNative;
  emu::Machine m(mo);
  m.load_firmware(exe::parse_elf(e.firmware, "firmware"));
  runtime::Engine engine(m, e);
  engine.load();
  std::vector<float> x_in = in, y(512);
  engine.connect_stream("x", std::span(x_in));
  engine.connect_stream("y", std::span(y));
  engine.run("infer", std::chrono::minutes(2));
  testutil::expect_matches_interpreter(y, ref);
}

}  // namespace
}  // namespace tessera
