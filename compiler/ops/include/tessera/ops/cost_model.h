// The planner's cost model: cycles of each codelet as a + b * work, and of an exchange as
// a start cost plus words at the busiest port, per target. The figures are data
// (cost_model.cpp), to be calibrated from ISS runs.
#pragma once

#include <cstdint>

#include "tessera/arch/targets.h"

namespace tessera::ops {

struct LinearCost {
  double a = 0, b = 0;  // cycles = a + b * work
  double operator()(double work) const { return a + b * work; }
};

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
  LinearCost exchange;    // work = words at the busiest port of one exchange
  double superstep = 0;   // fixed cost of one barrier

  static CostModel for_target(const arch::Target& t);
};

}  // namespace tessera::ops
