// walk_timeline: the run's supersteps matched to the control program and split per track.
#include "tessera/profile/timeline.h"

#include <algorithm>

namespace tessera::profile {

TimelineTracks walk_timeline(const ExeImage& image, const exe::Program& program,
                             const std::vector<runtime::SuperstepCycles>& cycles, uint32_t group,
                             const std::function<void(const TimelineTracks&, const TimelineStep&)>& step) {
  const exe::Executable& e = image.exe();
  TimelineTracks tt;
  tt.tiles = e.tiles, tt.group = std::max(1u, group), tt.tracks = (tt.tiles + tt.group - 1) / tt.group;
  for (uint32_t k = 0; k < tt.tracks; ++k) {
    const uint32_t a = k * tt.group, b = std::min(tt.tiles, a + tt.group) - 1;
    tt.names.push_back(a == b ? "tile " + std::to_string(a) : "tiles " + std::to_string(a) + "-" + std::to_string(b));
  }
  for (const runtime::SuperstepCycles& s : cycles)
    if (s.tile_cycles.size() != tt.tiles)
      throw ProfileError("superstep " + std::to_string(s.superstep) + ": the device gave " +
                         std::to_string(s.tile_cycles.size()) + " tile cycle counts for " + std::to_string(tt.tiles) +
                         " tiles");
  // The walked program names the supersteps when its barriers are the run's (host syncs
  // where the device had them); an If that went the other way breaks that, and then the
  // events are named by superstep only.
  std::vector<StepPlan> plan = image.steps(program, cycles.size() + 1);
  tt.named = plan.size() >= cycles.size();
  for (size_t k = 0; tt.named && k < cycles.size(); ++k)
    tt.named = (plan[k].kind == StepPlan::kHostSync) == (cycles[k].kind == 1);
  if (!tt.named) {
    plan.assign(cycles.size(), StepPlan{});
    for (size_t k = 0; k < cycles.size(); ++k) plan[k].kind = cycles[k].kind == 1 ? StepPlan::kHostSync : StepPlan::kSync;
  }
  const std::vector<std::string> cs_name = compute_set_names(e, image.compute_sets());
  std::vector<uint32_t> cs_layer(image.compute_sets(), UINT32_MAX);
  for (const exe::VertexOrigin& v : e.vertices)
    if (v.compute_set < cs_layer.size() && cs_layer[v.compute_set] == UINT32_MAX) cs_layer[v.compute_set] = v.layer;
  // Which compute sets have vertices on which tile (a track's compute phase names only those).
  std::vector<std::vector<uint32_t>> cs_tiles(image.compute_sets());
  for (uint32_t cs = 0; cs < image.compute_sets(); ++cs)
    for (uint32_t t = 0; t < tt.tiles; ++t) cs_tiles[cs].push_back(static_cast<uint32_t>(image.vertices(t, cs).size()));

  TimelineStep ts;
  uint32_t host_sync = 0;
  for (size_t k = 0; k < cycles.size(); ++k) {
    const runtime::SuperstepCycles& s = cycles[k];
    const StepPlan& p = plan[k];
    ts.superstep = static_cast<uint32_t>(k);
    ts.compute = s.compute_cycles, ts.exchange = s.exchange_cycles, ts.words = s.exchange_words;
    ts.barrier = p.kind;
    ts.barrier_name = p.kind == StepPlan::kExchange ? "exchange " + std::to_string(p.operand)
                      : p.kind == StepPlan::kHostSync ? "host sync"
                                                       : "sync";
    ts.stream = nullptr;
    if (s.kind == 1) {
      const uint32_t si = host_sync < program.streams.size() ? program.streams[host_sync] : UINT32_MAX;
      ++host_sync;
      if (si < e.streams.size()) ts.stream = &e.streams[si], ts.barrier_name += " " + ts.stream->name;
    }
    ts.track_compute.assign(tt.tracks, 0), ts.track_name.assign(tt.tracks, ""), ts.track_layer.assign(tt.tracks, UINT32_MAX);
    for (uint32_t tr = 0; tr < tt.tracks; ++tr) {
      const uint32_t a = tr * tt.group, b = std::min(tt.tiles, a + tt.group);
      uint64_t c = 0;
      for (uint32_t t = a; t < b; ++t) c = std::max<uint64_t>(c, s.tile_cycles[t]);
      ts.track_compute[tr] = std::min<uint64_t>(c, s.compute_cycles);
      std::string& name = ts.track_name[tr];
      for (uint32_t cs : p.compute_sets) {
        if (cs >= cs_tiles.size()) continue;
        bool here = false;
        for (uint32_t t = a; t < b && !here; ++t) here = cs_tiles[cs][t] > 0;
        if (!here) continue;
        name += (name.empty() ? "" : " + ") + cs_name[cs];
        if (ts.track_layer[tr] == UINT32_MAX) ts.track_layer[tr] = cs_layer[cs];
      }
      if (!tt.named) name = "superstep " + std::to_string(k);
      else if (name.empty()) name = p.compute_sets.empty() ? "control" : "no vertices";
    }
    step(tt, ts);
    ts.start += s.compute_cycles + s.exchange_cycles;
  }
  return tt;
}

}  // namespace tessera::profile
