// Lowering again where a graph did not fit: smaller memory proportions for the ops whose
// temporaries fill the tiles that do not fit (the memory plan's peaks), the others keeping
// theirs (tessera compile; docs/compiler.md, "The memory proportion").
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tessera/opgraph/lower.h"

namespace tessera::opgraph {

// Memory proportions for one lowering (LowerOptions::memory_proportion and op_proportions):
// every op's, and the ops given less.
struct Proportions {
  double all = 0.5;
  std::map<size_t, double> ops;
  double of(size_t op) const {
    const auto it = ops.find(op);
    return it == ops.end() ? all : std::min(all, it->second);
  }
};
inline constexpr double kSmallestProportion = 1.0 / 16;

// Per tile that does not fit (passes::CompileError::peaks: the temporaries, as (variable,
// bytes), live when its tensors peak), the op whose variables (LowerOptions::lowered_ops)
// take the most of them among those whose share can still halve (to kSmallestProportion at
// least): those ops, by index, with their names.
std::map<size_t, std::string> ops_to_shrink(const std::vector<std::vector<std::pair<uint32_t, uint32_t>>>& peaks,
                                            const std::vector<LoweredOp>& lowered, const Proportions& p);

}  // namespace tessera::opgraph
