// C = A^T B and C = A B^T (matmul.h), lowered as matmul is, with the transposed codelets.
#include "matmul_detail.h"

namespace tessera::ops {

using graph::GraphError;
using graph::Tensor;

namespace {

void check(const Tensor& a, const Tensor& b, bool ok, const char* op, const std::string& name) {
  if (a.shape.size() != 2 || b.shape.size() != 2 || !ok)
    throw GraphError(std::string(op) + " '" + name + "': shapes " + graph::shape_string(a.shape) + " and " +
                     graph::shape_string(b.shape) + " do not multiply");
}

}  // namespace

Tensor matmul_tn(graph::Graph& g, graph::Program& prog, const Tensor& a, const Tensor& b, const MatMulPlan& plan,
                 const std::string& name, const MatMulOptions& o) {
  check(a, b, a.shape.size() == 2 && b.shape.size() == 2 && a.shape[0] == b.shape[0], "matmul_tn", name);
  return detail::matmul_general(g, prog, a, b, true, false, plan, name, o);
}

Tensor matmul_nt(graph::Graph& g, graph::Program& prog, const Tensor& a, const Tensor& b, const MatMulPlan& plan,
                 const std::string& name, const MatMulOptions& o) {
  check(a, b, a.shape.size() == 2 && b.shape.size() == 2 && a.shape[1] == b.shape[1], "matmul_nt", name);
  return detail::matmul_general(g, prog, a, b, false, true, plan, name, o);
}

}  // namespace tessera::ops
