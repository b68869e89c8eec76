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

  // A tensor's layer (for the memory map's colours): that of its first region a vertex touches.
  const uint32_t no_layer = static_cast<uint32_t>(graph.layers.size() - 1);
  std::vector<uint32_t> tensor_layer(e.tensors.size(), no_layer);
  for (size_t r = graph.regions.size(); r-- > 0;) tensor_layer[graph.regions[r].tensor] = graph.region_layer[r];
  v.tensor_layer_bytes.assign(e.tiles, std::vector<uint64_t>(v.layers.size(), 0));
  for (size_t t = 0; t < e.tensors.size(); ++t)
    for (const exe::Interval& iv : e.tensors[t].intervals)
      v.tensor_layer_bytes[iv.tile][tensor_layer[t]] += uint64_t(iv.count) * exe::dtype_bytes(e.tensors[t].dtype);

  // Bytes live at each superstep of the program, from the planner's own live ranges
  // (exe::LiveRange): per tile, the tensor bytes live at each of the program's planner
  // steps (a difference array over them), then per superstep the most at any of its steps.
  const exe::Program* p = program_name.empty() ? (e.programs.empty() ? nullptr : &e.programs.front())
                                               : e.find_program(program_name);
  if (!p) throw ProfileError("no program '" + program_name + "'");
  v.program = p->name;
  const std::vector<StepPlan> plan = image.steps(*p, max_steps);
  const size_t steps = plan.size();
  const uint32_t from = p->first_step, n = p->steps;
  v.planner_steps = n;
  struct Live {
    uint32_t first, last;  // of the program's planner steps, 0-based
    int64_t bytes;
  };
  std::vector<std::vector<Live>> live(e.tiles);
  for (const exe::Tensor& t : e.tensors)
    for (size_t i = 0; i < t.intervals.size(); ++i) {
      const exe::Interval& iv = t.intervals[i];
      const exe::LiveRange r = i < t.live.size() ? t.live[i] : exe::LiveRange{};
      uint32_t a = 0, b = n ? n - 1 : 0;  // the whole run: all of the program's steps
      if (r.last != exe::LiveRange::kWholeRun) {
        if (r.last < from || r.first >= uint64_t{from} + n) continue;  // another program's
        a = std::max(r.first, from) - from, b = std::min<uint64_t>(r.last, uint64_t{from} + n - 1) - from;
      }
      live[iv.tile].push_back({a, b, int64_t(iv.count) * exe::dtype_bytes(t.dtype)});
    }
  v.live_total.assign(steps, 0), v.live_max_tile.assign(steps, 0), v.live_peak_tile.assign(e.tiles, 0);
  std::vector<int64_t> at(std::max<uint32_t>(n, 1) + 1);
  for (uint32_t tile = 0; tile < e.tiles; ++tile) {
    std::fill(at.begin(), at.end(), 0);
    for (const Live& l : live[tile]) at[l.first] += l.bytes, at[l.last + 1] -= l.bytes;
    int64_t fixed = 0, run = 0, most = 0;
    for (int c = 0; c < 6; ++c) fixed += v.category[tile][c];
    for (size_t k = 0; k + 1 < at.size(); ++k) at[k] = run += at[k], most = std::max(most, at[k]);
    v.live_peak_tile[tile] = static_cast<uint64_t>(fixed + most);
    // A superstep with no planner step of its own (a bare Sync) keeps the one before.
    int64_t last = at[0];
    for (size_t k = 0; k < steps; ++k) {
      if (n && !plan[k].planner_steps.empty()) {
        last = 0;
        for (uint32_t s : plan[k].planner_steps)
          if (s >= from && s - from < n) last = std::max(last, at[s - from]);
      }
      const uint64_t bytes = static_cast<uint64_t>(fixed + last);
      v.live_total[k] += bytes;
      v.live_max_tile[k] = std::max(v.live_max_tile[k], bytes);
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
  out << ",\n    \"planner_steps\": " << v.planner_steps << ", \"peak_by_tile\": ";
  array(out, v.live_peak_tile);
  out << "},\n  \"exchange\": {\"groups\": " << v.groups << ", \"tiles_per_group\": "
      << (v.groups ? (v.tiles + v.groups - 1) / v.groups : 0) << ", \"bytes\": ";
  array(out, v.exchange);
  out << "}\n}\n";
}

}  // namespace tessera::profile
