// The cost model's figures for the CNN codelets (conv2d, conv2d_grad_input,
// conv2d_grad_weight, maxpool2d, avgpool2d, ewise2, ewise1; compiler/ops/src/
// cost_model.cpp, fitted by bench/calibrate_costs) against ISS cycles of one vertex alone in
// a superstep, on shapes the fit did not see (odd sizes, strides, pads, dilation): within
// 10%.
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

Tensor on_tile0(Graph& g, std::vector<uint32_t> shape, const std::string& name, uint32_t seed) {
  Tensor t = g.add_variable(DType::kF32, shape, name);
  g.set_tile_mapping(t, 0);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(t.size());
  for (float& x : v) x = d(rng);
  g.set_initial_value(t, v);
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
  std::printf("  %-44s iss %8llu  estimate %9.0f  (%+.1f%%)\n", what.c_str(), static_cast<unsigned long long>(cycles),
              estimate, 100 * err);
  EXPECT_LE(std::fabs(err), tolerance) << what;
}

struct Conv {
  uint32_t cin, h, wd, cout, kh, kw, sh, sw, ph, pw, dh, dw;
  uint32_t oh() const { return (h + 2 * ph - dh * (kh - 1) - 1) / sh + 1; }
  uint32_t ow() const { return (wd + 2 * pw - dw * (kw - 1) - 1) / sw + 1; }
  ops::ConvWorkShape work() const {
    return {cin, h, wd, cout, oh(), ow(), kh, kw, sh, sw, int32_t(ph), int32_t(pw), dh, dw};
  }
  std::string name() const {
    return std::to_string(cin) + "x" + std::to_string(h) + "x" + std::to_string(wd) + "->" + std::to_string(cout) +
           " k" + std::to_string(kh) + "x" + std::to_string(kw) + " s" + std::to_string(sh) + " p" +
           std::to_string(ph) + " d" + std::to_string(dh);
  }
};

