// Pass: turn symbolic references into tile addresses.
//
// Transformations:
//   - each vertex -> arch::Vertex{codelet index, state address} in its tile's compute set,
//     and its state record: pointer fields -> the address of their region, u32/f32 fields
//     -> their word;
//   - each exchange transfer -> arch::SendEntry{src addr, bytes, dst tile, dst addr}, with
//     its count and strides in bytes when it repeats;
//   - each condition -> per tile, the address of that tile's broadcast copy;
//   - each user variable -> exe::Tensor with per-interval addresses and live ranges (a
//     blocked variable's runs in logical order: graph/blocking.h); each host sync ->
//     exe::Stream with per-run addresses (element offsets into the stream).
#include <algorithm>

#include "parallel.h"
#include "tessera/passes/passes.h"

namespace tessera::passes {

Resolved resolve_addresses(const graph::Graph& g, const Lowered& l, const ExchangePlan& x, const MemoryPlan& m) {
  const uint32_t tiles = g.target().tiles;
  Resolved r;
  r.tiles.resize(tiles);
  for (Resolved::Tile& t : r.tiles) {
    t.compute_sets.resize(g.compute_sets().size());
    t.sends.resize(x.exchanges.size());
    t.recv_words.assign(x.exchanges.size(), 0);
    t.stream_recv_words.assign(x.streams.size(), 0);
  }
  // Per tile, its vertices in compute-set order (the order they run on their tile).
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> on_tile(tiles);  // (compute set, vertex)
  for (uint32_t cs = 0; cs < g.compute_sets().size(); ++cs)
    for (uint32_t v : g.compute_sets()[cs].vertices) on_tile[g.vertices()[v].tile].emplace_back(cs, v);
  parallel_for(tiles, [&](uint32_t tile) {  // each tile on its own
    Resolved::Tile& t = r.tiles[tile];
    for (const auto& [cs, v] : on_tile[tile]) {
      const graph::VertexData& d = g.vertices()[v];
      const graph::CodeletInfo& c = graph::codelets()[d.codelet];
      t.compute_sets[cs].push_back({c.index, m.vertex_state[v]});
      std::vector<uint32_t> words;
      for (size_t f = 0; f < c.fields.size(); ++f)
        words.push_back(c.fields[f].is_pointer() ? m.addr_of(d.fields[f].region) : d.fields[f].word);
      t.states.emplace_back(m.vertex_state[v], std::move(words));
    }
    // Send lists and receive counts.
    for (uint32_t e = 0; e < x.exchanges.size(); ++e) {
      t.recv_words[e] = x.exchanges[e].recv_words[tile];
      for (const ExchangePlan::Transfer& tr : x.exchanges[e].sends[tile])
        t.sends[e].push_back({{m.addr_of(tr.src), tr.src.size() * 4, tr.dst_tile, m.addr_of(tr.dst)}, tr.count,
                              tr.src_stride, tr.dst_stride});
    }
  });
  // Conditions: each tile reads its own broadcast copy.
  for (const Lowered::Condition& c : l.conditions)
    for (uint32_t t = 0; t < tiles; ++t) r.tiles[t].conditions.push_back(m.addr_of(c.broadcast.slice(t, t + 1)));
  // The user's tensors.
  for (uint32_t v = 0; v < g.variables().size(); ++v) {
    const graph::Variable& var = g.variables()[v];
    if (var.hidden) continue;
    exe::Tensor& t = r.tensors.emplace_back();
    t.name = var.name;
    t.dtype = var.dtype;
    t.shape = var.shape;
    t.persistent = !var.initial.empty();
    if (!var.blocking.blocked()) {
      for (const MemoryPlan::Placed& p : m.tensors[v]) {
        t.intervals.push_back({p.tile, p.addr, p.begin, p.end - p.begin});
        t.live.push_back(p.live);
      }
      continue;
    }
    // A blocked variable (blocking.h): its runs in the host's (logical) order, merged where
    // they continue one another on a tile with one live range.
    std::vector<std::pair<exe::Interval, exe::LiveRange>> runs;
    for (const MemoryPlan::Placed& p : m.tensors[v])
      for (const graph::Blocking::Run& r : var.blocking.stored_runs(p.begin, p.end))
        runs.push_back({{p.tile, p.addr + (r.stored - p.begin) * 4, r.logical, r.count}, p.live});
    std::sort(runs.begin(), runs.end(), [](const auto& a, const auto& b) { return a.first.offset < b.first.offset; });
    for (const auto& [i, live] : runs) {
      exe::Interval* last = t.intervals.empty() ? nullptr : &t.intervals.back();
      if (last && last->tile == i.tile && last->offset + last->count == i.offset && last->addr + last->count * 4 == i.addr &&
          t.live.back() == live) {
        last->count += i.count;
      } else {
        t.intervals.push_back(i);
        t.live.push_back(live);
      }
    }
  }
  // Streams: one per host sync.
  for (uint32_t s = 0; s < l.host_syncs.size(); ++s) {
    const Lowered::HostSync& h = l.host_syncs[s];
    const graph::StreamData& sd = g.streams()[h.stream];
    exe::Stream& out = r.streams.emplace_back();
    out.name = h.name;
    out.index = s;
    out.direction = h.direction;
    out.source_offset = g.device_memory_offset(sd);
    out.dtype = sd.dtype;
    out.shape = sd.shape;
    for (const ExchangePlan::StreamRun& run : x.streams[s].runs)
      out.intervals.push_back({run.tile, m.addr_of(run.region), run.offset, run.region.size()});
    for (uint32_t t = 0; t < tiles; ++t) r.tiles[t].stream_recv_words[s] = x.streams[s].recv_words[t];
  }
  return r;
}

}  // namespace tessera::passes
