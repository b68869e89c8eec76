// read_graph: vertices from the tile tables, edges from their state records' pointers, each
// resolved to the tensor interval holding the address and live (exe::LiveRange) where the
// vertex's compute set runs.
#include "tessera/profile/connections.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "codelets/codelets.h"

namespace tessera::profile {

namespace {

struct Codelet {
  const char* name;
  const char* signature;
};
constexpr Codelet kCodelets[] = {
#define TESSERA_VIZ_CODELET(name, sig) {#name, sig},
    TESSERA_CODELETS(TESSERA_VIZ_CODELET)
#undef TESSERA_VIZ_CODELET
};

std::vector<uint8_t> parse_fields(const std::string& sig) {
  std::vector<uint8_t> f;
  size_t i = 0;
  while (i <= sig.size() && !sig.empty()) {
    size_t j = sig.find(',', i);
    if (j == std::string::npos) j = sig.size();
    std::string field = sig.substr(i, j - i);
    while (!field.empty() && field.front() == ' ') field.erase(field.begin());
    const bool ptr = field.find('*') != std::string::npos;
    f.push_back(!ptr ? 0 : field.rfind("const ", 0) == 0 ? 1 : 2);
    i = j + 1;
  }
  return f;
}

// A tile's tensor intervals by start address, for address lookups, with their live ranges.
struct Span {
  uint32_t begin, end, tensor, interval;
  exe::LiveRange live;
};

// The interval `addr` points into on a tile: of those holding it, the one live at planner
// step `step`. Without live ranges (an executable built by hand, or a compute set no
// program runs), a guess: one named after the vertex's layer `lname`, else the one starting
// nearest below the address.
const Span* resolve(const std::vector<Span>& sp, const std::vector<uint32_t>& reach, uint32_t addr, uint32_t step,
                    const std::string& lname, const exe::Executable& e) {
  auto it = std::upper_bound(sp.begin(), sp.end(), addr, [](uint32_t a, const Span& s) { return a < s.begin; });
  const Span* guess = nullptr;
  bool named = false;
  for (size_t k = static_cast<size_t>(it - sp.begin()); k-- > 0 && reach[k] > addr;) {
    const Span& s = sp[k];
    if (addr >= s.end) continue;
    const bool timed = step != UINT32_MAX && !e.tensors[s.tensor].live.empty();
    if (timed && s.live.first <= step && step <= s.live.last) return &s;
    if (timed || named) continue;
    named = !lname.empty() && e.tensors[s.tensor].name.rfind(lname, 0) == 0;
    if (!guess || named) guess = &s;
  }
  return guess;
}

}  // namespace

const std::vector<std::vector<uint8_t>>& codelet_fields() {
  static const std::vector<std::vector<uint8_t>> fields = [] {
    std::vector<std::vector<uint8_t>> f;
    for (const Codelet& c : kCodelets) f.push_back(parse_fields(c.signature));
    return f;
  }();
  return fields;
}

std::string codelet_name(uint32_t codelet) {
  return codelet < std::size(kCodelets) ? kCodelets[codelet].name : "codelet " + std::to_string(codelet);
}

GraphData read_graph(const ExeImage& image) {
  const exe::Executable& e = image.exe();
  GraphData g;
  g.tiles = e.tiles;
  g.layers = e.layer_names;
  const uint32_t no_layer = static_cast<uint32_t>(g.layers.size());
  g.layers.push_back("(other)");  // tensors no vertex touches (stream buffers), vertices with no layer

  std::vector<std::vector<Span>> spans(e.tiles);
  for (uint32_t t = 0; t < e.tensors.size(); ++t) {
    const exe::Tensor& x = e.tensors[t];
    const uint32_t eb = exe::dtype_bytes(x.dtype);
    // A tensor stored block by block lists each block's rows as intervals (logical order);
    // intervals that continue one another in memory are one span (a block: one region).
    std::vector<std::pair<uint32_t, uint32_t>> at;  // (tile, interval), by address
    for (uint32_t i = 0; i < x.intervals.size(); ++i)
      if (x.intervals[i].tile < e.tiles) at.emplace_back(x.intervals[i].tile, i);
    std::sort(at.begin(), at.end(), [&](const auto& a, const auto& b) {
      return std::tie(a.first, x.intervals[a.second].addr) < std::tie(b.first, x.intervals[b.second].addr);
    });
    for (const auto& [tile, i] : at) {
      const exe::Interval& iv = x.intervals[i];
      const exe::LiveRange live = i < x.live.size() ? x.live[i] : exe::LiveRange{};
      std::vector<Span>& sp = spans[tile];
      if (!sp.empty() && sp.back().tensor == t && sp.back().end == iv.addr && sp.back().live == live)
        sp.back().end += iv.count * eb;
      else
        sp.push_back({iv.addr, iv.addr + iv.count * eb, t, i, live});
    }
  }
  // Per tile, by start address; reach[k]: the furthest end among spans 0..k (a lookup walks
  // back from the address while an earlier span can still hold it).
  std::vector<std::vector<uint32_t>> reach(e.tiles);
  for (uint32_t tile = 0; tile < e.tiles; ++tile) {
    std::vector<Span>& sp = spans[tile];
    std::sort(sp.begin(), sp.end(), [](const Span& a, const Span& b) { return a.begin < b.begin; });
    uint32_t r = 0;
    for (const Span& s : sp) reach[tile].push_back(r = std::max(r, s.end));
  }
  // The planner's step at which each compute set runs: the one tensor interval holding an
  // address and live then is the one the vertex points to (the planner lets intervals share
  // bytes only if their live ranges are disjoint).
  const std::vector<uint32_t> cs_step = image.compute_set_steps();

  // The debug map's layers per (compute set, tile), in table order.
  std::map<std::pair<uint32_t, uint32_t>, std::vector<uint32_t>> origin;
  for (const exe::VertexOrigin& v : e.vertices) origin[{v.compute_set, v.tile}].push_back(v.layer);

  std::map<std::pair<uint32_t, uint32_t>, uint32_t> region_id;
  const auto& fields = codelet_fields();
  for (uint32_t cs = 0; cs < image.compute_sets(); ++cs) {
    for (uint32_t tile = 0; tile < e.tiles; ++tile) {
      const std::vector<ExeImage::Vertex> vs = image.vertices(tile, cs);
      const auto o = origin.find({cs, tile});
      for (size_t k = 0; k < vs.size(); ++k) {
        const uint32_t v = static_cast<uint32_t>(g.vertex_tile.size());
        uint32_t layer = no_layer;
        if (o != origin.end() && o->second.size() == vs.size() && o->second[k] < no_layer) layer = o->second[k];
        g.vertex_tile.push_back(tile);
        g.vertex_cs.push_back(cs);
        g.vertex_layer.push_back(layer);
        g.vertex_codelet.push_back(static_cast<uint16_t>(vs[k].codelet));
        if (vs[k].codelet >= fields.size())
          throw ProfileError("tile " + std::to_string(tile) + " compute set " + std::to_string(cs) + ": codelet index " +
                             std::to_string(vs[k].codelet) + " is not in this build's table");
        const auto& f = fields[vs[k].codelet];
        for (uint32_t w = 0; w < f.size(); ++w) {
          if (!f[w]) continue;
          const uint32_t addr = image.word(tile, vs[k].state + 4 * w);
          const Span* hit = resolve(spans[tile], reach[tile], addr, cs < cs_step.size() ? cs_step[cs] : UINT32_MAX,
                                    layer < no_layer ? g.layers[layer] : std::string(), e);
          if (!hit) {
            ++g.unresolved;
            continue;
          }
          auto [r, fresh] = region_id.try_emplace({hit->tensor, hit->interval}, static_cast<uint32_t>(g.regions.size()));
          if (fresh) {
            g.regions.push_back({hit->tensor, hit->interval});
            g.region_layer.push_back(UINT32_MAX);
          }
          const uint32_t rid = r->second;
          // A region takes its first writer's layer; a read-only region its first reader's.
          if (f[w] == 2 && (g.region_layer[rid] == UINT32_MAX || g.region_layer[rid] >= (1u << 31)))
            g.region_layer[rid] = layer;
          else if (g.region_layer[rid] == UINT32_MAX)
            g.region_layer[rid] = layer | (1u << 31);  // provisional (a reader's)
          g.edge_vertex.push_back(v);
          g.edge_region.push_back(rid);
          g.edge_write.push_back(f[w] == 2);
        }
      }
    }
  }
  for (uint32_t& l : g.region_layer) l &= ~(1u << 31);
  return g;
}

}  // namespace tessera::profile
