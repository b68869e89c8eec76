// The window ops' attributes as Op::attrs words, and their geometry for the ops library.
#pragma once

#include "tessera/opgraph/opgraph.h"
#include "tessera/ops/window.h"

namespace tessera::opgraph::detail {

std::vector<uint32_t> encode(const Conv2dAttrs& a);
std::vector<uint32_t> encode(const Pool2dAttrs& a);

// One image's geometry of a conv2d or pool op (x [N,C,H,W] -> result [N,M,OH,OW]).
ops::WindowGeometry geometry(const OpGraph& og, const Op& op);

// The input rows [h0, h1) and columns [w0, w1) of average-pool output (oy, ox) and its
// divisor, by PyTorch's rule: the window clipped to the padded input gives the divisor with
// count_include_pad, the window clipped to the input gives the elements (and the divisor
// without it).
struct AvgWindow {
  int64_t h0, h1, w0, w1;
  float divisor;
};
AvgWindow avg_window(const ops::WindowGeometry& g, uint32_t oy, uint32_t ox, bool count_include_pad);

// Checks x is f32[N,C,H,W]; returns its info. `what` names the op in errors.
const ValueInfo& image_operand(const OpGraph& og, Value x, const std::string& what);

}  // namespace tessera::opgraph::detail
