// One reduce_sum vertex (firmware/codelets/matmul.cpp): out[i] = sum over r < k of
// in[r * n + i], with n = out's size and `in` the k partials of out, one after the other.
#pragma once

#include "tessera/graph/graph.h"

namespace tessera::ops::detail {

inline graph::Vertex add_reduce_sum(graph::Graph& g, graph::ComputeSet cs, uint32_t tile, const graph::Tensor& out,
                                    const graph::Tensor& in, uint32_t k) {
  const graph::Vertex v = g.add_vertex(cs, "reduce_sum", tile);
  g.connect(v, "out", out);
  g.connect(v, "in", in);
  g.set_field(v, "n", static_cast<uint32_t>(out.size()));
  g.set_field(v, "k", k);
  return v;
}

}  // namespace tessera::ops::detail
