// A weight's forward, input-gradient and weight-gradient matmuls planned together
// (ops/layer_plan.h): the planner against an exhaustive search of its own estimates, the
// tile assignment (W's blocks where every product's first batch block is), and the three
// products lowered on one weight layout (the gradient into a tensor laid out like W) and
// run on the emulator, bit for bit against plain C++ in the same order of operations.
#include <gtest/gtest.h>

#include <bit>
#include <chrono>
#include <cmath>
#include <random>
#include <set>

#include "tessera/arch/targets.h"
#include "tessera/emu/machine.h"
#include "tessera/ops/layer_plan.h"
#include "tessera/ops/training.h"
#include "tessera/passes/passes.h"
#include "tessera/runtime/engine.h"

namespace tessera::testing {
namespace {

using ops::LayerProduct;

std::vector<LayerProduct> mlp_layer(uint32_t batch, bool whole_rows) {
  return {{LayerProduct::kForward, batch, whole_rows}, {LayerProduct::kInputGrad, batch, false},
          {LayerProduct::kWeightGrad, batch, false}};
}

TEST(LayerPlanner, ChoosesTheLeastSummedEstimateWithinTheBudget) {
  struct Shape {
    uint32_t k, n, batch, tiles;
    bool whole_rows;
    double budget;
  };
  for (const Shape s : {Shape{784, 256, 32, 64, false, 122880}, Shape{256, 128, 32, 64, false, 122880},
                        Shape{128, 10, 32, 64, true, 122880}, Shape{784, 32, 8, 16, false, 57344},
                        Shape{50, 30, 20, 16, false, 6000}}) {
    const arch::Target& t = *arch::find_target(s.tiles == 64 ? "medium" : "small");
    const ops::CostModel cost = ops::CostModel::for_target(t);
    const std::vector<LayerProduct> ps = mlp_layer(s.batch, s.whole_rows);
    const ops::LayerPlan plan = ops::plan_layer(s.k, s.n, ps, s.tiles, cost, s.budget);
    SCOPED_TRACE(std::to_string(s.k) + "x" + std::to_string(s.n) + " grid " + std::to_string(plan.pk) + "x" +
                 std::to_string(plan.pn));
    ASSERT_EQ(plan.plans.size(), ps.size());
    double best = INFINITY;
    for (uint32_t pk = 1; pk <= std::min(s.k, s.tiles); ++pk)
      for (uint32_t pn = 1; pn <= std::min(s.n, s.tiles / pk); ++pn) {
        if (s.whole_rows && pn > 1) continue;
        double total = 0;
        for (const LayerProduct& p : ps) {
          double low = INFINITY;
          for (uint32_t pb = 1; pb <= std::min(s.batch, s.tiles / (pk * pn)); ++pb) {
            const ops::MatMulPlan e = ops::estimate_layer_product(s.k, s.n, pk, pn, p, pb, true, cost);
            if (e.bytes <= s.budget) low = std::min(low, e.total());
          }
          total += low;
        }
        best = std::min(best, total);
      }
    EXPECT_NEAR(plan.total, best, 1e-6 * best);
    double sum = 0;
    for (size_t i = 0; i < ps.size(); ++i) {
      const ops::MatMulPlan& p = plan.plans[i];
      EXPECT_LE(p.bytes, s.budget);
      EXPECT_LE(p.tiles(), s.tiles);
      sum += p.total();
      // The product's grid uses W's: (batch, k, n), (batch, n, k), (k, batch, n).
      const uint32_t wk = ps[i].kind == LayerProduct::kInputGrad ? p.pn : ps[i].kind == LayerProduct::kWeightGrad ? p.pm : p.pk;
      const uint32_t wn = ps[i].kind == LayerProduct::kInputGrad ? p.pk : p.pn;
      EXPECT_EQ(wk, plan.pk);
      EXPECT_EQ(wn, plan.pn);
    }
    EXPECT_NEAR(sum, plan.total, 1e-6 * sum);
    if (s.whole_rows) {
      EXPECT_EQ(plan.pn, 1u);
    }
  }
}

TEST(LayerPlanner, FirstBatchBlockOfEveryProductIsOnTheWeightsTiles) {
  const ops::CostModel cost = ops::CostModel::for_target(*arch::find_target("medium"));
  const std::vector<LayerProduct> ps = mlp_layer(32, false);
  const ops::LayerPlan plan = ops::plan_layer(256, 128, ps, 64, cost);
  for (size_t i = 0; i < ps.size(); ++i) {
    const ops::MatMulPlan& p = plan.plans[i];
    const ops::MatMulOptions o = ops::layer_options(plan, ps, i);
    std::set<uint32_t> tiles;
    for (uint32_t im = 0; im < p.pm; ++im)
      for (uint32_t ik = 0; ik < p.pk; ++ik)
        for (uint32_t in = 0; in < p.pn; ++in) {
          const uint32_t t = o.tile(im, ik, in);
          EXPECT_LT(t, 64u);
          tiles.insert(t);
          // W's block coordinates and the batch block of this position.
          uint32_t ib, wk, wn;
          if (ps[i].kind == LayerProduct::kForward) ib = im, wk = ik, wn = in;
          else if (ps[i].kind == LayerProduct::kInputGrad) ib = im, wk = in, wn = ik;
          else ib = ik, wk = im, wn = in;
          if (ib == 0) {
            EXPECT_EQ(t, wk * plan.pn + wn) << "product " << i;
          }
        }
    EXPECT_EQ(tiles.size(), p.tiles()) << "product " << i << ": positions share a tile";
  }
}

uint32_t split_begin(uint32_t total, uint32_t parts, uint32_t i) {
  return static_cast<uint32_t>(uint64_t{total} * i / parts);
}

// C = op(A) op(B) as the lowering computes it: an fma chain from +0 over each of the `pk`
// k-blocks, the blocks' partials added in order. at(i, p) = op(A)[i][p], bt(p, j) = op(B)[p][j].
template <typename A, typename B>
std::vector<float> reference(uint32_t m, uint32_t k, uint32_t n, uint32_t pk, A at, B bt) {
  std::vector<float> c(size_t{m} * n);
  for (uint32_t i = 0; i < m; ++i)
    for (uint32_t j = 0; j < n; ++j) {
      float sum = 0;
      for (uint32_t ik = 0; ik < pk; ++ik) {
        float acc = 0;
        for (uint32_t p = split_begin(k, pk, ik); p < split_begin(k, pk, ik + 1); ++p)
          acc = std::fmaf(at(i, p), bt(p, j), acc);
        sum = ik == 0 ? acc : sum + acc;
      }
      c[size_t{i} * n + j] = sum;
    }
  return c;
}

std::vector<uint32_t> bits(const std::vector<float>& v) {
  std::vector<uint32_t> b;
  for (float f : v) b.push_back(std::bit_cast<uint32_t>(f));
  return b;
}

// A layer X [b, k] W [k, n] on grid (pk, pn) with batch split pb for every product: Y = X W,
// dX = dY W^T, dW = X^T dY into a tensor laid out like W, and Y2 = X W again on a plan of
// its own (grid pk2 x pn2: W's blocks copied by rows where the grids differ); on the
// emulator (native). W is read back as the host sees it (logical order).
void run_layer(uint32_t b, uint32_t k, uint32_t n, uint32_t pk, uint32_t pn, uint32_t pb, uint32_t pk2 = 1,
               uint32_t pn2 = 1) {
  SCOPED_TRACE("grid " + std::to_string(pk) + "x" + std::to_string(pn) + ", batch split " + std::to_string(pb));
  std::mt19937 rng(b * 7 + k * 3 + n + pk * 100 + pn * 1000 + pb * 10000);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> x(size_t{b} * k), w(size_t{k} * n), dy(size_t{b} * n);
  for (float& v : x) v = d(rng);
  for (float& v : w) v = d(rng);
  for (float& v : dy) v = d(rng);

  using namespace graph;
  Graph g(*arch::find_target("small"));
  Tensor X = g.add_variable(DType::kF32, {b, k}, "X"), DY = g.add_variable(DType::kF32, {b, n}, "DY");
  g.map_linearly(X, k);
  g.map_linearly(DY, n);
  Tensor W = g.add_variable(DType::kF32, {k, n}, "W");
  g.set_initial_value(W, w);
  const std::vector<LayerProduct> ps = mlp_layer(b, false);
  ops::LayerPlan plan;
  plan.pk = pk, plan.pn = pn;
  for (const LayerProduct& p : ps)
    plan.plans.push_back(ops::estimate_layer_product(k, n, pk, pn, p, pb, true, ops::CostModel{}));
  Program prog = Sequence();
  prog.add(HostWrite(g.add_stream("x", DType::kF32, {b, k}), X));
  prog.add(HostWrite(g.add_stream("dy", DType::kF32, {b, n}), DY));
  const Tensor Y = ops::matmul(g, prog, X, W, plan.plans[0], "Y", ops::layer_options(plan, ps, 0));
  const Tensor DX = ops::matmul_nt(g, prog, DY, W, plan.plans[1], "DX", ops::layer_options(plan, ps, 1));
  ops::MatMulOptions o = ops::layer_options(plan, ps, 2);
  o.c = ops::variable_like(g, DType::kF32, W, "DW");
  const Tensor DW = ops::matmul_tn(g, prog, X, DY, plan.plans[2], "DW", o);
  const Tensor Y2 = ops::matmul(g, prog, X, W, ops::estimate_matmul(b, k, n, 1, pk2, pn2, ops::CostModel{}), "Y2");
  EXPECT_EQ(DW.var, o.c.var);
  EXPECT_EQ(g.intervals(DW), g.intervals(W));
  // W is stored block by block when its columns are split, dW as W; each block contiguous
  // on tile ik * pn + in.
  const graph::Blocking& bl = g.variables()[W.var].blocking;
  EXPECT_EQ(bl.blocked(), pn > 1);
  EXPECT_EQ(g.variables()[DW.var].blocking, bl);
  for (uint32_t ik = 0; ik < pk; ++ik)
    for (uint32_t in = 0; in < pn; ++in) {
      const uint32_t r0 = split_begin(k, pk, ik), r1 = split_begin(k, pk, ik + 1);
      const uint32_t c0 = split_begin(n, pn, in), c1 = split_begin(n, pn, in + 1);
      const uint32_t at = bl.blocked() ? bl.block_begin(ik, in) : r0 * n + c0;
      if (bl.blocked() || pn == 1) {
        const std::vector<Interval> iv = g.intervals(W.slice(at, at + (r1 - r0) * (c1 - c0)));
        ASSERT_EQ(iv.size(), 1u);
        EXPECT_EQ(iv[0].tile, ik * pn + in);
      }
    }
  prog.add(HostRead(g.add_stream("y", DType::kF32, {b, n}), Y));
  prog.add(HostRead(g.add_stream("dx", DType::kF32, {b, k}), DX));
  prog.add(HostRead(g.add_stream("y2", DType::kF32, {b, n}), Y2));
  // dW (a temporary, stored like W) streamed from a row-major copy (relayout copies by
  // logical element).
  Tensor rows = g.add_variable(DType::kF32, {k, n}, "DW.rows.layout");
  g.map_linearly(rows, n);
  prog.add(HostRead(g.add_stream("dw", DType::kF32, {k, n}), ops::relayout(g, prog, DW, rows, "DW.rows")));
  g.add_program("main", prog);
  const passes::CompileOptions co =
      passes::firmware_options(std::string(TESSERA_TILE_BIN_DIR) + "/runtime/tessera-firmware.elf");
  const exe::Executable e = passes::compile(g, co);

  emu::MachineOptions mo;
  mo.target = arch::find_target(e.target);
  mo.mode = emu::Mode::kNative;
  emu::Machine m(mo);
  m.load_firmware(exe::parse_elf(e.firmware, "firmware"));
  runtime::Engine engine(m, e);
  engine.load();
  std::vector<float> y(size_t{b} * n), dx(size_t{b} * k), y2(size_t{b} * n), dw(size_t{k} * n);
  engine.connect_stream("x", std::span(x));
  engine.connect_stream("dy", std::span(dy));
  engine.connect_stream("y", std::span(y));
  engine.connect_stream("dx", std::span(dx));
  engine.connect_stream("y2", std::span(y2));
  engine.connect_stream("dw", std::span(dw));
  engine.run("main", std::chrono::minutes(1));
  EXPECT_EQ(bits(engine.read_tensor_as<float>("W")), bits(w));
  EXPECT_EQ(bits(y2), bits(reference(b, k, n, pk2, [&](uint32_t i, uint32_t p) { return x[size_t{i} * k + p]; },
                                     [&](uint32_t p, uint32_t j) { return w[size_t{p} * n + j]; })));
  EXPECT_EQ(bits(y), bits(reference(b, k, n, pk, [&](uint32_t i, uint32_t p) { return x[size_t{i} * k + p]; },
                                    [&](uint32_t p, uint32_t j) { return w[size_t{p} * n + j]; })));
  EXPECT_EQ(bits(dx), bits(reference(b, n, k, pn, [&](uint32_t i, uint32_t p) { return dy[size_t{i} * n + p]; },
                                     [&](uint32_t p, uint32_t j) { return w[size_t{j} * n + p]; })));
  EXPECT_EQ(bits(dw), bits(reference(k, b, n, pb, [&](uint32_t i, uint32_t p) { return x[size_t{p} * k + i]; },
                                     [&](uint32_t p, uint32_t j) { return dy[size_t{p} * n + j]; })));
}

TEST(LayerPlanner, ProductsOnOneWeightLayoutMatchPlainCpp) {
  run_layer(12, 20, 9, 1, 1, 1);  // everything on tile 0, the gradient written by its vertex
  run_layer(12, 20, 9, 4, 1, 1);  // whole rows: W read in place, no gradient reduction
  run_layer(12, 20, 9, 2, 3, 1, 3, 2);  // W stored by blocks, read in place; the gradient's
                                        // blocks written by their vertices
  run_layer(12, 20, 9, 2, 2, 3, 1, 3);  // a batch split: W's blocks copied whole, gradient reduced
  run_layer(7, 5, 16, 5, 2, 1, 2, 5);
  run_layer(7, 5, 16, 1, 4, 2, 5, 1);
}

}  // namespace
}  // namespace tessera::testing
