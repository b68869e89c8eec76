// Pass: a lower bound on each tile's memory, before any pass that allocates per transfer.
//
// Two things on a tile are known exactly right after validate and can never share bytes
// with anything: its vertex state (a Vertex per vertex in its compute set's array, and each
// vertex's record of fields) and its tensors with an initial value (weights, constants: kept
// for the whole run). If they alone exceed what the firmware leaves, the graph cannot fit, and
// the compile stops here with the same per-tile report, instead of after planning exchanges
// and memory (which cost the most time and memory on a big graph).

#include <algorithm>
#include <functional>

#include "packing.h"
#include "tessera/arch/tile_map.h"
#include "tessera/passes/passes.h"

namespace tessera::passes {
namespace {

uint32_t fullest_tile(const std::vector<exe::TileMemory>& report) {
  uint32_t best = 0;
  for (uint32_t t = 1; t < report.size(); ++t)
    if (report[t].vertex_state + report[t].tensors > report[best].vertex_state + report[best].tensors) best = t;
  return best;
}

// "tile T, the fullest: its largest tensors with an initial value: NAME BYTES, ..." (at most 5).
std::string largest_constants(const graph::Graph& g, uint32_t tile) {
  std::vector<std::pair<uint64_t, uint32_t>> bytes;  // (bytes, variable)
  for (uint32_t v = 0; v < g.variables().size(); ++v) {
    if (g.variables()[v].initial.empty()) continue;
    uint64_t b = 0;
    for (const graph::Interval& iv : g.intervals(g.tensor(v)))
      if (iv.tile == tile) b += interval_bytes(iv.end - iv.begin);
    if (b > 0) bytes.emplace_back(b, v);
  }
  std::sort(bytes.begin(), bytes.end(), std::greater<>());
  std::string s = "tile " + std::to_string(tile) + ", the fullest: " + std::to_string(bytes.size()) +
                  " tensors with an initial value, the largest:";
  for (size_t i = 0; i < std::min<size_t>(5, bytes.size()); ++i)
    s += (i ? ", " : " ") + g.variables()[bytes[i].second].name + " " + std::to_string(bytes[i].first);
  return s;
}

}  // namespace

std::vector<std::string> check_fit(const graph::Graph& g, const exe::FirmwareLayout& fw,
                                   std::vector<exe::TileMemory>& report) {
  const uint32_t tiles = g.target().tiles;
  report.assign(tiles, {});
  for (exe::TileMemory& u : report) {
    u.stack = fw.stack_bytes();
    u.code = fw.firmware_end - arch::kSramBase - fw.stack_bytes();
  }
  for (const graph::VertexData& d : g.vertices())
    report[d.tile].vertex_state += static_cast<uint32_t>(sizeof(arch::Vertex) + d.fields.size() * 4);
  for (uint32_t v = 0; v < g.variables().size(); ++v) {
    if (g.variables()[v].initial.empty()) continue;
    for (const graph::Interval& iv : g.intervals(g.tensor(v)))
      report[iv.tile].tensors += interval_bytes(iv.end - iv.begin);  // as plan_memory places it
  }
  const uint64_t available = uint64_t(arch::kSramBase) + g.target().sram_bytes - fw.firmware_end;
  std::vector<std::string> errors;
  uint32_t over = 0;
  for (uint32_t t = 0; t < tiles; ++t) {
    const uint64_t need = uint64_t(report[t].vertex_state) + report[t].tensors;
    if (need <= available) continue;
    if (++over <= 8)
      errors.push_back("tile " + std::to_string(t) + " needs at least " + std::to_string(need) +
                       " bytes above the firmware (" + std::to_string(report[t].tensors) +
                       " of tensors with an initial value, " + std::to_string(report[t].vertex_state) +
                       " of vertex state), " + std::to_string(available) + " available");
  }
  if (over > 8) errors.push_back("and " + std::to_string(over - 8) + " more tiles");
  if (over > 0) errors.push_back(largest_constants(g, fullest_tile(report)));
  return errors;
}

}  // namespace tessera::passes
