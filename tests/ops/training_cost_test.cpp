// The cost model's figures for the training codelets (matmul_tn, matmul_nt, relu_grad,
// softmax_xent, sgd_momentum; compiler/ops/src/cost_model.cpp, fitted by
// bench/calibrate_costs) against ISS cycles of one vertex alone in a superstep, on shapes
// the fit did not see: within 10%.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <functional>
#include <random>

#include "tessera/emu/machine.h"
#include "tessera/ops/cost_model.h"
#include "tessera/passes/passes.h"
#include "tessera/runtime/engine.h"

namespace tessera::testing {
namespace {

using namespace graph;

Tensor on_tile0(Graph& g, DType dt, std::vector<uint32_t> shape, const std::string& name, uint32_t seed) {
  Tensor t = g.add_variable(dt, shape, name);
  g.set_tile_mapping(t, 0);
  std::mt19937 rng(seed);
  if (dt == DType::kF32) {
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    std::vector<float> v(t.size());
    for (float& x : v) x = d(rng);
    g.set_initial_value(t, v);
  } else {
    std::vector<uint32_t> v(t.size());
    for (uint32_t& x : v) x = rng() % 10;
    g.set_initial_words(t, v);
  }
  return t;
}

// Tile 0's compute cycles of the superstep running one vertex of `codelet` on tile 0, its
// fields set by `setup` (one-word copies to tile 1 before and after give it a superstep).
uint64_t iss_cycles(const std::string& codelet, const std::function<void(Graph&, Vertex)>& setup) {
  Graph g(*arch::find_target("small"));
  const ComputeSet cs = g.add_compute_set("cs");
  setup(g, g.add_vertex(cs, codelet, 0));
  Tensor s0 = g.add_variable(DType::kF32, {1}, "s0"), s1 = g.add_variable(DType::kF32, {1}, "s1");
  g.set_tile_mapping(s0, 0);
  g.set_tile_mapping(s1, 1);
  g.set_initial_value(s0, {0.0f});
  g.add_program("main", Sequence({Copy(s0, s1), Execute(cs), Copy(s0, s1)}));
  const exe::Executable e = passes::compile(
      g, passes::firmware_options(std::string(TESSERA_TILE_BIN_DIR) + "/runtime/tessera-firmware.elf"));
  emu::MachineOptions mo;
  mo.target = arch::find_target(e.target);
  mo.mode = emu::Mode::kIss;
  emu::Machine m(mo);
  m.load_firmware(exe::parse_elf(e.firmware, "firmware"));
  runtime::Engine engine(m, e);
  engine.load();
  engine.run("main", std::chrono::seconds(60));
  EXPECT_EQ(m.profile().size(), 2u);
  return m.profile().at(1).tile_cycles.at(0);
}

void expect_within(const std::string& what, double estimate, uint64_t cycles, double tolerance = 0.10) {
  const double err = (estimate - double(cycles)) / double(cycles);
  std::printf("  %-26s iss %8llu  estimate %9.0f  (%+.1f%%)\n", what.c_str(), static_cast<unsigned long long>(cycles),
              estimate, 100 * err);
  EXPECT_LE(std::fabs(err), tolerance) << what;
}

TEST(TrainingCosts, CodeletEstimatesWithinTenPercentOfIss) {
  const ops::CostModel cost = ops::CostModel::for_target(*arch::find_target("small"));
  const uint32_t shapes[][3] = {{3, 24, 5}, {12, 32, 10}, {49, 32, 16}, {32, 16, 49}};
  for (const auto& s : shapes) {
    const uint32_t m = s[0], k = s[1], n = s[2];
    const std::string shape = std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n);
    for (const char* codelet : {"matmul_tn", "matmul_nt"}) {
      const uint64_t c = iss_cycles(codelet, [&](Graph& g, Vertex v) {
        g.connect(v, "c", on_tile0(g, DType::kF32, {m, n}, "c", 1));
        g.connect(v, "a", on_tile0(g, DType::kF32, {m, k}, "a", 2));
        g.connect(v, "b", on_tile0(g, DType::kF32, {k, n}, "b", 3));
        g.set_field(v, "m", m);
        g.set_field(v, "k", k);
        g.set_field(v, "n", n);
      });
      const ops::LinearCost& f = std::string(codelet) == "matmul_tn" ? cost.matmul_tn : cost.matmul_nt;
      expect_within(std::string(codelet) + " " + shape, f(double(m) * k * n), c);
    }
  }
  for (uint32_t n : {40u, 500u, 3136u}) {
    const uint64_t rg = iss_cycles("relu_grad", [&](Graph& g, Vertex v) {
      const Tensor dy = on_tile0(g, DType::kF32, {n}, "dy", 4);
      g.connect(v, "dx", dy);
      g.connect(v, "dy", dy);
      g.connect(v, "y", on_tile0(g, DType::kF32, {n}, "y", 5));
      g.set_field(v, "n", n);
    });
    expect_within("relu_grad " + std::to_string(n), cost.relu_grad(n), rg);
    const uint64_t sg = iss_cycles("sgd_momentum", [&](Graph& g, Vertex v) {
      g.connect(v, "w", on_tile0(g, DType::kF32, {n}, "w", 6));
      g.connect(v, "v", on_tile0(g, DType::kF32, {n}, "v", 7));
      g.connect(v, "g", on_tile0(g, DType::kF32, {n}, "g", 8));
      g.connect(v, "lr", on_tile0(g, DType::kF32, {1}, "lr", 9));
      g.set_field(v, "n", n);
      g.set_field_f32(v, "momentum", 0.9f);
    });
    expect_within("sgd_momentum " + std::to_string(n), cost.sgd_momentum(n), sg);
  }
  const uint32_t xent[][2] = {{3, 10}, {12, 10}, {24, 10}, {4, 16}};
  for (const auto& s : xent) {
    const uint32_t rows = s[0], cols = s[1];
    const uint64_t c = iss_cycles("softmax_xent", [&](Graph& g, Vertex v) {
      g.connect(v, "dlogits", on_tile0(g, DType::kF32, {rows, cols}, "d", 10));
      g.connect(v, "loss", on_tile0(g, DType::kF32, {rows}, "loss", 11));
      g.connect(v, "logits", on_tile0(g, DType::kF32, {rows, cols}, "logits", 12));
      g.connect(v, "labels", on_tile0(g, DType::kU32, {rows}, "labels", 13));
      g.set_field(v, "rows", rows);
      g.set_field(v, "cols", cols);
      g.set_field_f32(v, "scale", 1.0f / rows);
    });
    expect_within("softmax_xent " + std::to_string(rows) + "x" + std::to_string(cols), cost.softmax_xent(rows * cols), c);
  }
}

}  // namespace
}  // namespace tessera::testing
