// A run's timeline, superstep by superstep, per track (a tile or a group of tiles): what
// the Chrome trace (trace.h) and the timeline picture are both written from.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tessera/exe/executable.h"
#include "tessera/profile/exe_image.h"
#include "tessera/runtime/engine.h"

namespace tessera::profile {

struct TimelineTracks {
  uint32_t tiles = 0, group = 1, tracks = 0;
  bool named = false;                // compute phases named from the walked program
  std::vector<std::string> names;    // "tile 3" or "tiles 0-18"
};

struct TimelineStep {
  uint32_t superstep = 0;
  uint64_t start = 0, compute = 0, exchange = 0, words = 0;  // cycles from the run's start
  StepPlan::Kind barrier = StepPlan::kSync;
  std::string barrier_name;           // "exchange 3", "sync", "host sync x"
  const exe::Stream* stream = nullptr;  // the host sync's stream
  // Per track: its compute cycles (its slowest tile's), the compute sets run there
  // ("LAYER cs N + ...", "control", "no vertices", or "superstep N"), the first one's layer
  // (UINT32_MAX if none).
  std::vector<uint64_t> track_compute;
  std::vector<std::string> track_name;
  std::vector<uint32_t> track_layer;
};

// Calls `step` for every superstep of the run of `program` whose profile is `cycles`, in
// order; `group` tiles per track. Throws ProfileError if the profile lacks per-tile cycles.
TimelineTracks walk_timeline(const ExeImage& image, const exe::Program& program,
                             const std::vector<runtime::SuperstepCycles>& cycles, uint32_t group,
                             const std::function<void(const TimelineTracks&, const TimelineStep&)>& step);

// The timeline as a picture (PNG): a row per track, compute coloured by layer, waiting
// light grey, exchanges blue, syncs dark grey, host syncs orange on the host row. `device`
// (e.g. "emu", "vlt"), when given, is named in the title.
void draw_timeline_png(const ExeImage& image, const exe::Program& program,
                       const std::vector<runtime::SuperstepCycles>& cycles, uint32_t group, uint32_t clock_mhz,
                       const std::string& path, const std::string& device = {});

}  // namespace tessera::profile
