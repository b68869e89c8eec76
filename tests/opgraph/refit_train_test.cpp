// Lowering a training graph again where it does not fit (refit.h, models/classifier_train.h):
// "train" and "infer" lowered into one vertex graph, their ops numbered one after the other,
// the memory plan's peaks name the ops whose temporaries fill the tiles that do not fit, and
// only those get a smaller share. The model: eight 8-channel 16 x 16 images through a 3 x 3
// conv to 24 channels, relu, and an fc to 10 classes, trained on `small` (16 tiles of 128 KB).
// At memory proportion 0.5 it does not fit. Rounds give the ops the peaks name less, and an op
// whose plan did not change with less names the next op on its tiles too, until it fits; the
// fc's forward plan stays. Two SGD steps on the emulator (native) give the interpreter's
// losses and weights.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "tessera/arch/tile_map.h"
#include "tessera/emu/machine.h"
#include "tessera/models/classifier_train.h"
#include "tessera/opgraph/eval.h"
#include "tessera/opgraph/refit.h"
#include "tessera/passes/passes.h"
#include "tessera/runtime/engine.h"
#include "tessera/testutil/seeded.h"

namespace tessera {
namespace {

using opgraph::OpGraph;
using opgraph::Value;
using testutil::seeded;

constexpr uint32_t kBatch = 8, kIn = 8, kOut = 24, kSide = 16, kClasses = 10, kSteps = 2;
const char* const kNames[] = {"conv.w", "conv.b", "fc.w", "fc.b"};

OpGraph conv_fc(uint32_t batch, uint32_t seed) {
  std::mt19937 rng(seed);
  OpGraph og;
  const Value x = og.input("x", opgraph::DType::kF32, {batch, kIn, kSide, kSide});
  const Value w = og.constant("conv.w", {kOut, kIn, 3, 3}, seeded(kOut * kIn * 9, 0.3f, rng));
  const Value b = og.constant("conv.b", {kOut}, seeded(kOut, 0.1f, rng));
  const Value c = og.relu(og.conv2d(x, w, b, {1, 1, 1, 1, 1, 1, 1, 1, 1}, "conv"), "relu");
  const uint32_t n = kOut * kSide * kSide;
  const Value flat = og.reshape(c, {batch, n}, "flat");
  const Value fw = og.constant("fc.w", {n, kClasses}, seeded(n * kClasses, 0.02f, rng));
  const Value fb = og.constant("fc.b", {kClasses}, seeded(kClasses, 0.1f, rng));
  og.output("y", og.add_bias(og.matmul(flat, fw, "fc"), fb, "fc"));
  return og;
}

// The vertices in the compute sets whose name starts with `prefix`.
size_t vertices_of(const graph::Graph& g, const std::string& prefix) {
  size_t n = 0;
  for (const graph::VertexData& v : g.vertices()) n += g.compute_sets()[v.compute_set].name.rfind(prefix, 0) == 0;
  return n;
}

TEST(RefitTraining, OnlyTheOpsThatFillTheTilesGetLess) {
  const uint32_t seed = 20261204;
  std::printf("seed %u\n", seed);
  const OpGraph m = conv_fc(kBatch, seed), mi = conv_fc(2, seed);
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
  for (const char* n : kNames) {
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
