// Lowering again where a graph does not fit (refit.h): the memory plan's peaks name the op
// whose temporaries fill the tiles that do not fit, and only that op gets a smaller memory
// proportion. The model: eight 8-channel 16 x 16 images through a 3 x 3 conv to 32 channels
// and a constant fc whose weights (0.75 MB) lie on the tiles the conv's windows and weights
// land on too, on `small` (16 tiles of 128 KB). At memory proportion 0.5 the conv's share on
// top of the fc's blocks overflows tiles; with every op at 0.25 it still does not fit; with the
// conv alone at 0.125 it fits while the fc keeps its plan, and computes what the interpreter
// does (on the emulator, native).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "tessera/arch/tile_map.h"
#include "tessera/emu/machine.h"
#include "tessera/opgraph/eval.h"
#include "tessera/opgraph/lower.h"
#include "tessera/opgraph/opgraph.h"
#include "tessera/opgraph/refit.h"
#include "tessera/passes/passes.h"
#include "tessera/runtime/engine.h"
#include "tessera/testutil/conv_classifier.h"
#include "tessera/testutil/seeded.h"

namespace tessera {
namespace {

using opgraph::OpGraph;
using opgraph::Value;
using testutil::seeded;

constexpr uint32_t kBatch = 8, kIn = 8, kOut = 32, kSide = 16, kClasses = 23;

void conv_fc(OpGraph& og, std::mt19937& rng) {
  const Value x = og.input("x", opgraph::DType::kF32, {kBatch, kIn, kSide, kSide});
  const Value w = og.constant("conv.w", {kOut, kIn, 3, 3}, seeded(kOut * kIn * 9, 0.3f, rng));
  const Value b = og.constant("conv.b", {kOut}, seeded(kOut, 0.1f, rng));
  const Value c = og.relu(og.conv2d(x, w, b, {1, 1, 1, 1, 1, 1, 1, 1, 1}, "conv"), "relu");
  const uint32_t n = kOut * kSide * kSide;
  const Value flat = og.reshape(c, {kBatch, n}, "flat");
  const Value fw = og.constant("fc.w", {n, kClasses}, seeded(n * kClasses, 0.02f, rng));
  const Value fb = og.constant("fc.b", {kClasses}, seeded(kClasses, 0.1f, rng));
  og.output("y", og.add_bias(og.matmul(flat, fw, "fc"), fb, "fc"));
}

struct Attempt {
  std::optional<graph::Graph> g;
  std::vector<opgraph::LoweredOp> lowered;
  std::optional<exe::Executable> exe;
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> peaks;  // when it did not fit
};

Attempt lower_and_compile(const OpGraph& og, const opgraph::Proportions& p, const passes::CompileOptions& co) {
  Attempt a;
  a.g.emplace(*arch::find_target("small"));
  opgraph::LowerOptions lo;
  lo.firmware_bytes = co.layout.firmware_end - arch::kSramBase;
  lo.memory_proportion = p.all;
  lo.op_proportions = p.ops;
  lo.lowered_ops = &a.lowered;
  opgraph::lower(og, *a.g, lo);
  try {
    a.exe.emplace(passes::compile(*a.g, co));
  } catch (const passes::CompileError& e) {
    a.peaks = e.peaks;
  }
  return a;
}

// The vertices in the compute sets whose name starts with `prefix`.
size_t vertices_of(const graph::Graph& g, const std::string& prefix) {
  size_t n = 0;
  for (const graph::VertexData& v : g.vertices()) n += g.compute_sets()[v.compute_set].name.rfind(prefix, 0) == 0;
  return n;
}

TEST(Refit, OnlyTheOpThatFillsTheTilesGetsLess) {
  const uint32_t seed = 20261203;
  std::printf("seed %u\n", seed);
  std::mt19937 rng(seed);
  OpGraph og;
  conv_fc(og, rng);
  const passes::CompileOptions co =
      passes::firmware_options(std::string(TESSERA_TILE_BIN_DIR) + "/runtime/tessera-firmware.elf");

  opgraph::Proportions p;  // 0.5 for every op
  Attempt first = lower_and_compile(og, p, co);
  ASSERT_FALSE(first.exe) << "the model fits at 0.5: it no longer tests a second lowering";
  ASSERT_FALSE(first.peaks.empty());
  opgraph::Proportions all;
  all.all = 0.25;
  EXPECT_FALSE(lower_and_compile(og, all, co).exe) << "every op at 0.25 fits: the conv alone no longer needs less";

  const size_t fc_vertices = vertices_of(*first.g, "fc"), conv_vertices = vertices_of(*first.g, "conv");
  // Shrink what the peaks name until it fits: only the conv, every time.
  Attempt a = std::move(first);
  for (int round = 0; round < 4 && !a.exe; ++round) {
    const std::map<size_t, std::string> shrink = opgraph::ops_to_shrink(a.peaks, a.lowered, p);
    ASSERT_FALSE(shrink.empty()) << "round " << round << ": no op named";
    for (const auto& [op, name] : shrink) {
      EXPECT_EQ(name, "conv") << "round " << round;
      p.ops[op] = p.of(op) / 2;
    }
    a = lower_and_compile(og, p, co);
  }
  ASSERT_TRUE(a.exe) << "does not fit with the conv at its smallest share";
  ASSERT_EQ(p.ops.size(), 1u);
  std::printf("the conv at %g, every other op at %g\n", p.ops.begin()->second, p.all);

  // The fc keeps the plan it had at 0.5; the conv's is finer.
  EXPECT_EQ(vertices_of(*a.g, "fc"), fc_vertices);
  EXPECT_NE(vertices_of(*a.g, "conv"), conv_vertices);

  const std::vector<float> in = seeded(kBatch * kIn * kSide * kSide, 1.0f, rng);
  const std::vector<float> ref = testutil::evaluate_output(og, {{"x", opgraph::to_words(in)}});
  ASSERT_EQ(ref.size(), kBatch * kClasses);
  emu::MachineOptions mo;
  mo.target = arch::find_target(a.exe->target);
  mo.mode = emu::Mode::kNative;
  emu::Machine m(mo);
  m.load_firmware(exe::parse_elf(a.exe->firmware, "firmware"));
  runtime::Engine engine(m, *a.exe);
  engine.load();
  std::vector<float> x_in = in, y(ref.size());
  engine.connect_stream("x", std::span(x_in));
  engine.connect_stream("y", std::span(y));
  engine.run("infer", std::chrono::minutes(2));
  testutil::expect_matches_interpreter(y, ref);
}

TEST(Refit, TheOwnerOfAVariableIsTheOpThatMadeIt) {
  // Ops 3 and 4 made no variables (one after the other at 10); op 5 made 10 and up.
  const std::vector<opgraph::LoweredOp> lowered = {{0, 1, "a"}, {4, 2, "b"}, {10, 3, "c"}, {10, 4, "d"}, {10, 5, "e"}};
  opgraph::Proportions p;
  // Tile 0: b 300 bytes against a 200 -> b; tile 1: e -> e; variables before any op: nobody.
  const std::map<size_t, std::string> s = opgraph::ops_to_shrink({{{1, 200}, {4, 100}, {9, 200}}, {{12, 50}}}, lowered, p);
  EXPECT_EQ(s, (std::map<size_t, std::string>{{2, "b"}, {5, "e"}}));
  // b at the smallest share: a instead.
  p.ops[2] = opgraph::kSmallestProportion;
  EXPECT_EQ(opgraph::ops_to_shrink({{{1, 200}, {4, 100}, {9, 200}}}, lowered, p), (std::map<size_t, std::string>{{1, "a"}}));
  EXPECT_TRUE(opgraph::ops_to_shrink({}, lowered, p).empty());
}

TEST(Refit, AnOpWhosePlanDidNotChangeNamesTheNextOpOnItsTileToo) {
  // a and b with 10 and 20 vertices, 200 and 100 bytes at the one peak.
  const std::vector<opgraph::LoweredOp> lowered = {{0, 1, "a", 10}, {4, 2, "b", 20}};
  const std::vector<std::vector<std::pair<uint32_t, uint32_t>>> peaks = {{{1, 200}, {4, 100}}};
  opgraph::Proportions p;
  opgraph::OpShrinker s;
  EXPECT_EQ(s.next(peaks, lowered, p), (std::map<size_t, std::string>{{1, "a"}}));
  EXPECT_EQ(p.of(1), 0.25);
  // a's plan did not change: a gets less again, and b too.
  EXPECT_EQ(s.next(peaks, lowered, p), (std::map<size_t, std::string>{{1, "a"}, {2, "b"}}));
  EXPECT_EQ(p.of(1), 0.125);
  EXPECT_EQ(p.of(2), 0.25);
  // a's plan changed (more vertices), its bytes the same: a alone.
  EXPECT_EQ(s.next(peaks, {{0, 1, "a", 40}, {4, 2, "b", 20}}, p), (std::map<size_t, std::string>{{1, "a"}}));
  EXPECT_EQ(p.of(1), 0.0625);
  // a at the smallest share: b, the next.
  EXPECT_EQ(s.next(peaks, lowered, p), (std::map<size_t, std::string>{{2, "b"}}));
}

}  // namespace
}  // namespace tessera
