// Pass (run by plan_memory once it knows the blocks): fold strided sends.
//
// Transformation: consecutive transfers of a send list that send one run size to one tile,
// each next run a fixed number of bytes further on both sides, each side inside one block
// (packing.h: so its addresses are that far apart too), become one strided transfer: a
// SendEntry and its SendRepeat in the list. A conv's input window is such a run per
// channel. Strides are not negative; the source stride may be 0 (one run to several places).
#include <optional>
#include <tuple>
#include <utility>

#include "packing.h"
#include "tessera/passes/passes.h"

namespace tessera::passes {
namespace {

using Transfer = ExchangePlan::Transfer;

// If `t` is the next run of `h` (whose strides are set once it has two runs): the source
// and destination strides from h's first run to t.
std::optional<std::pair<uint32_t, uint32_t>> next_run(const Transfer& h, const Transfer& t, const Packing& p) {
  if (t.dst_tile != h.dst_tile || t.src.var != h.src.var || t.dst.var != h.dst.var || t.src.size() != h.src.size())
    return std::nullopt;
  const Packing::Place hs = p.place(h.src.var, h.src.begin), ts = p.place(t.src.var, t.src.begin);
  const Packing::Place hd = p.place(h.dst.var, h.dst.begin), td = p.place(t.dst.var, t.dst.begin);
  if (hs.block != ts.block || hd.block != td.block || ts.offset < hs.offset || td.offset <= hd.offset) return std::nullopt;
  const uint32_t ss = ts.offset - hs.offset, ds = td.offset - hd.offset;
  if (h.count > 1 && (ss != h.src_stride * h.count || ds != h.dst_stride * h.count)) return std::nullopt;
  return std::pair{ss, ds};
}

void fold(std::vector<Transfer>& list, const Packing& p) {
  size_t out = 0;
  for (size_t i = 0; i < list.size(); ++out) {
    Transfer h = std::move(list[i++]);
    for (; i < list.size(); ++i) {
      const auto strides = next_run(h, list[i], p);
      if (!strides) break;
      if (h.count == 1) std::tie(h.src_stride, h.dst_stride) = *strides;
      ++h.count;
    }
    list[out] = std::move(h);
  }
  list.resize(out);
}

}  // namespace

void fold_sends(ExchangePlan& x, const Packing& p) {
  for (ExchangePlan::Exchange& e : x.exchanges)
    for (std::vector<Transfer>& list : e.sends) fold(list, p);
}

}  // namespace tessera::passes
