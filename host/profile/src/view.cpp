// make_view and write_view_json: the memory view's numbers.
#include <algorithm>
#include <cstdio>

#include "tessera/arch/control.h"
#include "tessera/arch/targets.h"
#include "tessera/profile/view.h"

namespace tessera::profile {

namespace {

std::string quoted(const std::string& s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') o += '\\', o += static_cast<char>(c);
    else if (c < 0x20) o += ' ';
    else o += static_cast<char>(c);
  }
  return o + "\"";
}

template <typename T>
void array(std::ostream& out, const std::vector<T>& v) {
  out << "[";
  for (size_t i = 0; i < v.size(); ++i) out << (i ? ", " : "") << v[i];
  out << "]";
}

}  // namespace

ViewData make_view(const ExeImage& image, const GraphData& graph, const std::string& program_name, size_t max_steps) {
  const exe::Executable& e = image.exe();
  ViewData v;
  v.target = e.target;
  v.tiles = e.tiles;
  const arch::Target* target = arch::find_target(e.target);
  if (!target) throw ProfileError("unknown target '" + e.target + "'");
  v.mesh_cols = target->mesh_cols, v.mesh_rows = target->mesh_rows, v.sram_bytes = target->sram_bytes;
  v.categories = {"code", "stack", "control", "vertex state", "send lists", "landing", "tensors"};
  for (const exe::TileMemory& m : e.memory)
    v.category.push_back({m.code, m.stack, m.control, m.vertex_state, m.send_lists, m.landing, m.tensors});
  v.category.resize(e.tiles, std::vector<uint32_t>(7, 0));
  v.layers = graph.layers;

  // A tensor's layer: that of its first region a vertex touches.
  const uint32_t no_layer = static_cast<uint32_t>(graph.layers.size() - 1);
  std::vector<uint32_t> tensor_layer(e.tensors.size(), no_layer);
  for (size_t r = graph.regions.size(); r-- > 0;) tensor_layer[graph.regions[r].tensor] = graph.region_layer[r];
  v.tensor_layer_bytes.assign(e.tiles, std::vector<uint64_t>(v.layers.size(), 0));
  for (size_t t = 0; t < e.tensors.size(); ++t)
    for (const exe::Interval& iv : e.tensors[t].intervals)
      v.tensor_layer_bytes[iv.tile][tensor_layer[t]] += uint64_t(iv.count) * exe::dtype_bytes(e.tensors[t].dtype);

  // Liveness over the program's supersteps.
  const exe::Program* p = program_name.empty() ? (e.programs.empty() ? nullptr : &e.programs.front())
                                               : e.find_program(program_name);
  if (!p) throw ProfileError("no program '" + program_name + "'");
  v.program = p->name;
  const std::vector<StepPlan> plan = image.steps(*p, max_steps);
  const size_t steps = plan.size();
  std::vector<uint32_t> first(image.compute_sets(), UINT32_MAX), last(image.compute_sets(), 0);
  for (uint32_t k = 0; k < steps; ++k)
    for (uint32_t cs : plan[k].compute_sets)
      if (cs < first.size()) first[cs] = std::min(first[cs], k), last[cs] = std::max(last[cs], k);
  std::vector<uint32_t> t_first(e.tensors.size(), UINT32_MAX), t_last(e.tensors.size(), 0);
  for (size_t i = 0; i < graph.edge_count(); ++i) {
    const uint32_t cs = graph.vertex_cs[graph.edge_vertex[i]], t = graph.regions[graph.edge_region[i]].tensor;
    if (first[cs] == UINT32_MAX) continue;
    t_first[t] = std::min(t_first[t], first[cs]), t_last[t] = std::max(t_last[t], last[cs]);
  }
  // Per tile, its tensor intervals' live ranges; then one tile at a time through a
  // difference array over the supersteps (memory: the intervals plus one array).
  struct Live {
    uint32_t first, last;
    int64_t bytes;
  };
  std::vector<std::vector<Live>> live(e.tiles);
  for (size_t t = 0; t < e.tensors.size() && steps; ++t) {
    uint32_t a = t_first[t], b = t_last[t];
    if (e.tensors[t].persistent) a = 0, b = static_cast<uint32_t>(steps - 1);
    if (a == UINT32_MAX) continue;
    for (const exe::Interval& iv : e.tensors[t].intervals)
      live[iv.tile].push_back({a, b, int64_t(iv.count) * exe::dtype_bytes(e.tensors[t].dtype)});
  }
  v.live_total.assign(steps, 0), v.live_max_tile.assign(steps, 0);
  std::vector<int64_t> diff(steps + 1);
  for (uint32_t tile = 0; tile < e.tiles && steps; ++tile) {
    std::fill(diff.begin(), diff.end(), 0);
    for (int c = 0; c < 6; ++c) diff[0] += v.category[tile][c];
    for (const Live& l : live[tile]) diff[l.first] += l.bytes, diff[l.last + 1] -= l.bytes;
    int64_t run = 0;
    for (size_t k = 0; k < steps; ++k) {
      run += diff[k];
      v.live_total[k] += static_cast<uint64_t>(run);
      v.live_max_tile[k] = std::max<uint64_t>(v.live_max_tile[k], static_cast<uint64_t>(run));
    }
  }

  // The exchange matrix: every send entry of every exchange the program runs, times its runs.
  v.groups = std::min<uint32_t>(e.tiles, 32);
  v.exchange.assign(size_t(v.groups) * v.groups, 0);
  std::vector<uint64_t> runs;
  for (const StepPlan& s : plan)
    if (s.kind == StepPlan::kExchange) {
      if (s.operand >= runs.size()) runs.resize(s.operand + 1, 0);
      ++runs[s.operand];
    }
  auto group = [&](uint32_t tile) { return static_cast<uint32_t>(uint64_t(tile) * v.groups / e.tiles); };
  for (uint32_t tile = 0; tile < e.tiles; ++tile) {
    const uint32_t table = image.word(tile, e.header_addr + offsetof(arch::TileHeader, exchanges));
    const uint32_t n = image.word(tile, e.header_addr + offsetof(arch::TileHeader, num_exchanges));
    for (uint32_t x = 0; x < n && x < runs.size(); ++x) {
      if (!runs[x]) continue;
      const uint32_t entry = table + x * sizeof(arch::ExchangeEntry);
      const uint32_t list = image.word(tile, entry), entries = image.word(tile, entry + 4);
      // Each entry, plain or strided, as the emulator decodes it (arch::decode_send_entry).
      const auto slot = [&](uint32_t i) {
        const uint32_t at = list + i * uint32_t{sizeof(arch::SendEntry)};
        return arch::SendEntry{image.word(tile, at), image.word(tile, at + 4), image.word(tile, at + 8),
                               image.word(tile, at + 12)};
      };
      for (uint32_t k = 0; k < entries; ++k) {
        const arch::SendRuns r = arch::decode_send_entry(slot, entries, k);
        if (r.node < e.tiles)
          v.exchange[size_t(group(tile)) * v.groups + group(r.node)] += uint64_t(r.bytes) * r.count * runs[x];
      }
    }
  }
  return v;
}

