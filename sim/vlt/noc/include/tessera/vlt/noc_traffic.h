// Traffic generators, receivers and the scoreboard for the Verilated mesh (noc_mesh.h).
// Every node has a traffic generator and a receiver, each with its own RNG seeded from the
// run's seed. Every word carries a unique tag (data = tag * an odd constant; address and
// kind random), and the scoreboard checks that each word is delivered exactly once,
// to its destination, unchanged, in order per (source, destination) pair; a watchdog names a
// deadlock (no flit moved for N cycles while flits are in flight) with the stuck ports.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace tessera::vlt {

enum class NocPattern {
  kUniform,    // each node sends to uniformly random nodes at a random rate
  kAllToAll,   // every node to every node, all at once, at full injection rate
  kHotspot,    // every node to one tile and to one host node, at full rate
  kStall,      // uniform traffic; receivers hold ready low for long random stretches, one
               // of them for thousands of cycles
  kBurst,      // random bursts at full injection rate, between random idle stretches
  kZeroLoad,   // one word at a time, every (source, destination) pair: latency per hop
};
// The names the tool and the tests use: uniform, all_to_all, hotspot, stall, burst, zero_load.
const std::vector<std::string>& noc_pattern_names();
bool parse_noc_pattern(const std::string& name, NocPattern& out);
const char* noc_pattern_name(NocPattern p);

// Test modes: the checker must catch these.
enum class NocInject {
  kNone,
  kLose,       // one delivered word is dropped before scoring: "word lost"
  kDuplicate,  // one delivered word is scored twice: "word duplicated"
  kStuck,      // one receiver never takes a flit although it says it would: "deadlock"
  kReorder,    // one delivered word is scored after the next word of its pair: "word out of order"
  kWithdraw,   // one injection port drops valid for a cycle while its flit waits for ready:
               // the RTL's port assertion (tess_vr_check) must stop the model
};
bool parse_noc_inject(const std::string& name, NocInject& out);

struct NocRunOptions {
  NocPattern pattern = NocPattern::kUniform;
  uint64_t seed = 1;
  int words_per_node = 0;          // 0: the pattern's default
  double rate = 0;                 // injection probability per cycle (uniform, stall); 0: default
  NocInject inject = NocInject::kNone;
  uint64_t deadlock_cycles = 2000; // watchdog: cycles without movement while flits are in flight
  uint64_t max_cycles = 5'000'000;
  int max_errors_shown = 10;
};

struct NocRunResult {
  std::vector<std::string> errors;  // empty: every check passed
  uint64_t cycles = 0;              // until the last word was delivered
  uint64_t words = 0;               // words accepted by the mesh
  uint64_t delivered = 0;
  uint32_t latency_median = 0, latency_max = 0;
  double latency_mean = 0;
  double accepted_per_cycle = 0;    // words accepted by the mesh per cycle, all nodes
  double wall_seconds = 0;
  // kZeroLoad: latency by the routers a word passes (index = routers on its path).
  std::vector<uint32_t> zero_load_latency;
  // The word a test mode dropped, scored twice or held back ("word #N").
  int64_t injected_word = -1;
  bool has_error(const std::string& what) const;
};

// Runs one pattern on a fresh mesh; progress and the summary go to `log` (may be null).
NocRunResult run_noc_traffic(const NocRunOptions& opt, std::FILE* log);

}  // namespace tessera::vlt
