// mnist-train (models/mlp_train.h): one executable with programs "train" and "infer" (and
// "init", tested in mlp_init_test.cpp) over the same parameters. A small MLP trained on the emulator (ISS = native bits) and then
// classifying with the trained values, against the op graph's reference Interpreter; the
// parameters and velocities never share bytes with anything; the full-size model fits the
// medium target.
#include <gtest/gtest.h>

#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <random>
#include <set>

#include "tessera/arch/tile_map.h"
#include "tessera/emu/machine.h"
#include "tessera/models/mlp_train.h"
#include "tessera/opgraph/eval.h"
#include "tessera/opgraph/lower.h"
#include "tessera/passes/passes.h"
#include "tessera/runtime/engine.h"
#include "tessera/testutil/on_emulator.h"

namespace tessera::testing {
namespace {

using opgraph::Words;

passes::CompileOptions compile_options() {
  return passes::firmware_options(std::string(TESSERA_TILE_BIN_DIR) + "/runtime/tessera-firmware.elf");
}

std::vector<uint32_t> bits(const std::vector<float>& v) {
  std::vector<uint32_t> b;
  for (float f : v) b.push_back(std::bit_cast<uint32_t>(f));
  return b;
}

float max_abs(const std::vector<float>& v) {
  float m = 0;
  for (float f : v) m = std::fmax(m, std::fabs(f));
  return m;
}

// No byte of a persistent tensor (a parameter, a velocity, the lr words) is shared with any
// other tensor on its tile.
void expect_persistent_bytes_unshared(const exe::Executable& e) {
  struct Range {
    uint32_t tile, begin, end;
    size_t tensor;
  };
  std::vector<Range> ranges;
  for (size_t i = 0; i < e.tensors.size(); ++i)
    for (const auto& iv : e.tensors[i].intervals)
      ranges.push_back({iv.tile, iv.addr, iv.addr + iv.count * exe::dtype_bytes(e.tensors[i].dtype), i});
  size_t checked = 0;
  for (const Range& p : ranges) {
    if (!e.tensors[p.tensor].persistent) continue;
    ++checked;
    for (const Range& q : ranges)
      if (q.tensor != p.tensor && q.tile == p.tile && q.begin < p.end && p.begin < q.end)
        ADD_FAILURE() << e.tensors[p.tensor].name << " shares bytes with " << e.tensors[q.tensor].name << " on tile "
                      << p.tile;
  }
  EXPECT_GT(checked, 0u);
}

TEST(MlpTrain, BothProgramsMatchTheInterpreterInIssAndNative) {
  const uint32_t seed = 20261202, syncs = 2;
  models::MlpTrainConfig c;
  c.widths = {784, 32, 16, 10};
  c.batch = 8;
  c.steps_per_sync = 2;
  c.infer_batch = 12;
  c.lr0 = 0.1f;
  c.total_steps = 6;
  c.target = "small";
  const passes::CompileOptions co = compile_options();
  c.firmware_bytes = co.layout.firmware_end - arch::kSramBase;
  std::printf("seed %u\n", seed);
  const models::MlpParams init = models::init_mlp_params(c.widths, seed);
  const std::vector<std::string> names = models::mlp_param_names(c.widths);
  ASSERT_EQ(names, (std::vector<std::string>{"fc1.w", "fc1.b", "fc2.w", "fc2.b", "fc3.w", "fc3.b"}));

  graph::Graph g = models::build_mlp_training(c, init);
  ASSERT_EQ(g.programs().size(), 3u);
  EXPECT_EQ(g.programs()[0].first, "train");
  EXPECT_EQ(g.programs()[1].first, "infer");
  EXPECT_EQ(g.programs()[2].first, "init");  // mlp_init_test.cpp
  const exe::Executable e = passes::compile(g, co);
  // One variable per parameter and velocity, persistent.
  for (const std::string& n : names)
    for (const std::string& t : {n, n + ".velocity"}) {
      size_t found = 0;
      for (const exe::Tensor& et : e.tensors)
        if (et.name == t) {
          ++found;
          EXPECT_TRUE(et.persistent) << t;
        }
      EXPECT_EQ(found, 1u) << t;
    }
  std::set<std::string> streams;
  for (const exe::Stream& s : e.streams) streams.insert(s.name.substr(0, s.name.find('#')));
  EXPECT_EQ(streams, (std::set<std::string>{"x", "labels", "loss", "x_infer", "logits", "seed"}));
  expect_persistent_bytes_unshared(e);

  // The data: steps of random pixels and labels, then one inference batch.
  const uint32_t steps = syncs * c.steps_per_sync, in = c.widths[0], classes = c.widths.back();
  std::mt19937 rng(seed + 1);
  std::uniform_real_distribution<float> px(0.0f, 1.0f);
  std::vector<float> x(size_t{steps} * c.batch * in), xi(size_t{c.infer_batch} * in);
  for (float& v : x) v = px(rng);
  for (float& v : xi) v = px(rng);
  std::vector<uint32_t> labels(size_t{steps} * c.batch);
  for (uint32_t& l : labels) l = rng() % classes;

  struct Run {
    std::vector<float> losses, logits;
    std::vector<std::vector<float>> params;
  };
  auto run_on = [&](emu::Mode mode) {
    testutil::OnEmulator loaded(e, mode);
    runtime::Engine& engine = loaded.engine;
    Run r;
    r.losses.assign(size_t{steps} * c.batch, 0.0f);
    r.logits.assign(size_t{c.infer_batch} * classes, 0.0f);
    for (uint32_t s = 0; s < syncs; ++s) {
      // One run = steps_per_sync steps: this sync's slice of the data.
      const size_t rows = size_t{c.steps_per_sync} * c.batch;
      engine.connect_stream("x", std::span(x).subspan(s * rows * in, rows * in));
      engine.connect_stream("labels", std::span(labels).subspan(s * rows, rows));
      engine.connect_stream("loss", std::span(r.losses).subspan(s * rows, rows));
      engine.run("train", std::chrono::minutes(5));
    }
    engine.connect_stream("x_infer", std::span(xi));
    engine.connect_stream("logits", std::span(r.logits));
    engine.run("infer", std::chrono::minutes(5));
    for (const std::string& n : names) r.params.push_back(engine.read_tensor_as<float>(n));
    std::printf("%s: %zu runs\n", mode == emu::Mode::kIss ? "ISS" : "native", engine.reports().size());
    return r;
  };
  const Run native = run_on(emu::Mode::kNative);
  const Run iss = run_on(emu::Mode::kIss);
  EXPECT_EQ(bits(iss.losses), bits(native.losses));
  EXPECT_EQ(bits(iss.logits), bits(native.logits));
  for (size_t i = 0; i < names.size(); ++i) EXPECT_EQ(bits(iss.params[i]), bits(native.params[i])) << names[i];

  // The reference: the training graph step by step, then the inference graph on the
  // parameters the interpreter ended with. Within 1e-5 of the largest magnitude (as
  // train_lowering_test: fmaf chains and the firmware's exp/log on the device).
  const models::MlpTrainGraphs og = models::build_mlp_training_graphs(c, init);
  opgraph::Interpreter it(og.train);
  for (uint32_t s = 0; s < steps; ++s) {
    const std::vector<float> xs(x.begin() + size_t{s} * c.batch * in, x.begin() + size_t{s + 1} * c.batch * in);
    const Words ls(labels.begin() + size_t{s} * c.batch, labels.begin() + size_t{s + 1} * c.batch);
    const std::vector<float> want = opgraph::to_floats(it.step({{"x", opgraph::to_words(xs)}, {"labels", ls}})[og.loss.id]);
    const float scale = max_abs(want);
    double mean = 0;
    for (uint32_t r = 0; r < c.batch; ++r) {
      const float got = native.losses[size_t{s} * c.batch + r];
      mean += got / c.batch;
      EXPECT_NEAR(got, want[r], 1e-5f * scale) << "step " << s << " row " << r;
    }
    std::printf("step %u: mean loss %.6f\n", s, mean);
  }
  models::MlpParams trained;
  for (size_t i = 0; i < names.size(); ++i) {
    const std::vector<float>& want = it.parameter(names[i]);
    const float scale = max_abs(want);
    ASSERT_EQ(native.params[i].size(), want.size()) << names[i];
    for (size_t j = 0; j < want.size(); ++j)
      EXPECT_NEAR(native.params[i][j], want[j], 1e-5f * scale) << names[i] << "[" << j << "]";
    trained[names[i]] = want;
  }
  const models::MlpTrainGraphs after = models::build_mlp_training_graphs(c, trained);
  const std::vector<float> want =
      opgraph::to_floats(opgraph::evaluate(after.infer, {{"x_infer", opgraph::to_words(xi)}})[after.logits.id]);
  const float scale = max_abs(want);
  double worst = 0;
  for (size_t j = 0; j < want.size(); ++j) {
    worst = std::max(worst, std::fabs(double{native.logits[j]} - want[j]) / scale);
    EXPECT_NEAR(native.logits[j], want[j], 1e-5f * scale) << "logit " << j;
  }
  std::printf("logits: worst difference from the interpreter %.3g of the largest magnitude\n", worst);
  // And "infer" did use the trained values, not the initial ones.
  const models::MlpTrainGraphs before = models::build_mlp_training_graphs(c, init);
  const std::vector<float> initial_logits =
      opgraph::to_floats(opgraph::evaluate(before.infer, {{"x_infer", opgraph::to_words(xi)}})[before.logits.id]);
  double moved = 0;
  for (size_t j = 0; j < want.size(); ++j) moved = std::max(moved, std::fabs(double{initial_logits[j]} - want[j]));
  EXPECT_GT(moved, 100 * 1e-5 * scale) << "training should change the logits";
}

TEST(MlpTrain, BoundParametersMustMatch) {
  opgraph::OpGraph a, b;
  a.parameter("w", {4, 2}, std::vector<float>(8));
  b.parameter("w", {2, 4}, std::vector<float>(8));
  graph::Graph g(*arch::find_target("small"));
  graph::Tensor t = g.add_variable(exe::DType::kF32, {4, 2}, "w");
  opgraph::LowerOptions o;
  o.parameters["w"] = t;
  o.program = "p";
  try {
    opgraph::lower(b, g, o);
    ADD_FAILURE() << "no error";
  } catch (const opgraph::OpGraphError& err) {
    EXPECT_EQ(std::string(err.what()), "parameter 'w' f32[2,4]: the bound tensor w is f32[4,2]");
  }
  EXPECT_NO_THROW(opgraph::lower(a, g, o));
  EXPECT_EQ(g.programs().back().first, "p");
}

TEST(MlpTrain, FullSizeFitsTheMediumTarget) {
  models::MlpTrainConfig c;  // 784-256-128-10, batch 32, 25 steps per sync, infer batch 100
  const passes::CompileOptions co = compile_options();
  c.firmware_bytes = co.layout.firmware_end - arch::kSramBase;
  const auto start = std::chrono::steady_clock::now();
  graph::Graph g = models::build_mlp_training(c, models::init_mlp_params(c.widths, 1));
  exe::Executable e;
  ASSERT_NO_THROW(e = passes::compile(g, co));
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  expect_persistent_bytes_unshared(e);
  // Peak bytes per tile: code, stack, control, vertex state, send lists, landing and the
  // most tensor bytes live at once.
  uint32_t peak = 0, peak_tile = 0, peak_tensors = 0;
  for (uint32_t t = 0; t < e.memory.size(); ++t) {
    const exe::TileMemory& m = e.memory[t];
    const uint32_t used = m.code + m.stack + m.control + m.vertex_state + m.send_lists + m.landing + m.tensors;
    if (used > peak) peak = used, peak_tile = t, peak_tensors = m.tensors;
  }
  const arch::Target& target = *arch::find_target(c.target);
  std::printf("medium 784-256-128-10 batch 32: %zu vertices, built and compiled in %.2f s; peak %u of %u bytes "
              "on tile %u (%u of them tensors; %u tiles)\n",
              g.vertices().size(), s, peak, target.sram_bytes, peak_tile, peak_tensors, target.tiles);
  EXPECT_LE(peak, target.sram_bytes);
}

}  // namespace
}  // namespace tessera::testing
