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
// Re-run after the registered redirect (docs/timing.md, path 3: taken branches and jumps 4
// cycles, loads at latency 3); the figures before are in the commit that changed them.
//   matmul      work = m*k*n   worst fit error 3.9% (1x16x1 .. 25x49x32)
//   reduce_sum  work = n*k     worst fit error 7.6% (n 8..128, k 1..16)
//   elementwise work = elements (add_bias, relu) worst fit error 1.8% (16..2048)
//   matmul_tn   work = m*k*n   worst fit error 3.4% (the matmul shapes)
//   matmul_nt   work = m*k*n   worst fit error 3.3% (the matmul shapes)
//   relu_grad   work = elements worst fit error 1.7% (16..2048)
//   softmax_xent work = rows*cols worst fit error 6.6% (1x10 .. 32x10, 8x32)
//   sgd_momentum work = elements worst fit error 0.0% (16..2048)
constexpr LinearCost kMatmul = {243.3, 10.269};
constexpr LinearCost kReduceSum = {248.3, 9.474};
constexpr LinearCost kElementwise = {216.5, 15.030};
constexpr LinearCost kMatmulTn = {231.9, 11.261};
constexpr LinearCost kMatmulNt = {242.3, 11.247};
constexpr LinearCost kReluGrad = {214.0, 16.465};
constexpr LinearCost kSoftmaxXent = {360.6, 179.985};
constexpr LinearCost kSgdMomentum = {211.0, 25.000};
// The CNN codelets: a + b . w over four counts (the *_work functions below), fitted on
// 14 convolution shapes (1x1 to 11x11 kernels, strides 1 to 4, pads 0 to 3, 1 to 64 input
// channels) and 9 pooling shapes; ewise2 and ewise1 per op (add, sub, mul, div, max, min;
// leaky_relu, sigmoid, tanh, clip, identity), work = elements:
//   conv2d worst fit error 4.9%, conv2d_grad_input 4.6%, conv2d_grad_weight 2.6%,
//   maxpool2d 1.6%, avgpool2d 1.4%; ewise2 add 8.0%, sub and mul 4.6%, div 3.0%, max 8.9%,
//   min 8.8%; ewise1 within 1%
// All re-fitted together after the registered redirect (latency table: load 3, taken
// penalty 4).
constexpr MultiCost kConv2d = {2147.7, {10.0801, 20.9840, 6.4007, 17.5989}};
constexpr MultiCost kConv2dGradInput = {4483.8, {-0.5669, 48.7927, 0.3768, 24.1181}};
constexpr MultiCost kConv2dGradWeight = {597.6, {6.2964, 14.4659, 83.7535, 77.3159}};
constexpr MultiCost kMaxpool2d = {42.4, {17.5951, 24.5259, 37.5424, 90.8419}};
constexpr MultiCost kAvgpool2d = {710.5, {8.3485, 5.4979, 52.4251, 63.9444}};
constexpr std::array<LinearCost, 6> kEwise2 = {{{265.6, 19.467}, {246.1, 23.029}, {246.1, 23.029}, {247.0, 35.040}, {265.3, 17.452}, {257.5, 17.449}}};
constexpr std::array<LinearCost, 5> kEwise1 = {{{223.0, 15.000}, {252.0, 90.000}, {253.5, 95.028}, {224.7, 19.564}, {227.0, 9.000}}};
// ---- end of calibrated data

uint32_t ceil_log2(uint32_t x) {
  uint32_t levels = 0;
  while ((1u << levels) < x) ++levels;
  return levels;
}

}  // namespace

namespace {

// The (o, k) pairs with 0 <= o*stride + k*dil - pad < n, o < on, k < kn.
double inside_pairs(uint32_t on, uint32_t kn, uint32_t stride, uint32_t dil, int32_t pad, uint32_t n) {
  double pairs = 0;
  for (uint32_t o = 0; o < on; ++o)
    for (uint32_t k = 0; k < kn; ++k) {
      const int64_t i = int64_t(o) * stride + int64_t(k) * dil - pad;
      pairs += i >= 0 && i < n;
    }
  return pairs;
}

}  // namespace

