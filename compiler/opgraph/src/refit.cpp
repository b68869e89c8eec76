// Smaller memory proportions for single ops (refit.h).
#include "tessera/opgraph/refit.h"

namespace tessera::opgraph {

std::map<size_t, std::string> ops_to_shrink(const std::vector<std::vector<std::pair<uint32_t, uint32_t>>>& peaks,
                                            const std::vector<LoweredOp>& lowered, const Proportions& p) {
  // The op that made a variable: the last one lowered that had made no more variables before it.
  const auto owner = [&](uint32_t var) -> const LoweredOp* {
    const auto it = std::upper_bound(lowered.begin(), lowered.end(), var,
                                     [](uint32_t v, const LoweredOp& o) { return v < o.first_variable; });
    return it == lowered.begin() ? nullptr : &*std::prev(it);
  };
  std::map<size_t, std::string> out;
  for (const auto& temporaries : peaks) {
    std::map<size_t, std::pair<uint64_t, const LoweredOp*>> bytes;  // per op
    for (const auto& [var, n] : temporaries)
      if (const LoweredOp* o = owner(var)) bytes[o->op].first += n, bytes[o->op].second = o;
    const LoweredOp* most = nullptr;
    uint64_t most_bytes = 0;
    for (const auto& [op, b] : bytes)
      if (p.of(op) / 2 >= kSmallestProportion && b.first > most_bytes) most = b.second, most_bytes = b.first;
    if (most) out.emplace(most->op, most->name);
  }
  return out;
}

}  // namespace tessera::opgraph
