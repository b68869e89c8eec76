// write_chrome_trace: the trace-event JSON, written as a stream (a big target's run has
// millions of events; no document is built in memory).
#include "tessera/profile/trace.h"

#include "tessera/profile/timeline.h"

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
  Writer w(out, o.clock_mhz ? 1.0 / o.clock_mhz : 1.0);
  uint64_t end = 0;
  bool header = false;
  auto head = [&](const TimelineTracks& tt) {
    out << "{\n  \"displayTimeUnit\": \"ns\",\n  \"otherData\": {\"target\": " << quoted(e.target)
        << ", \"program\": " << quoted(program.name) << ", \"device\": " << quoted(o.device) << ", \"tiles\": " << tt.tiles
        << ", \"named_by_program\": " << (tt.named ? "true" : "false") << ", \"tiles_per_track\": " << tt.group
        << ", \"clock_mhz\": " << o.clock_mhz << ", \"supersteps\": " << cycles.size() << "},\n  \"traceEvents\": [";
    w.meta(kHostPid, 0, "process_name", "host");
    w.meta(kHostPid, 0, "thread_name", "host syncs and streams");
    w.meta(kTilePid, 0, "process_name", e.target + " tiles");
    for (uint32_t k = 0; k < tt.tracks; ++k) {
      w.meta(kTilePid, static_cast<int>(k), "thread_name", tt.names[k]);
      w.sort(kTilePid, static_cast<int>(k), static_cast<int>(k));
    }
    header = true;
  };
  const TimelineTracks tt = walk_timeline(image, program, cycles, trace_group(e.tiles, o),
                                          [&](const TimelineTracks& tracks, const TimelineStep& s) {
    if (!header) head(tracks);
    const char* barrier_cat = s.barrier == StepPlan::kExchange ? "exchange" : "sync";
    const uint64_t sync_at = s.start + s.compute;
    if (s.stream) {
      const exe::StreamDirection d = s.stream->direction;
      const bool in = d != exe::StreamDirection::kDeviceToHost;
      w.phase(kHostPid, 0, s.stream->name + (in ? " -> device" : " <- device"), "host", sync_at, s.exchange, s.superstep,
              ", \"stream\": " + quoted(s.stream->name) + ", \"direction\": \"" +
                  (d == exe::StreamDirection::kHostToDevice   ? "host_to_device"
                   : d == exe::StreamDirection::kDeviceToHost ? "device_to_host"
                                                              : "device_memory_to_device") +
                  "\", \"bytes\": " + std::to_string(exe::transfer_bytes(*s.stream)));
    }
    for (uint32_t tr = 0; tr < tracks.tracks; ++tr) {
      const uint64_t c = s.track_compute[tr];
      w.phase(kTilePid, tr, s.track_name[tr], "compute", s.start, c, s.superstep);
      if (s.compute > c) w.phase(kTilePid, tr, "wait for barrier", "sync", s.start + c, s.compute - c, s.superstep);
      w.phase(kTilePid, tr, s.barrier_name, barrier_cat, sync_at, s.exchange, s.superstep,
              ", \"words\": " + std::to_string(s.words));
    }
    w.raw("{\"ph\": \"C\", \"pid\": " + std::to_string(kTilePid) + ", \"name\": \"words exchanged\", \"ts\": " +
          w.ts(sync_at) + ", \"args\": {\"words\": " + std::to_string(s.words) + "}}");
    end = sync_at + s.exchange;
  });
  if (!header) head(tt);
  w.raw("{\"ph\": \"C\", \"pid\": " + std::to_string(kTilePid) + ", \"name\": \"words exchanged\", \"ts\": " + w.ts(end) +
        ", \"args\": {\"words\": 0}}");
  out << "\n  ],\n  \"total_cycles\": " << end << "\n}\n";
}

}  // namespace tessera::profile
