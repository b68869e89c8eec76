#include "tessera/ops/cost_model.h"

namespace tessera::ops {

// First figures from the latency table (arch/latency.toml): a matmul inner step is a load
// of each operand and a fused multiply-add whose result feeds the next (4 cycles); reduce
// and element-wise steps are a load, an op and a store. To be replaced by calibration
// against ISS runs (tests compare estimate and ISS).
CostModel CostModel::for_target(const arch::Target& t) {
  CostModel c;
  c.matmul = {60, 4.2};
  c.reduce_sum = {40, 4.0};
  c.elementwise = {40, 5.0};
  c.exchange = {4.0 + 2.0 * t.link_latency, 1.0};
  c.superstep = 12;
  return c;
}

}  // namespace tessera::ops
