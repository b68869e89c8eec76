// write_chrome_trace: the trace-event JSON, written as a stream (a big target's run has
// millions of events; no document is built in memory).
#include "tessera/profile/trace.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace tessera::profile {

namespace {

std::string quoted(const std::string& s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') o += '\\', o += static_cast<char>(c);
    else if (c < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", c);
      o += b;
    } else o += static_cast<char>(c);
  }
  return o + "\"";
}

class Writer {
 public:
  Writer(std::ostream& out, double us_per_cycle) : out_(out), k_(us_per_cycle) {}
  void raw(const std::string& event) {
    out_ << (first_ ? "\n    " : ",\n    ") << event;
    first_ = false;
  }
  std::string ts(uint64_t cycles) const {
    char b[40];
    std::snprintf(b, sizeof b, "%.6f", static_cast<double>(cycles) * k_);
    return b;
  }
  // A complete event ("X") of `cycles` from `start`.
  void phase(int pid, uint32_t tid, const std::string& name, const char* cat, uint64_t start, uint64_t cycles,
             uint32_t superstep, const std::string& extra = "") {
    raw("{\"ph\": \"X\", \"pid\": " + std::to_string(pid) + ", \"tid\": " + std::to_string(tid) + ", \"name\": " +
        quoted(name) + ", \"cat\": \"" + cat + "\", \"ts\": " + ts(start) + ", \"dur\": " + ts(cycles) +
        ", \"args\": {\"superstep\": " + std::to_string(superstep) + ", \"cycles\": " + std::to_string(cycles) + extra +
        "}}");
  }
  void meta(int pid, int tid, const char* what, const std::string& name) {
    raw("{\"ph\": \"M\", \"pid\": " + std::to_string(pid) + ", \"tid\": " + std::to_string(tid) + ", \"name\": \"" + what +
        "\", \"args\": {\"name\": " + quoted(name) + "}}");
  }
  void sort(int pid, int tid, int index) {
    raw("{\"ph\": \"M\", \"pid\": " + std::to_string(pid) + ", \"tid\": " + std::to_string(tid) +
        ", \"name\": \"thread_sort_index\", \"args\": {\"sort_index\": " + std::to_string(index) + "}}");
  }

 private:
  std::ostream& out_;
  double k_;
  bool first_ = true;
};

constexpr int kHostPid = 0, kTilePid = 1;

}  // namespace

uint32_t trace_group(uint32_t tiles, const TraceOptions& o) {
  if (o.group) return o.group;
  return tiles <= 64 ? 1 : (tiles + 63) / 64;
}

