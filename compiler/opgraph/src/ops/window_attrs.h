// The window ops' attributes as Op::attrs words, and their geometry for the ops library.
#pragma once

#include "tessera/opgraph/opgraph.h"
#include "tessera/ops/window.h"

namespace tessera::opgraph::detail {

std::vector<uint32_t> encode(const Conv2dAttrs& a);
std::vector<uint32_t> encode(const Pool2dAttrs& a);

// One image's geometry of a conv2d or pool op (x [N,C,H,W] -> result [N,M,OH,OW]).
ops::WindowGeometry geometry(const OpGraph& og, const Op& op);

// Checks x is f32[N,C,H,W]; returns its info. `what` names the op in errors.
const ValueInfo& image_operand(const OpGraph& og, Value x, const std::string& what);

}  // namespace tessera::opgraph::detail
