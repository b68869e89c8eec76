// A layer's three matmuls planned together (ops/layer_plan.h, lowered by opgraph::lower): in
// mnist-train on `medium` and `small`, each parameter's gradient is made with exactly the
// parameter's layout (the update copies nothing), weights are copied only where a product
// needs a block on another tile or the block's rows are partial, and training on `medium`
// still matches the reference interpreter.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <set>

#include "tessera/arch/tile_map.h"
#include "tessera/emu/machine.h"
#include "tessera/graph/codelets.h"
#include "tessera/models/mlp_train.h"
#include "tessera/opgraph/eval.h"
#include "tessera/ops/training.h"
#include "tessera/passes/passes.h"
#include "tessera/runtime/engine.h"

namespace tessera::testing {
namespace {

using graph::Program;
using graph::Tensor;

passes::CompileOptions compile_options() {
  return passes::firmware_options(std::string(TESSERA_TILE_BIN_DIR) + "/runtime/tessera-firmware.elf");
}

// Every Copy of a program tree, in order.
void copies(const Program& p, std::vector<std::pair<graph::Region, graph::Region>>& out) {
  if (p.kind == Program::Kind::kCopy) out.push_back({p.src, p.dst});
  for (const Program& q : p.body) copies(q, out);
  for (const Program& q : p.else_body) copies(q, out);
}

uint32_t variable(const graph::Graph& g, const std::string& name) {
  uint32_t found = UINT32_MAX;
  for (uint32_t v = 0; v < g.variables().size(); ++v)
    if (g.variables()[v].name == name) {
      EXPECT_EQ(found, UINT32_MAX) << "two variables named " << name;
      found = v;
    }
  EXPECT_NE(found, UINT32_MAX) << "no variable " << name;
  return found;
}

// The tile every element of t lies on (the test fails if they differ).
uint32_t tile_of(const graph::Graph& g, const graph::Region& t) {
  const std::vector<graph::Interval> iv = g.intervals(t);
  EXPECT_EQ(iv.size(), 1u) << g.describe(t);
  return iv.at(0).tile;
}

void expect_layers_keep_one_layout(const models::MlpTrainConfig& c) {
  SCOPED_TRACE(c.target);
  graph::Graph g = models::build_mlp_training(c, models::init_mlp_params(c.widths, 3));
  const graph::Program& train = g.programs().at(0).second;
  ASSERT_EQ(g.programs().at(0).first, "train");
  std::vector<std::pair<graph::Region, graph::Region>> cps;
  copies(train, cps);
  const uint32_t sgd = graph::find_codelet("sgd_momentum").index;
  for (const std::string& name : models::mlp_param_names(c.widths)) {
    SCOPED_TRACE(name);
    const uint32_t w = variable(g, name);
    const Tensor wt = g.tensor(w);
    // The gradient the updates read: one variable.
    std::set<uint32_t> grads;
    size_t updates = 0;
    for (const graph::VertexData& v : g.vertices()) {
      if (v.codelet != sgd || v.fields[0].region.var != w) continue;
      ++updates;
      grads.insert(v.fields[2].region.var);  // w, v, g, lr, n, momentum
    }
    ASSERT_GT(updates, 0u);
    ASSERT_EQ(grads.size(), 1u);
    const uint32_t gv = *grads.begin();
    EXPECT_NE(gv, w);
    EXPECT_NE(g.variables()[gv].name, name + ".grad") << "a relayout copy of the gradient";
    // Exactly W's layout: relayout gives the gradient itself and adds nothing.
    const Tensor gt = g.tensor(gv);
    EXPECT_EQ(g.intervals(gt), g.intervals(wt));
    Program scratch = graph::Sequence();
    const Tensor same = ops::relayout(g, scratch, gt, wt, name + ".check");
    EXPECT_EQ(same.var, gv);
    EXPECT_TRUE(scratch.body.empty());
    // Nothing copies into the gradient: it is reduced where it lies.
    for (const auto& [src, dst] : cps) EXPECT_NE(dst.var, gv) << "a copy into " << g.describe(dst);
    // W's blocks are copied only to other tiles, or on their own tile where a block's rows
    // are partial (the codelet takes a contiguous block).
    if (wt.shape.size() == 2) {
      size_t remote = 0, local = 0;
      for (const auto& [src, dst] : cps) {
        if (src.var != w) continue;
        if (tile_of(g, src) != tile_of(g, dst)) {
          ++remote;
        } else {
          ++local;
          EXPECT_LT(src.size(), wt.shape[1]) << "whole rows of " << name << " copied on their own tile";
        }
      }
      std::printf("%s %s: %zu copies of weight rows to other tiles, %zu on their own tile; %zu runs on tiles\n",
                  c.target.c_str(), name.c_str(), remote, local, g.intervals(wt).size());
    }
  }
}

TEST(LayerPlan, MediumGradientsHaveTheWeightsLayout) {
  models::MlpTrainConfig c;  // 784-256-128-10, batch 32, medium
  c.firmware_bytes = compile_options().layout.firmware_end - arch::kSramBase;
  expect_layers_keep_one_layout(c);
}

TEST(LayerPlan, SmallGradientsHaveTheWeightsLayout) {
  models::MlpTrainConfig c;
  c.target = "small";
  c.firmware_bytes = compile_options().layout.firmware_end - arch::kSramBase;
  expect_layers_keep_one_layout(c);  // full size (lowered, not compiled: it would not fit)
  c.widths = {784, 32, 16, 10};
  c.batch = 8;
  c.infer_batch = 12;
  expect_layers_keep_one_layout(c);
}

float max_abs(const std::vector<float>& v) {
  float m = 0;
  for (float f : v) m = std::fmax(m, std::fabs(f));
  return m;
}

TEST(LayerPlan, MediumTrainingMatchesTheInterpreter) {
  const uint32_t seed = 20261130;
  models::MlpTrainConfig c;
  c.widths = {784, 64, 48, 10};
  c.batch = 16;
  c.steps_per_sync = 3;
  c.infer_batch = 20;
  c.lr0 = 0.1f;
  c.total_steps = 10;
  const passes::CompileOptions co = compile_options();
  c.firmware_bytes = co.layout.firmware_end - arch::kSramBase;
  const models::MlpParams init = models::init_mlp_params(c.widths, seed);
  const std::vector<std::string> names = models::mlp_param_names(c.widths);
  const exe::Executable e = passes::compile(models::build_mlp_training(c, init), co);

  const uint32_t steps = c.steps_per_sync, in = c.widths[0];
  std::mt19937 rng(seed + 1);
  std::uniform_real_distribution<float> px(0.0f, 1.0f);
  std::vector<float> x(size_t{steps} * c.batch * in), losses(size_t{steps} * c.batch);
  for (float& v : x) v = px(rng);
  std::vector<uint32_t> labels(size_t{steps} * c.batch);
  for (uint32_t& l : labels) l = rng() % c.widths.back();
  emu::MachineOptions mo;
  mo.target = arch::find_target(e.target);
  mo.mode = emu::Mode::kNative;
  emu::Machine m(mo);
  m.load_firmware(exe::parse_elf(e.firmware, "firmware"));
  runtime::Engine engine(m, e);
  engine.load();
  for (const std::string& n : names) engine.write_tensor(n, std::span<const float>(init.at(n)));
  engine.connect_stream("x", std::span(x));
  engine.connect_stream("labels", std::span(labels));
  engine.connect_stream("loss", std::span(losses));
  engine.run("train", std::chrono::minutes(5));

  const models::MlpTrainGraphs og = models::build_mlp_training_graphs(c, init);
  opgraph::Interpreter it(og.train);
  for (uint32_t s = 0; s < steps; ++s) {
    const std::vector<float> xs(x.begin() + size_t{s} * c.batch * in, x.begin() + size_t{s + 1} * c.batch * in);
    const opgraph::Words ls(labels.begin() + size_t{s} * c.batch, labels.begin() + size_t{s + 1} * c.batch);
    const std::vector<float> want =
        opgraph::to_floats(it.step({{"x", opgraph::to_words(xs)}, {"labels", ls}})[og.loss.id]);
    const float scale = max_abs(want);
    for (uint32_t r = 0; r < c.batch; ++r)
      EXPECT_NEAR(losses[size_t{s} * c.batch + r], want[r], 1e-5f * scale) << "step " << s << " row " << r;
  }
  double worst = 0;
  for (const std::string& n : names) {
    const std::vector<float> got = engine.read_tensor_as<float>(n);
    const std::vector<float>& want = it.parameter(n);
    const float scale = max_abs(want);
    ASSERT_EQ(got.size(), want.size()) << n;
    for (size_t j = 0; j < want.size(); ++j) {
      worst = std::max(worst, std::fabs(double{got[j]} - want[j]) / scale);
      EXPECT_NEAR(got[j], want[j], 1e-5f * scale) << n << "[" << j << "]";
    }
  }
  std::printf("medium, %u steps: worst parameter difference from the interpreter %.3g of the largest magnitude\n",
              steps, worst);
}

}  // namespace
}  // namespace tessera::testing
