// The ops library's shared matmul lowering (matmul.cpp): C = op(A) op(B) with op the
// identity or the transpose, planned and reduced as matmul.h describes.
#pragma once

#include <string>

#include "tessera/graph/graph.h"
#include "tessera/ops/matmul.h"

namespace tessera::ops::detail {

// ta: A is stored k x m (matmul_tn codelet); tb: B is stored n x k (matmul_nt). At most one
// of them. Shapes are checked by the callers. B is placed by the op only when neither is set.
graph::Tensor matmul_general(graph::Graph& g, graph::Program& prog, const graph::Tensor& a, const graph::Tensor& b,
                             bool ta, bool tb, const MatMulPlan& plan, const std::string& name,
                             const MatMulOptions& o);

}  // namespace tessera::ops::detail
