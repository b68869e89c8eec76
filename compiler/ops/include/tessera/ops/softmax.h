// Row-wise softmax lowered where its input already lies (no data moves).
#pragma once

#include <string>

#include "tessera/graph/graph.h"

namespace tessera::ops {

// x (m x n, f32, mapped) = softmax of each row, in place: one softmax vertex per tile on
// that tile's whole rows. Every row of x must lie whole on one tile.
void softmax(graph::Graph& g, graph::Program& prog, const graph::Tensor& x, const std::string& name);

}  // namespace tessera::ops