void write_chrome_trace(std::ostream& out, const ExeImage& image, const exe::Program& program,
                        const std::vector<runtime::SuperstepCycles>& cycles, const TraceOptions& o) {
  const exe::Executable& e = image.exe();
  const uint32_t tiles = e.tiles, group = trace_group(tiles, o), tracks = (tiles + group - 1) / group;
  for (const runtime::SuperstepCycles& s : cycles)
    if (s.tile_cycles.size() != tiles)
      throw ProfileError("superstep " + std::to_string(s.superstep) + ": the device gave " +
                         std::to_string(s.tile_cycles.size()) + " tile cycle counts for " + std::to_string(tiles) + " tiles");
  // The walked program names the supersteps when its barriers are the run's (host syncs
  // where the device had them); an If that went the other way breaks that, and then the
  // events are named by superstep only.
  std::vector<StepPlan> plan = image.steps(program, cycles.size() + 1);
  bool named = plan.size() >= cycles.size();
  for (size_t k = 0; named && k < cycles.size(); ++k) named = (plan[k].kind == StepPlan::kHostSync) == (cycles[k].kind == 1);
  if (!named) {
    plan.assign(cycles.size(), StepPlan{});
    for (size_t k = 0; k < cycles.size(); ++k) plan[k].kind = cycles[k].kind == 1 ? StepPlan::kHostSync : StepPlan::kSync;
  }
  const std::vector<std::string> cs_name = compute_set_names(e, image.compute_sets());
  // Which compute sets have vertices on which tile (a tile's compute event names only those).
  std::vector<std::vector<uint32_t>> cs_tiles(image.compute_sets());
  for (uint32_t cs = 0; cs < image.compute_sets(); ++cs)
    for (uint32_t t = 0; t < tiles; ++t)
      cs_tiles[cs].push_back(static_cast<uint32_t>(image.vertices(t, cs).size()));

  Writer w(out, o.clock_mhz ? 1.0 / o.clock_mhz : 1.0);
  out << "{\n  \"displayTimeUnit\": \"ns\",\n  \"otherData\": {\"target\": " << quoted(e.target)
      << ", \"program\": " << quoted(program.name) << ", \"device\": " << quoted(o.device) << ", \"tiles\": " << tiles
      << ", \"named_by_program\": " << (named ? "true" : "false") << ", \"tiles_per_track\": " << group << ", \"clock_mhz\": " << o.clock_mhz << ", \"supersteps\": " << cycles.size()
      << "},\n  \"traceEvents\": [";
  w.meta(kHostPid, 0, "process_name", "host");
  w.meta(kHostPid, 0, "thread_name", "host syncs and streams");
  w.meta(kTilePid, 0, "process_name", e.target + " tiles");
  for (uint32_t k = 0; k < tracks; ++k) {
    const uint32_t a = k * group, b = std::min(tiles, a + group) - 1;
    w.meta(kTilePid, static_cast<int>(k), "thread_name",
           a == b ? "tile " + std::to_string(a) : "tiles " + std::to_string(a) + "-" + std::to_string(b));
    w.sort(kTilePid, static_cast<int>(k), static_cast<int>(k));
  }
  uint64_t start = 0;
  uint32_t host_sync = 0;
  for (size_t k = 0; k < cycles.size(); ++k) {
    const runtime::SuperstepCycles& s = cycles[k];
    const StepPlan& p = plan[k];
    const uint32_t ss = static_cast<uint32_t>(k);
    std::string barrier = p.kind == StepPlan::kExchange ? "exchange " + std::to_string(p.operand)
                          : p.kind == StepPlan::kHostSync ? "host sync"
                                                           : "sync";
    const char* barrier_cat = p.kind == StepPlan::kExchange ? "exchange" : "sync";
    std::string stream_args;
    if (s.kind == 1) {
      const uint32_t si = host_sync < program.streams.size() ? program.streams[host_sync] : UINT32_MAX;
      ++host_sync;
      if (si < e.streams.size()) {
        const exe::Stream& st = e.streams[si];
        const bool in = st.direction == exe::StreamDirection::kHostToDevice;
        barrier += " " + st.name;
        stream_args = ", \"stream\": " + quoted(st.name) + ", \"direction\": \"" + (in ? "host_to_device" : "device_to_host") +
                      "\", \"bytes\": " + std::to_string(exe::transfer_bytes(st));
        w.phase(kHostPid, 0, st.name + (in ? " -> device" : " <- device"), "host", start + s.compute_cycles,
                s.exchange_cycles, ss, stream_args);
      }
    }
    for (uint32_t tr = 0; tr < tracks; ++tr) {
      const uint32_t a = tr * group, b = std::min(tiles, a + group);
      uint64_t c = 0;
      for (uint32_t t = a; t < b; ++t) c = std::max<uint64_t>(c, s.tile_cycles[t]);
      c = std::min<uint64_t>(c, s.compute_cycles);
      std::string name;
      for (uint32_t cs : p.compute_sets) {
        if (cs >= cs_tiles.size()) continue;
        bool here = false;
        for (uint32_t t = a; t < b && !here; ++t) here = cs_tiles[cs][t] > 0;
        if (here) name += (name.empty() ? "" : " + ") + cs_name[cs];
      }
      if (!named) name = "superstep " + std::to_string(k);
      else if (name.empty()) name = p.compute_sets.empty() ? "control" : "no vertices";
      w.phase(kTilePid, tr, name, "compute", start, c, ss);
      if (s.compute_cycles > c) w.phase(kTilePid, tr, "wait for barrier", "sync", start + c, s.compute_cycles - c, ss);
      w.phase(kTilePid, tr, barrier, barrier_cat, start + s.compute_cycles, s.exchange_cycles, ss,
              ", \"words\": " + std::to_string(s.exchange_words));
    }
    w.raw("{\"ph\": \"C\", \"pid\": " + std::to_string(kTilePid) + ", \"name\": \"words exchanged\", \"ts\": " +
          w.ts(start + s.compute_cycles) + ", \"args\": {\"words\": " + std::to_string(s.exchange_words) + "}}");
    start += s.compute_cycles + s.exchange_cycles;
  }
  w.raw("{\"ph\": \"C\", \"pid\": " + std::to_string(kTilePid) + ", \"name\": \"words exchanged\", \"ts\": " + w.ts(start) +
        ", \"args\": {\"words\": 0}}");
  out << "\n  ],\n  \"total_cycles\": " << start << "\n}\n";
}

}  // namespace tessera::profile
