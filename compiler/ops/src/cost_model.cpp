#include "tessera/ops/cost_model.h"

#include "tessera/arch/latency.h"

namespace tessera::ops {

namespace {

// ---- Calibrated data: produced by bench/calibrate_costs (build-*/bench/calibrate_costs),
// which runs one vertex of each codelet alone in a superstep on the `small` target's ISS
// and fits a + b * work (least squares of the relative error). `a` holds the superstep's
// fixed compute cost (control program, vertex dispatch) as well as the codelet's. Re-run
// the tool and paste its last lines here when the firmware or the cycle model changes;
// tests/ops/cost_test.cpp checks the figures against the ISS.
//
//   matmul      work = m*k*n   worst fit error 4.8% (1x16x1 .. 25x49x32)
//   reduce_sum  work = n*k     worst fit error 11.6% (n 8..128, k 1..16)
//   elementwise work = elements (add_bias, relu) worst fit error 3.8% (16..2048)
//   matmul_tn   work = m*k*n   worst fit error 4.2% (the matmul shapes)
//   matmul_nt   work = m*k*n   worst fit error 4.7% (the matmul shapes)
//   relu_grad   work = elements worst fit error 1.2% (16..2048)
//   softmax_xent work = rows*cols worst fit error 6.6% (1x10 .. 32x10, 8x32)
//   sgd_momentum work = elements worst fit error 0.0% (16..2048)
constexpr LinearCost kMatmul = {215.5, 8.270};
constexpr LinearCost kReduceSum = {220.9, 7.727};
constexpr LinearCost kElementwise = {190.7, 12.496};
constexpr LinearCost kMatmulTn = {206.1, 9.262};
constexpr LinearCost kMatmulNt = {216.8, 8.256};
constexpr LinearCost kReluGrad = {190.9, 13.475};
constexpr LinearCost kSoftmaxXent = {326.8, 164.432};
constexpr LinearCost kSgdMomentum = {189.0, 20.000};
// ---- end of calibrated data

uint32_t ceil_log2(uint32_t x) {
  uint32_t levels = 0;
  while ((1u << levels) < x) ++levels;
  return levels;
}

}  // namespace

// Codelets from the calibrated table above; exchanges and barriers from the fabric's
// timing (arch/latency.toml [fabric]), as the emulator models them: an exchange costs
// xchg_start, plus the hops of its longest route (at most the mesh's diameter), plus a word
// cycle per word through the busiest tile's port, sent and received together (the planners
// estimate those words; send-list entries are left out); a barrier costs sync_base plus
// sync_per_level per level of the AND tree.
CostModel CostModel::for_target(const arch::Target& t) {
  CostModel c;
  c.matmul = kMatmul;
  c.reduce_sum = kReduceSum;
  c.elementwise = kElementwise;
  c.matmul_tn = kMatmulTn;
  c.matmul_nt = kMatmulNt;
  c.relu_grad = kReluGrad;
  c.softmax_xent = kSoftmaxXent;
  c.sgd_momentum = kSgdMomentum;
  const uint32_t diameter = (t.mesh_cols - 1) + (t.mesh_rows - 1);
  c.exchange = {double(arch::kFabricLatency.xchg_start) + double(diameter) * t.link_latency,
                double(arch::kFabricLatency.word_cycles)};
  c.superstep = arch::kFabricLatency.sync_base + arch::kFabricLatency.sync_per_level * double(ceil_log2(t.tiles));
  return c;
}

}  // namespace tessera::ops
