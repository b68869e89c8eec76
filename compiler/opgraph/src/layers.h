// Which matmuls share a weight (layers.cpp), for lower.cpp to plan them together
// (ops/layer_plan.h).
#pragma once

#include <cstddef>
#include <vector>

#include "tessera/opgraph/opgraph.h"
#include "tessera/ops/layer_plan.h"

namespace tessera::opgraph::detail {

// Per value id: the parameter whose update takes this value as (part of) its gradient, if
// the value comes straight from a matmul_tn or bias_grad, or through adds; else invalid.
std::vector<Value> gradient_layouts(const OpGraph& og);

// A parameter matrix W whose first use is a forward matmul (W its right operand) and whose
// every use is such a matmul, a matmul_nt with W as its right operand or its update; with
// the matmul_tn ops making its gradient (gradient_layouts). Op indices in op order.
struct Layer {
  Value weight;
  std::vector<size_t> ops;
  std::vector<ops::LayerProduct> products;  // one per op; batch and whole_rows to be set
};
std::vector<Layer> find_layers(const OpGraph& og, const std::vector<Value>& gradient_layout);

}  // namespace tessera::opgraph::detail
