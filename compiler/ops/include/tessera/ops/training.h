// The training ops lowered onto tiles (training.cpp): the gradients of relu, of a bias and
// of softmax cross-entropy, element-wise add, and the SGD-with-momentum update with its
// linear learning-rate schedule; and the layout helpers they share. The transposed matmuls
// of the weight and input gradients are in matmul.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/graph/graph.h"

namespace tessera::ops {

// A new variable of `dtype` with `layout`'s shape and element-for-element tile mapping.
graph::Tensor variable_like(graph::Graph& g, exe::DType dtype, const graph::Tensor& layout, const std::string& name);

// `src`'s elements laid out as `layout` (same element count): `src` itself if its runs on
// tiles are `layout`'s, else a new variable mapped like `layout` and a Copy into it.
graph::Tensor relayout(graph::Graph& g, graph::Program& prog, const graph::Tensor& src, const graph::Tensor& layout,
                       const std::string& name);

// `x` (m x n) with every row whole on one tile: `x` itself if so, else a copy mapped in
// whole rows (map_linearly with grain n).
graph::Tensor whole_rows(graph::Graph& g, graph::Program& prog, const graph::Tensor& x, const std::string& name);

// dx = dy where y > 0, else +0 (relu_grad vertices, one per run of dx); dy and dx laid out
// alike (dx may be dy: in place), y brought to that layout if it lies elsewhere.
void relu_grad(graph::Graph& g, graph::Program& prog, const graph::Tensor& dx, const graph::Tensor& dy,
               const graph::Tensor& y, const std::string& name);

// dst = a + b element-wise (add vertices, one per run of dst); dst and a laid out alike (dst
// may be a), b brought to that layout if it lies elsewhere.
void add(graph::Graph& g, graph::Program& prog, const graph::Tensor& dst, const graph::Tensor& a,
         const graph::Tensor& b, const std::string& name);

// The column sums of dy (m x n) as f32 [n]: each tile sums its whole rows in row order
// (reduce_sum over the rows), then the tiles' partials are summed in tile order where the
// result lies. The result is `dst` if given (mapped, e.g. like the bias: each of its runs
// sums its columns of the partials on its tile), else a new tensor on the first tile
// holding rows. Rows split across tiles are first gathered whole (whole_rows).
graph::Tensor bias_grad(graph::Graph& g, graph::Program& prog, const graph::Tensor& dy, const std::string& name,
                        const graph::Tensor& dst = {});

// Softmax cross-entropy of each row of logits (m x n, rows whole per tile) against u32
// labels [m]: one softmax_xent vertex per tile's block of rows writes both the loss (new
// f32 [m], mapped with its rows) and the gradient (new f32 [m,n], mapped like logits),
// (softmax - onehot) * scale. Labels are copied to the rows' tiles where they lie elsewhere.
struct SoftmaxXent {
  graph::Tensor loss, dlogits;
};
SoftmaxXent softmax_xent(graph::Graph& g, graph::Program& prog, const graph::Tensor& logits,
                         const graph::Tensor& labels, float scale, const std::string& name);

// One parameter's update: w (mapped; updated in place) by its gradient.
struct SgdParam {
  graph::Tensor w, grad;
  float momentum = 0, lr0 = 0;
  uint32_t total_steps = 0;
  std::string name;  // names the velocity ("<name>.velocity") and the gradient's copy
  // The velocity, laid out like w, when the caller keeps it (a weight streamed from device
  // memory loads and writes back its own); else one is made (persistent, zero).
  graph::Tensor velocity = {};
};

// The updates of one training step, all in one compute set: every tile holding part of a
// parameter first advances its learning rate (one lr_linear vertex per tile and schedule
// (lr0, total_steps), on a one-word lr and a one-word step count, persistent: initial 0),
// then runs sgd_momentum on each run of each parameter it holds, with that run's velocity
// (a persistent variable mapped like the parameter, initially zero) and gradient (copied
// to the parameter's layout where it lies elsewhere). Returns the persistent state it made:
// the velocities it made, in the order of `params` ("<name>.velocity", f32, mapped like the
// parameter), and the lr and step words ("<name>.lr@<tile>.<k>" f32[1] and
// "<name>.step@<tile>.<k>" u32[1], on that tile), one pair per tile and schedule, in the
// order made. Zeroing all of them restarts the optimizer (the init program does).
struct SgdState {
  std::vector<graph::Tensor> velocities, lrs, steps;
};
SgdState sgd_momentum(graph::Graph& g, graph::Program& prog, const std::vector<SgdParam>& params,
                      const std::string& name);

}  // namespace tessera::ops
