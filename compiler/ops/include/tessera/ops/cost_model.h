// The planner's cost model: cycles of each codelet as a + b * work, and of an exchange as
// a start cost plus words at the busiest port, per target. The figures are data
// (cost_model.cpp), to be calibrated from ISS runs.
#pragma once

#include <array>
#include <cstdint>

#include "tessera/arch/targets.h"

namespace tessera::ops {

struct LinearCost {
  double a = 0, b = 0;  // cycles = a + b * work
  double operator()(double work) const { return a + b * work; }
};

// A codelet whose cycles depend on four counts of its vertex (a convolution's
// multiply-adds, inner loops, channel loops and outputs): cycles = a + b . w, w from the
// *_work functions below.
using Work4 = std::array<double, 4>;
struct MultiCost {
  double a = 0;
  std::array<double, 4> b{};
  double operator()(const Work4& w) const { return a + b[0] * w[0] + b[1] * w[1] + b[2] * w[2] + b[3] * w[3]; }
};

// One convolution vertex: x [cin][h][wd], w [cout][cin][kh][kw], y [cout][oh][ow], strides
// sh, sw, pads ph, pw (i32, as the codelets take them), dilations dh, dw.
struct ConvWorkShape {
  uint32_t cin, h, wd, cout, oh, ow, kh, kw, sh, sw;
  int32_t ph, pw;
  uint32_t dh, dw;
};
// The counts each codelet's loops run (taps in the padding skipped, as the codelets skip
// them): with vy = the (oy, ky) pairs inside the input, vx likewise,
//   conv2d             {macs of the columns done one at a time, cout*cin*vy*kw steps of the
//                      four-column blocks (4 macs each), cout*cin*vy*walks row walks,
//                      cout*oh*walks*(cin + 4) channel walks}, walks = a row's columns
//                      done alone plus its blocks (a walk's own set-up fits as 4 channels')
//   conv2d_grad_input  {the same macs, cin*cout*vy*nx rows, cin*cout*ny*nx channel loops,
//                      cin*h*wd*(kw + 8)}  (ny, nx: the input rows, columns some tap reaches;
//                      each element scans its kw taps after two divisions)
//   conv2d_grad_weight {the same macs, cout*cin*kw*vy rows, cout*cin*kh*kw, cout*cin*kh}
Work4 conv2d_work(const ConvWorkShape& s);
Work4 conv2d_grad_input_work(const ConvWorkShape& s);
Work4 conv2d_grad_weight_work(const ConvWorkShape& s);
// A pooling vertex (maxpool2d, avgpool2d; pads top and left): {taps inside c*vy*vx, rows
// c*vy*ow, outputs c*oh*ow, c*oh}.
Work4 pool_work(uint32_t c, uint32_t h, uint32_t wd, uint32_t oh, uint32_t ow, uint32_t kh, uint32_t kw, uint32_t sh,
                uint32_t sw, int32_t pt, int32_t pl);

struct CostModel {
  LinearCost matmul;      // work = m * k * n of one vertex
  LinearCost reduce_sum;  // work = n * k
  LinearCost elementwise; // work = elements (add_bias, relu, scale)
  // The training codelets.
  LinearCost matmul_tn;     // work = m * k * n of one vertex
  LinearCost matmul_nt;     // work = m * k * n of one vertex
  LinearCost relu_grad;     // work = elements
  LinearCost softmax_xent;  // work = rows * cols
  LinearCost sgd_momentum;  // work = elements
  // The CNN codelets.
  MultiCost conv2d;              // of conv2d_work(shape)
  MultiCost conv2d_grad_input;   // of conv2d_grad_input_work(shape)
  MultiCost conv2d_grad_weight;  // of conv2d_grad_weight_work(shape)
  MultiCost maxpool2d;           // of pool_work(...)
  MultiCost avgpool2d;           // of pool_work(...)
  std::array<LinearCost, 6> ewise2;  // by op; work = elements (any broadcast)
  std::array<LinearCost, 5> ewise1;  // by op; work = elements
  LinearCost exchange;    // work = words at the busiest port of one exchange
  double superstep = 0;   // fixed cost of one barrier

  static CostModel for_target(const arch::Target& t);
};

}  // namespace tessera::ops