TEST(CnnCosts, CodeletEstimatesWithinTenPercentOfIss) {
  const ops::CostModel cost = ops::CostModel::for_target(*arch::find_target("small"));
  const Conv convs[] = {{2, 11, 13, 5, 3, 3, 1, 1, 1, 1, 1, 1},  {6, 10, 10, 16, 5, 5, 1, 1, 0, 0, 1, 1},
                        {3, 17, 17, 6, 5, 5, 2, 2, 2, 2, 1, 1},  {12, 7, 7, 12, 3, 3, 1, 1, 1, 1, 2, 2},
                        {16, 5, 5, 24, 1, 1, 1, 1, 0, 0, 1, 1},  {1, 20, 20, 6, 5, 5, 1, 1, 2, 2, 1, 1},
                        {3, 19, 19, 4, 11, 11, 4, 4, 2, 2, 1, 1}, {20, 6, 6, 10, 3, 3, 2, 2, 1, 1, 1, 1}};
  for (const Conv& c : convs) {
    for (const std::string codelet : {"conv2d", "conv2d_grad_input", "conv2d_grad_weight"}) {
      const uint64_t cycles = iss_cycles(codelet, [&](Graph& g, Vertex v) {
        const Tensor x = on_tile0(g, {c.cin, c.h, c.wd}, "x", 1), w = on_tile0(g, {c.cout, c.cin, c.kh, c.kw}, "w", 2),
                     y = on_tile0(g, {c.cout, c.oh(), c.ow()}, "y", 3);
        if (codelet == "conv2d") {
          g.connect(v, "y", y), g.connect(v, "x", x), g.connect(v, "w", w);
          g.connect(v, "b", on_tile0(g, {c.cout}, "b", 4));
        } else if (codelet == "conv2d_grad_input") {
          g.connect(v, "dx", x), g.connect(v, "dy", y), g.connect(v, "w", w);
        } else {
          g.connect(v, "dweight", w), g.connect(v, "x", x), g.connect(v, "dy", y);
          g.set_field(v, "accumulate", 1);
        }
        const char* names[] = {"cin", "h", "wd", "cout", "oh", "ow", "kh", "kw", "sh", "sw", "ph", "pw", "dh", "dw"};
        const uint32_t values[] = {c.cin, c.h, c.wd, c.cout, c.oh(), c.ow(), c.kh, c.kw, c.sh, c.sw, c.ph, c.pw, c.dh, c.dw};
        for (int i = 0; i < 14; ++i) g.set_field(v, names[i], values[i]);
      });
      const double estimate = codelet == "conv2d"              ? cost.conv2d(ops::conv2d_work(c.work()))
                              : codelet == "conv2d_grad_input" ? cost.conv2d_grad_input(ops::conv2d_grad_input_work(c.work()))
                                                               : cost.conv2d_grad_weight(ops::conv2d_grad_weight_work(c.work()));
      expect_within(codelet + " " + c.name(), estimate, cycles);
    }
  }
  struct Pool {
    uint32_t c, h, wd, k, s, p;
  };
  for (const Pool& p : {Pool{6, 28, 28, 2, 2, 0}, Pool{3, 13, 13, 3, 2, 1}, Pool{10, 9, 9, 3, 1, 1}}) {
    const uint32_t oh = (p.h + 2 * p.p - p.k) / p.s + 1, ow = (p.wd + 2 * p.p - p.k) / p.s + 1;
    for (const std::string codelet : {"maxpool2d", "avgpool2d"}) {
      const uint64_t cycles = iss_cycles(codelet, [&](Graph& g, Vertex v) {
        g.connect(v, "y", on_tile0(g, {p.c, oh, ow}, "y", 5));
        g.connect(v, "x", on_tile0(g, {p.c, p.h, p.wd}, "x", 6));
        const char* names[] = {"c", "h", "wd", "oh", "ow", "kh", "kw", "sh", "sw"};
        const uint32_t values[] = {p.c, p.h, p.wd, oh, ow, p.k, p.k, p.s, p.s};
        for (int i = 0; i < 9; ++i) g.set_field(v, names[i], values[i]);
        if (codelet == "maxpool2d") {
          g.set_field(v, "ph", p.p), g.set_field(v, "pw", p.p);
        } else {
          for (const char* f : {"pt", "pl", "pb", "pr"}) g.set_field(v, f, p.p);
          g.set_field(v, "count_include_pad", 0);
        }
      });
      const ops::Work4 w = ops::pool_work(p.c, p.h, p.wd, oh, ow, p.k, p.k, p.s, p.s, int32_t(p.p), int32_t(p.p));
      expect_within(codelet + " " + std::to_string(p.c) + "x" + std::to_string(p.h) + " k" + std::to_string(p.k),
                    (codelet == "maxpool2d" ? cost.maxpool2d : cost.avgpool2d)(w), cycles);
    }
  }
  for (uint32_t n : {40u, 500u, 3136u}) {
    for (uint32_t op : {1u, 3u, 5u}) {  // sub, div, min
      const uint64_t cycles = iss_cycles("ewise2", [&](Graph& g, Vertex v) {
        const Tensor a = on_tile0(g, {n}, "a", 7);
        g.connect(v, "dst", a), g.connect(v, "a", a), g.connect(v, "b", on_tile0(g, {8}, "b", 8));
        g.set_field(v, "n", n), g.set_field(v, "bn", 8), g.set_field(v, "inner", 5), g.set_field(v, "op", op);
      });
      expect_within("ewise2 op " + std::to_string(op) + " " + std::to_string(n), cost.ewise2[op](n), cycles);
    }
    for (uint32_t op : {0u, 1u, 2u, 3u, 4u}) {
      const uint64_t cycles = iss_cycles("ewise1", [&](Graph& g, Vertex v) {
        const Tensor a = on_tile0(g, {n}, "a", 9);
        g.connect(v, "dst", a), g.connect(v, "src", a);
        g.set_field(v, "n", n), g.set_field(v, "op", op);
        g.set_field_f32(v, "p0", -0.5f), g.set_field_f32(v, "p1", 0.5f);
      });
      expect_within("ewise1 op " + std::to_string(op) + " " + std::to_string(n), cost.ewise1[op](n), cycles);
    }
  }
}

}  // namespace
}  // namespace tessera::testing
