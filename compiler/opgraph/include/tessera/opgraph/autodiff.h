// Reverse-mode automatic differentiation of the op graph: one gradient rule per op kind,
// applied from the loss back to the parameters. A new op gets trainable by adding its
// rule to the table in autodiff.cpp; no model has a hand-written backward pass.
//
//   Value loss = og.softmax_xent(logits, labels);       // f32 [m], one loss per row
//   std::vector<Value> g = gradients(og, loss, {w1, b1, w2, b2});
//   // g[i] = d(mean over rows of loss) / d(params[i]), same shape as params[i]
#pragma once

#include <vector>

#include "tessera/opgraph/opgraph.h"

namespace tessera::opgraph {

// Appends to `og` the ops that compute the gradient of the mean of `loss` (a softmax_xent
// result) with respect to each of `params` (parameters of og), and returns them in the same
// order. Only values that depend on a parameter get gradients; a value used twice has its
// gradients added. Throws OpGraphError naming the op if an op on the way has no rule, if
// `loss` is not a softmax_xent, or if a parameter does not reach the loss.
std::vector<Value> gradients(OpGraph& og, Value loss, const std::vector<Value>& params);

}  // namespace tessera::opgraph
