// Pass: plan every tile's memory.
//
// Transformations (per tile, from the firmware's end upwards, first fit):
//   - below __firmware_end: the firmware's code and data and its stack (reported as `code`
//     and `stack`; the header inside it is filled in by codegen);
//   - control: one copy of each program's bytecode, then the compute-set, exchange,
//     stream and condition tables;
//   - vertex state: the tile's Vertex array per compute set, then each vertex's record;
//   - send lists: one SendEntry array per exchange;
//   - landing: the hidden tensors that receive broadcast conditions (exchanges otherwise
//     land directly in their destination tensors);
//   - tensors: each interval of each variable on this tile, 8-byte aligned.
// No liveness yet: every tensor lives for the whole run. A tile that does not fit gets an
// error line naming it, the bytes needed and available, and its largest tensors; planning
// still completes so that the report is whole.
#include <algorithm>

#include "allocator.h"
#include "tessera/arch/tile_map.h"
#include "tessera/passes/passes.h"

namespace tessera::passes {
namespace {

constexpr uint32_t kWord = 4;

std::string largest_tensors(const graph::Graph& g, const MemoryPlan& m, uint32_t tile) {
  std::vector<std::pair<uint32_t, std::string>> sizes;  // bytes, name
  for (uint32_t v = 0; v < m.tensors.size(); ++v)
    for (const MemoryPlan::Placed& p : m.tensors[v])
      if (p.tile == tile)
        sizes.emplace_back((p.end - p.begin) * kWord, g.describe(Tensor{v, p.begin, p.end, {p.end - p.begin}}));
  std::stable_sort(sizes.begin(), sizes.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string s;
  for (size_t i = 0; i < sizes.size() && i < 3; ++i)
    s += (i ? ", " : "") + sizes[i].second + " " + std::to_string(sizes[i].first) + " bytes";
  return s.empty() ? "none" : s;
}

}  // namespace

uint32_t MemoryPlan::addr_of(const Tensor& t) const {
  for (const Placed& p : tensors.at(t.var))
    if (p.begin <= t.begin && t.begin < p.end) return p.addr + (t.begin - p.begin) * kWord;
  throw graph::GraphError("no address for element " + std::to_string(t.begin) + " of tensor " + std::to_string(t.var));
}

MemoryPlan plan_memory(const graph::Graph& g, const Lowered& l, const ExchangePlan& x, const FirmwareLayout& fw) {
  const uint32_t tiles = g.target().tiles;
  MemoryPlan m;
  m.sram_end = arch::kSramBase + g.target().sram_bytes;
  m.tiles.resize(tiles);
  m.vertex_state.assign(g.vertices().size(), 0);
  m.tensors.resize(g.variables().size());
  std::vector<TileAllocator> alloc(tiles, TileAllocator(fw.firmware_end, m.sram_end));

  for (uint32_t t = 0; t < tiles; ++t) {
    MemoryPlan::Tile& mt = m.tiles[t];
    TileAllocator& a = alloc[t];
    exe::TileMemory& u = mt.usage;
    u.stack = fw.stack_bytes;
    u.code = fw.firmware_end - arch::kSramBase - fw.stack_bytes;
    auto take = [&](uint32_t bytes, uint32_t& category) {
      category += bytes;
      return a.alloc(bytes);
    };
    // Control: programs and tables.
    for (const Lowered::Program& p : l.programs)
      mt.programs.push_back(take(static_cast<uint32_t>(p.words.size()) * kWord, u.control));
    const auto n = [](size_t k) { return static_cast<uint32_t>(k); };
    mt.cs_table = take(n(g.compute_sets().size()) * sizeof(arch::ComputeSetEntry), u.control);
    mt.xchg_table = take(n(l.exchanges.size()) * sizeof(arch::ExchangeEntry), u.control);
    mt.stream_table = take(n(l.host_syncs.size()) * sizeof(arch::StreamEntry), u.control);
    mt.cond_table = take(n(l.conditions.size()) * kWord, u.control);
    // Vertex state: per compute set the tile's Vertex array, then the records.
    for (const graph::ComputeSetData& cs : g.compute_sets()) {
      uint32_t count = 0;
      for (uint32_t v : cs.vertices) count += g.vertices()[v].tile == t;
      mt.vertex_arrays.push_back(take(count * sizeof(arch::Vertex), u.vertex_state));
    }
    for (uint32_t v = 0; v < g.vertices().size(); ++v) {
      const graph::VertexData& d = g.vertices()[v];
      if (d.tile == t) m.vertex_state[v] = take(n(d.fields.size()) * kWord, u.vertex_state);
    }
    // Send lists.
    for (const ExchangePlan::Exchange& e : x.exchanges)
      mt.send_lists.push_back(take(n(e.sends[t].size()) * sizeof(arch::SendEntry), u.send_lists));
  }
  // Tensors: landing buffers (hidden) first, then the user's, each interval on its tile.
  for (bool hidden : {true, false})
    for (uint32_t v = 0; v < g.variables().size(); ++v) {
      if (g.variables()[v].hidden != hidden) continue;
      for (const graph::Interval& iv : g.intervals(g.tensor(v))) {
        const uint32_t bytes = (iv.end - iv.begin) * kWord;
        exe::TileMemory& u = m.tiles[iv.tile].usage;
        (hidden ? u.landing : u.tensors) += bytes;
        m.tensors[v].push_back({iv.tile, iv.begin, iv.end, alloc[iv.tile].alloc(bytes, 8)});
      }
    }
  for (uint32_t t = 0; t < tiles; ++t) {
    m.tiles[t].needed = alloc[t].needed();
    if (m.tiles[t].needed > alloc[t].available())
      m.errors.push_back("tile " + std::to_string(t) + " needs " + std::to_string(m.tiles[t].needed) +
                         " bytes above the firmware, " + std::to_string(alloc[t].available()) +
                         " available; largest tensors there: " + largest_tensors(g, m, t));
  }
  return m;
}

}  // namespace tessera::passes