void write_view_json(std::ostream& out, const ViewData& v) {
  out << "{\n  \"target\": " << quoted(v.target) << ", \"program\": " << quoted(v.program) << ", \"tiles\": " << v.tiles
      << ", \"mesh\": [" << v.mesh_cols << ", " << v.mesh_rows << "], \"sram_bytes\": " << v.sram_bytes
      << ",\n  \"categories\": [";
  for (size_t i = 0; i < v.categories.size(); ++i) out << (i ? ", " : "") << quoted(v.categories[i]);
  out << "],\n  \"layers\": [";
  for (size_t i = 0; i < v.layers.size(); ++i) out << (i ? ", " : "") << quoted(v.layers[i]);
  out << "],\n  \"tile_memory\": [";
  for (uint32_t t = 0; t < v.tiles; ++t) {
    out << (t ? "," : "") << "\n    {\"tile\": " << t << ", \"categories\": ";
    array(out, v.category[t]);
    out << ", \"tensors_by_layer\": ";
    array(out, v.tensor_layer_bytes[t]);
    out << "}";
  }
  out << "\n  ],\n  \"live_bytes\": {\"total\": ";
  array(out, v.live_total);
  out << ",\n    \"max_tile\": ";
  array(out, v.live_max_tile);
  out << "},\n  \"exchange\": {\"groups\": " << v.groups << ", \"tiles_per_group\": "
      << (v.groups ? (v.tiles + v.groups - 1) / v.groups : 0) << ", \"bytes\": ";
  array(out, v.exchange);
  out << "}\n}\n";
}

}  // namespace tessera::profile
