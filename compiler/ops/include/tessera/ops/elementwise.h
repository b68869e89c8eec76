// Element-wise and row-wise ops lowered where their input already lies (no data moves):
// bias add and relu on each of the input's intervals, argmax on whole rows.
#pragma once

#include <string>
#include <vector>

#include "tessera/graph/graph.h"

namespace tessera::ops {

// x (m x n, mapped) += bias (n values, constants): one add_bias vertex per interval of x,
// with the bias values each tile needs on it (the columns its intervals cover; constant
// data, not an exchange).
void add_bias(graph::Graph& g, graph::Program& prog, const graph::Tensor& x, const std::vector<float>& bias,
              const std::string& name);

// The same with the bias a tensor (a parameter that training updates): each tile running a
// vertex gets the columns it needs by a Copy each time (unless they already lie there).
void add_bias(graph::Graph& g, graph::Program& prog, const graph::Tensor& x, const graph::Tensor& bias,
              const std::string& name);

// x = max(x, +0) in place: one relu vertex per interval of x.
void relu(graph::Graph& g, graph::Program& prog, const graph::Tensor& x, const std::string& name);

// The index of each row's largest element (u32, shape [m]), computed where the row lies;
// every row of x (m x n) must lie whole on one tile.
graph::Tensor argmax(graph::Graph& g, graph::Program& prog, const graph::Tensor& x, const std::string& name);

}  // namespace tessera::ops
