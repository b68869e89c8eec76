// Smaller memory proportions for single ops (refit.h).
#include "tessera/opgraph/refit.h"

namespace tessera::opgraph {
namespace {

// The op that made a variable: the last one lowered that had made no more variables before it.
const LoweredOp* owner(const std::vector<LoweredOp>& lowered, uint32_t var) {
  const auto it = std::upper_bound(lowered.begin(), lowered.end(), var,
                                   [](uint32_t v, const LoweredOp& o) { return v < o.first_variable; });
  return it == lowered.begin() ? nullptr : &*std::prev(it);
}

}  // namespace

std::map<size_t, std::string> ops_to_shrink(const std::vector<std::vector<std::pair<uint32_t, uint32_t>>>& peaks,
                                            const std::vector<LoweredOp>& lowered, const Proportions& p,
                                            const std::set<size_t>& unchanged) {
  std::map<size_t, std::string> out;
  for (const auto& temporaries : peaks) {
    std::map<size_t, std::pair<uint64_t, const LoweredOp*>> bytes;  // per op
    for (const auto& [var, n] : temporaries)
      if (const LoweredOp* o = owner(lowered, var)) bytes[o->op].first += n, bytes[o->op].second = o;
    std::vector<std::pair<uint64_t, const LoweredOp*>> ranked;  // most bytes first, then the lower index
    for (const auto& [op, b] : bytes)
      if (p.of(op) / 2 >= kSmallestProportion) ranked.push_back(b);
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    for (const auto& [n, o] : ranked) {
      out.emplace(o->op, o->name);
      if (!unchanged.count(o->op)) break;
    }
  }
  return out;
}

std::map<size_t, std::string> OpShrinker::next(const std::vector<std::vector<std::pair<uint32_t, uint32_t>>>& peaks,
                                               const std::vector<LoweredOp>& lowered, Proportions& p) {
  std::map<size_t, size_t> vertices;  // per op
  for (const LoweredOp& o : lowered) vertices[o.op] += o.vertices;
  std::set<size_t> unchanged;
  for (const auto& [op, was] : last_)
    if (vertices[op] == was) unchanged.insert(op);
  last_.clear();
  const std::map<size_t, std::string> shrink = ops_to_shrink(peaks, lowered, p, unchanged);
  for (const auto& [op, name] : shrink) {
    last_[op] = vertices[op];
    p.ops[op] = p.of(op) / 2;
  }
  return shrink;
}

}  // namespace tessera::opgraph
