// Lowering again where a graph did not fit: smaller memory proportions for the ops whose
// temporaries fill the tiles that do not fit (the memory plan's peaks), the others keeping
// theirs (tessera compile; docs/compiler.md, "The memory proportion").
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
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
  bool spread = false;  // LowerOptions::spread_window_ops
  double of(size_t op) const {
    const auto it = ops.find(op);
    return it == ops.end() ? all : std::min(all, it->second);
  }
};
inline constexpr double kSmallestProportion = 1.0 / 16;

// Per tile that does not fit (passes::CompileError::peaks: the temporaries, as (variable,
// bytes), live when its tensors peak), the op whose variables (LowerOptions::lowered_ops)
// take the most of them among those whose share can still halve (to kSmallestProportion at
// least); where that op is `unchanged` (its plan the same with the less it was given last),
// the op with the next most as well, and so on: those ops, by index, with their names.
std::map<size_t, std::string> ops_to_shrink(const std::vector<std::vector<std::pair<uint32_t, uint32_t>>>& peaks,
                                            const std::vector<LoweredOp>& lowered, const Proportions& p,
                                            const std::set<size_t>& unchanged = {});

// The rounds of smaller shares for single ops, one after each lowering that did not fit.
class OpShrinker {
 public:
  // After a lowering with `p` whose peaks (passes::CompileError::peaks) did not fit: the ops
  // ops_to_shrink names get half their share in `p`, those given less by the last call whose
  // plan did not change (as many vertices) counted as unchanged. A plan is a step function
  // of the share: an unchanged op may change with less again, and costs nothing meanwhile.
  // Returns the ops given less, with their names (empty: none can shrink).
  std::map<size_t, std::string> next(const std::vector<std::vector<std::pair<uint32_t, uint32_t>>>& peaks,
                                     const std::vector<LoweredOp>& lowered, Proportions& p);

 private:
  std::map<size_t, size_t> last_;  // the ops given less by the last call: their vertices then
};

}  // namespace tessera::opgraph
