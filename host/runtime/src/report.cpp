// The run report as JSON, written by hand (a few flat fields; no JSON library needed):
//   {"target": ..., "tiles": N, "runs": [{"program", "ok", "error", "supersteps",
//    "host_syncs", "wall_seconds", "total_cycles", "supersteps_profile": [...]}]}
#include <cstdio>
#include <fstream>
#include <sstream>

#include "tessera/runtime/engine.h"

namespace tessera::runtime {

namespace {

std::string quoted(const std::string& s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') o += '\\', o += static_cast<char>(c);
    else if (c == '\n') o += "\\n";
    else if (c < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", c);
      o += b;
    } else o += static_cast<char>(c);
  }
  return o + "\"";
}

}  // namespace

std::string Engine::report_json() const {
  std::ostringstream o;
  o << "{\n  \"target\": " << quoted(exe_.target) << ",\n  \"tiles\": " << exe_.tiles << ",\n  \"runs\": [";
  for (size_t i = 0; i < reports_.size(); ++i) {
    const RunReport& r = reports_[i];
    uint64_t total = 0;
    for (const SuperstepCycles& s : r.profile) total += s.compute_cycles + s.exchange_cycles;
    o << (i ? "," : "") << "\n    {\"program\": " << quoted(r.program) << ", \"ok\": " << (r.ok ? "true" : "false");
    if (!r.ok) o << ", \"error\": " << quoted(r.error);
    o << ", \"supersteps\": " << r.supersteps << ", \"host_syncs\": " << r.host_syncs
      << ", \"host_bytes\": " << r.host_bytes << ", \"device_memory_bytes\": " << r.device_memory_bytes
      << ", \"wall_seconds\": " << r.wall_seconds;
    if (!r.profile.empty()) {
      o << ", \"total_cycles\": " << total << ",\n     \"superstep_profile\": [";
      for (size_t k = 0; k < r.profile.size(); ++k) {
        const SuperstepCycles& s = r.profile[k];
        o << (k ? "," : "") << "\n       {\"superstep\": " << s.superstep << ", \"kind\": \""
          << (s.kind == 1 ? "host_sync" : "exchange") << "\", \"compute_cycles\": " << s.compute_cycles
          << ", \"exchange_cycles\": " << s.exchange_cycles << ", \"exchange_words\": " << s.exchange_words;
        if (s.dram_wait_cycles) o << ", \"dram_wait_cycles\": " << s.dram_wait_cycles;
        o << "}";
      }
      o << "]";
    }
    o << "}";
  }
  o << "\n  ]\n}\n";
  return o.str();
}

void Engine::write_report_json(const std::filesystem::path& path) const {
  std::ofstream f(path);
  if (!f) throw EngineError("write_report_json: cannot open '" + path.string() + "' for writing");
  f << report_json();
  if (!f.flush()) throw EngineError("write_report_json: writing '" + path.string() + "' failed");
}

}  // namespace tessera::runtime
