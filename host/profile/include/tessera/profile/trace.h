// A run's timeline as a Chrome trace-event JSON file (opens in ui.perfetto.dev and
// chrome://tracing): a track per tile or per group of tiles with its compute, sync and
// exchange phases per superstep, a host track with the host syncs and their stream
// transfers, and a counter of the words each exchange moves (docs/profiling.md).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "tessera/exe/executable.h"
#include "tessera/profile/exe_image.h"
#include "tessera/runtime/engine.h"

namespace tessera::profile {

struct TraceOptions {
  // Tiles per track: 0 picks one per tile up to 64 tiles, else groups giving at most 64
  // tracks (a group's compute phase is its slowest tile's). 1: every tile its own track.
  uint32_t group = 0;
  uint32_t clock_mhz = 0;   // 0: timestamps in cycles (1 cycle shown as 1 us)
  std::string device;       // e.g. "emu", recorded in the trace's metadata
};

// The tiles per track `o` gives for `tiles` tiles.
uint32_t trace_group(uint32_t tiles, const TraceOptions& o);

// Writes the trace of one run of `program` whose per-superstep profile (with per-tile
// cycles) is `cycles`. Each phase event carries args {superstep, cycles}; per track the
// phases' cycles add up to the run's total (the sum of compute and exchange cycles).
// Events are named by layer and compute set from the program walked as ExeImage::steps
// does; when its barriers differ from the run's (an If that went the other way), by
// superstep only (otherData.named_by_program false). Throws ProfileError if `cycles` lacks
// per-tile cycles.
void write_chrome_trace(std::ostream& out, const ExeImage& image, const exe::Program& program,
                        const std::vector<runtime::SuperstepCycles>& cycles, const TraceOptions& o);

}  // namespace tessera::profile
