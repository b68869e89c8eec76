// Element-wise ops with one or two operands (codelets ewise1 and ewise2), lowered where the
// first operand lies, in place.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/graph/graph.h"

namespace tessera::ops {

// x = OP(x) in place, one ewise1 vertex per interval of x (op codes: firmware ewise1.cpp).
void ewise1(graph::Graph& g, graph::Program& prog, const graph::Tensor& x, uint32_t op, float p0, float p1,
            const std::string& name);

// The second operand of ewise2: a tensor, or constant data (baked onto each tile that needs
// it), that broadcasts as a block: element i of the first operand meets element
// (i / inner) % count of it.
struct Operand2 {
  graph::Tensor tensor;       // valid(), or
  std::vector<float> values;  // constant data
  uint32_t count = 1, inner = 1;
};

// x = x OP b in place (op codes: firmware ewise2.cpp): one ewise2 vertex per piece of each
// interval of x, a piece reading one run of b. b's elements are read where they lie if
// the run is on the vertex's tile, else copied there first (all of b once per tile when it
// is small, else the run).
void ewise2(graph::Graph& g, graph::Program& prog, const graph::Tensor& x, const Operand2& b, uint32_t op,
            const std::string& name);

}  // namespace tessera::ops

namespace tessera::ops {

// dy = the gradient of ewise1's op at v, in place on dy (codelet ewise1_grad; v is x for
// leaky_relu and clip, the forward's result for sigmoid and tanh), v's runs copied to
// dy's tiles where they lie elsewhere.
void ewise1_grad(graph::Graph& g, graph::Program& prog, const graph::Tensor& dy, const graph::Tensor& v, uint32_t op,
                 float p0, float p1, const std::string& name);

}  // namespace tessera::ops
