// Pass: plan every exchange and host stream symbolically, in tensor regions.
//
// Transformations:
//   - each Copy src -> dst of an exchange is split along the interval boundaries of both
//     tensors into transfers, each contiguous on one source tile and one destination tile;
//     a transfer goes into its source tile's send list and adds its words to the
//     destination tile's receive count;
//   - each host sync's tensor is split along its intervals into stream runs (stream offset,
//     tile, region); a host-to-device run adds its words to that tile's receive count.
// Checks (a GraphError naming the tensors): no element is written twice in one exchange,
// and no exchange writes an element that one of its transfers reads.
#include <algorithm>
#include <tuple>

#include "parallel.h"
#include "tessera/passes/passes.h"

namespace tessera::passes {
namespace {


// Splits src -> dst at every interval boundary of either side, each piece into its source
// tile's send list.
void split(const graph::Graph& g, const Region& src, const Region& dst, ExchangePlan::Exchange& x) {
  const auto si = g.intervals(src), di = g.intervals(dst);
  size_t a = 0, b = 0;
  for (uint32_t off = 0; off < src.size();) {
    // Offsets (within the copy) where the current source and destination intervals end.
    const uint32_t s_end = si[a].end - src.begin, d_end = di[b].end - dst.begin;
    const uint32_t end = std::min(s_end, d_end);
    x.recv_words[di[b].tile] += end - off;
    x.sends[si[a].tile].push_back({si[a].tile, di[b].tile, src.slice(off, end), dst.slice(off, end)});
    off = end;
    if (end == s_end) ++a;
    if (end == d_end) ++b;
  }
}

// Element ranges of one variable written or read in an exchange, for the hazard checks.
struct Span {
  uint32_t var, begin, end;
  const Region* who;
};

void check_hazards(const graph::Graph& g, const Lowered::Exchange& x, uint32_t index) {
  std::vector<Span> writes, reads;
  for (const auto& [src, dst] : x.copies) {
    writes.push_back({dst.var, dst.begin, dst.end, &dst});
    reads.push_back({src.var, src.begin, src.end, &src});
  }
  auto by_start = [](const Span& p, const Span& q) { return std::tie(p.var, p.begin) < std::tie(q.var, q.begin); };
  std::sort(writes.begin(), writes.end(), by_start);
  const std::string where = "exchange " + std::to_string(index) + ": ";
  for (size_t i = 1; i < writes.size(); ++i)
    if (writes[i].var == writes[i - 1].var && writes[i].begin < writes[i - 1].end)
      throw graph::GraphError(where + g.describe(*writes[i - 1].who) + " and " + g.describe(*writes[i].who) +
                              " are both written (an address written twice)");
  // Writes against reads by a sweep over both sorted lists (each sorted by variable, start).
  std::sort(reads.begin(), reads.end(), by_start);
  size_t first = 0;
  for (const Span& w : writes) {
    while (first < reads.size() && std::tie(reads[first].var, reads[first].end) <= std::tie(w.var, w.begin)) ++first;
    for (size_t j = first; j < reads.size() && std::tie(reads[j].var, reads[j].begin) < std::tie(w.var, w.end); ++j)
      if (reads[j].var == w.var && reads[j].end > w.begin)
        throw graph::GraphError(where + g.describe(*w.who) + " is written while " + g.describe(*reads[j].who) +
                                " is read");
  }
}

}  // namespace

ExchangePlan plan_exchanges(const graph::Graph& g, const Lowered& l) {
  const uint32_t tiles = g.target().tiles;
  ExchangePlan plan;
  plan.exchanges.resize(l.exchanges.size());
  parallel_for(static_cast<uint32_t>(l.exchanges.size()), [&](uint32_t i) {  // each exchange on its own
    check_hazards(g, l.exchanges[i], i);
    ExchangePlan::Exchange& x = plan.exchanges[i];
    x.sends.resize(tiles);
    x.recv_words.assign(tiles, 0);
    for (const auto& [src, dst] : l.exchanges[i].copies) split(g, src, dst, x);
    for (std::vector<ExchangePlan::Transfer>& list : x.sends) list.shrink_to_fit();  // all exchanges' lists live on
  });
  for (const Lowered::HostSync& h : l.host_syncs) {
    ExchangePlan::Stream& s = plan.streams.emplace_back();
    s.recv_words.assign(tiles, 0);
    for (const graph::Interval& iv : g.intervals(h.tensor)) {
      const uint32_t offset = iv.begin - h.tensor.begin;
      s.runs.push_back({iv.tile, h.tensor.slice(offset, iv.end - h.tensor.begin), offset});
      if (h.direction == exe::StreamDirection::kHostToDevice) s.recv_words[iv.tile] += iv.end - iv.begin;
    }
  }
  return plan;
}

}  // namespace tessera::passes