Work4 conv2d_work(const ConvWorkShape& s) {
  // The codelet's column walk: four columns at once where their windows lie wholly inside
  // the row (firmware/codelets/conv2d.cpp), else one column with the taps inside.
  double vx_single = 0, singles = 0, blocks = 0;
  for (uint32_t ox = 0; ox < s.ow;) {
    const int64_t first = int64_t(ox) * s.sw - s.pw;
    if (ox + 4 <= s.ow && first >= 0 && first + 3 * int64_t(s.sw) + int64_t(s.kw - 1) * s.dw < s.wd) {
      blocks += 1, ox += 4;
      continue;
    }
    vx_single += inside_pairs(1, s.kw, s.sw, s.dw, static_cast<int32_t>(-first), s.wd);
    singles += 1, ox += 1;
  }
  const double vy = inside_pairs(s.oh, s.kh, s.sh, s.dh, s.ph, s.h);
  const double rows = double(s.cout) * s.cin * vy;  // (co, ci, ky) triples per column walk
  const double walks = singles + blocks;  // per output row: the column walks
  return {rows * vx_single, rows * blocks * s.kw, rows * walks, double(s.cout) * s.oh * walks * (s.cin + 4)};
}

// Over the input positions i < n: the taps that reach them in total, and the positions
// some tap reaches.
static void reached(uint32_t on, uint32_t kn, uint32_t stride, uint32_t dil, int32_t pad, uint32_t n, double& taps,
             double& positions) {
  taps = positions = 0;
  for (uint32_t i = 0; i < n; ++i) {
    double t = 0;
    for (uint32_t k = 0; k < kn; ++k) {
      const int64_t r = int64_t(i) + pad - int64_t(k) * dil;
      t += r >= 0 && stride && r % stride == 0 && r / stride < on;
    }
    taps += t;
    positions += t > 0;
  }
}

Work4 conv2d_grad_input_work(const ConvWorkShape& s) {
  double vy, ny, vx, nx;
  reached(s.oh, s.kh, s.sh, s.dh, s.ph, s.h, vy, ny);
  reached(s.ow, s.kw, s.sw, s.dw, s.pw, s.wd, vx, nx);
  const double planes = double(s.cin) * s.cout, elements = double(s.cin) * s.h * s.wd;
  return {planes * vy * vx, planes * vy * nx, planes * ny * nx, elements * (s.kw + 8)};
}

Work4 conv2d_grad_weight_work(const ConvWorkShape& s) {
  const double vy = inside_pairs(s.oh, s.kh, s.sh, s.dh, s.ph, s.h), vx = inside_pairs(s.ow, s.kw, s.sw, s.dw, s.pw, s.wd);
  const double planes = double(s.cout) * s.cin;
  return {planes * vy * vx, planes * s.kw * vy, planes * s.kh * s.kw, planes * s.kh};
}

Work4 pool_work(uint32_t c, uint32_t h, uint32_t wd, uint32_t oh, uint32_t ow, uint32_t kh, uint32_t kw, uint32_t sh,
                uint32_t sw, int32_t pt, int32_t pl) {
  const double vy = inside_pairs(oh, kh, sh, 1, pt, h), vx = inside_pairs(ow, kw, sw, 1, pl, wd);
  return {double(c) * vy * vx, double(c) * vy * ow, double(c) * oh * ow, double(c) * oh};
}

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
  c.conv2d = kConv2d;
  c.conv2d_grad_input = kConv2dGradInput;
  c.conv2d_grad_weight = kConv2dGradWeight;
  c.maxpool2d = kMaxpool2d;
  c.avgpool2d = kAvgpool2d;
  c.ewise2 = kEwise2;
  c.ewise1 = kEwise1;
  const uint32_t diameter = (t.mesh_cols - 1) + (t.mesh_rows - 1);
  c.exchange = {double(arch::kFabricLatency.xchg_start) + double(diameter) * t.link_latency,
                double(arch::kFabricLatency.word_cycles)};
  c.superstep = arch::kFabricLatency.sync_base + arch::kFabricLatency.sync_per_level * double(ceil_log2(t.tiles));
  return c;
}

}  // namespace tessera::ops
