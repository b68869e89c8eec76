// What max_pool2d.cpp and avg_pool2d.cpp share: the op's construction.
#pragma once

#include "tessera/opgraph/opgraph.h"

namespace tessera::opgraph::detail {

// The result shape of a pool of x under `a`; throws naming `what`.
std::vector<uint32_t> pool_shape(const ValueInfo& ix, const Pool2dAttrs& a, const std::string& what);

}  // namespace tessera::opgraph::detail
