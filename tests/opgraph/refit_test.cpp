// Lowering again where a graph does not fit (refit.h): the memory plan's peaks name the op
// whose temporaries fill the tiles that do not fit, and only that op gets a smaller memory
// proportion. The model: eight 8-channel 16 x 16 images through a 3 x 3 conv to 32 channels
// and a constant fc whose weights (0.75 MB) lie on the tiles the conv's windows and weights
// land on too, on `small` (16 tiles of 128 KB). At memory proportion 0.5 the conv's share on
// top of the fc's blocks overflows tiles; with every op at 0.25 it still does not fit; with the
// conv alone at 0.125 it fits while the fc keeps its plan, and computes what the interpreter
// does (on the emulator, native). The same for a training graph (RefitTraining).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "tessera/arch/tile_map.h"
#include "tessera/emu/machine.h"
#include "tessera/models/classifier_train.h"
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

constexpr uint32_t kBatch = 8, kIn = 8, kSide = 16;

// x [batch, 8, 16, 16] -> 3 x 3 conv to `out` channels -> relu -> fc to `classes`.
void conv_fc(OpGraph& og, std::mt19937& rng, uint32_t batch = kBatch, uint32_t out = 32, uint32_t classes = 23) {
  const Value x = og.input("x", opgraph::DType::kF32, {batch, kIn, kSide, kSide});
  const Value w = og.constant("conv.w", {out, kIn, 3, 3}, seeded(out * kIn * 9, 0.3f, rng));
  const Value b = og.constant("conv.b", {out}, seeded(out, 0.1f, rng));
  const Value c = og.relu(og.conv2d(x, w, b, {1, 1, 1, 1, 1, 1, 1, 1, 1}, "conv"), "relu");
  const uint32_t n = out * kSide * kSide;
  const Value flat = og.reshape(c, {batch, n}, "flat");
  const Value fw = og.constant("fc.w", {n, classes}, seeded(n * classes, 0.02f, rng));
  const Value fb = og.constant("fc.b", {classes}, seeded(classes, 0.1f, rng));
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
  ASSERT_EQ(ref.size(), kBatch * 23u);
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

// The training graph (models/classifier_train.h): "train" and "infer" lowered into one vertex
// graph, their ops numbered one after the other. At memory proportion 0.5 it does not fit;
// rounds give the ops the peaks name less, and an op whose plan did not change with less names
// the next op on its tiles too, until it fits; the fc's forward plan stays. Two SGD steps on
// the emulator (native) give the interpreter's losses and weights.
TEST(RefitTraining, OnlyTheOpsThatFillTheTilesGetLess) {
  const uint32_t seed = 20261204;
  std::printf("seed %u\n", seed);
  // Trained at batch 8 with 24 channels and 10 classes, inferred at batch 2.
  constexpr uint32_t kOut = 24, kClasses = 10, kSteps = 2;
  OpGraph m, mi;
  std::mt19937 rng_m(seed), rng_mi(seed);
  conv_fc(m, rng_m, kBatch, kOut, kClasses);
  conv_fc(mi, rng_mi, 2, kOut, kClasses);
  const passes::CompileOptions co =
      passes::firmware_options(std::string(TESSERA_TILE_BIN_DIR) + "/runtime/tessera-firmware.elf");
  models::ClassifierTrainConfig c;
  c.steps_per_sync = kSteps;
  c.total_steps = 10;
  c.lr0 = 0.05f;
  c.firmware_bytes = co.layout.firmware_end - arch::kSramBase;

  opgraph::Proportions p;  // 0.5 for every op
  opgraph::OpShrinker shrinker;
  std::optional<exe::Executable> e;
  std::optional<graph::Graph> g;
  size_t fc_vertices = 0;
  int round = 0;
  for (; round <= 4 && !e; ++round) {
    std::vector<opgraph::LoweredOp> lowered;
    c.op_proportions = p.ops;
    c.lowered_ops = &lowered;
    g.emplace(*arch::find_target("small"));
    models::build_classifier_training(*g, m, mi, c);
    if (round == 0) fc_vertices = vertices_of(*g, "fc");
    try {
      e.emplace(passes::compile(*g, co));
    } catch (const passes::CompileError& err) {
      ASSERT_FALSE(err.peaks.empty());
      // "infer"'s ops come after "train"'s: both graphs' ops are in the record, each number
      // one op's.
      ASSERT_TRUE(std::any_of(lowered.begin(), lowered.end(), [](const auto& o) { return o.name == "infer.conv"; }));
      std::map<size_t, std::string> names;
      for (const opgraph::LoweredOp& o : lowered)
        ASSERT_EQ(names.emplace(o.op, o.name).first->second, o.name) << "op " << o.op << " numbers two ops";
      const std::map<size_t, std::string> shrink = shrinker.next(err.peaks, lowered, p);
      ASSERT_FALSE(shrink.empty()) << "round " << round << ": no op named";
      for (const auto& [op, name] : shrink) std::printf("round %d: %s to %g\n", round, name.c_str(), p.of(op));
    }
  }
  ASSERT_GT(round, 1) << "the model fits at 0.5: it no longer tests a second lowering";
  ASSERT_TRUE(e) << "does not fit after 4 rounds";
  // The fc's weight gradient keeps its plan with less; the conv is named beside it at once
  // (without that rule: four rounds).
  EXPECT_LE(round, 3) << "fitted after " << round - 1 << " rounds of less";
  EXPECT_EQ(vertices_of(*g, "fc"), fc_vertices) << "the fc's forward plan changed";

  // Two steps against the interpreter.
  std::mt19937 rng(seed + 1);
  std::vector<float> x = seeded(kSteps * kBatch * kIn * kSide * kSide, 1.0f, rng);
  std::vector<uint32_t> labels(kSteps * kBatch);
  for (uint32_t& l : labels) l = rng() % kClasses;
  const models::ClassifierGraphs graphs = models::build_classifier_graphs(m, mi, c);
  opgraph::Interpreter it(graphs.train);
  std::vector<float> ref_losses;
  const size_t per_step = size_t{kBatch} * kIn * kSide * kSide;
  for (uint32_t s = 0; s < kSteps; ++s) {
    const std::vector<float> xs(x.begin() + s * per_step, x.begin() + (s + 1) * per_step);
    const std::vector<uint32_t> ls(labels.begin() + s * kBatch, labels.begin() + (s + 1) * kBatch);
    const std::vector<opgraph::Words> v = it.step({{"x", opgraph::to_words(xs)}, {"labels", ls}});
    const std::vector<float> l = opgraph::to_floats(v.at(graphs.loss.id));
    ref_losses.insert(ref_losses.end(), l.begin(), l.end());
  }

  emu::MachineOptions mo;
  mo.target = arch::find_target(e->target);
  mo.mode = emu::Mode::kNative;
  emu::Machine machine(mo);
  machine.load_firmware(exe::parse_elf(e->firmware, "firmware"));
  runtime::Engine engine(machine, *e);
  engine.load();
  std::vector<float> losses(ref_losses.size());
  engine.connect_stream("x", std::span(x));
  engine.connect_stream("labels", std::span(labels));
  engine.connect_stream("loss", std::span(losses));
  engine.run("train", std::chrono::minutes(5));
  const auto close = [](float got, float want) {
    return std::fabs(got - want) <= 1e-5f * std::max(1.0f, std::fabs(want));
  };
  for (size_t i = 0; i < losses.size(); ++i)
    EXPECT_TRUE(close(losses[i], ref_losses[i])) << "loss " << i << ": " << losses[i] << " vs " << ref_losses[i];
  for (const char* n : {"conv.w", "conv.b", "fc.w", "fc.b"}) {
    const std::vector<float> got = engine.read_tensor_as<float>(n), want = it.parameter(n);
    ASSERT_EQ(got.size(), want.size()) << n;
    size_t bad = 0;
    for (size_t i = 0; i < got.size(); ++i)
      if (!close(got[i], want[i]) && ++bad <= 3) ADD_FAILURE() << n << "[" << i << "]: " << got[i] << " vs " << want[i];
    EXPECT_EQ(bad, 0u) << n;
  }
}

}  // namespace
}  // namespace tessera
