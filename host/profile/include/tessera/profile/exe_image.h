// Reads what an executable loads onto its tiles, without a device: the sparse segments as
// per-tile memory, the tile header, the compute sets' vertices, and a program's control
// bytecode walked into the sequence of supersteps it runs. The profile, the memory view and
// the graph picture all start here.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "tessera/exe/executable.h"

namespace tessera::profile {

// Anything the tools refuse: an executable whose tables cannot be read, a bad option.
class ProfileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One superstep of a program as the control program runs it: the compute sets executed
// before its barrier, and the barrier.
struct StepPlan {
  enum Kind : uint8_t { kExchange, kSync, kHostSync, kEnd };
  Kind kind = kSync;
  uint32_t operand = 0;                 // exchange index or stream index
  std::vector<uint32_t> compute_sets;   // in execution order
  // The memory planner's steps (exe::LiveRange's numbering) this superstep runs: its
  // Executes, its Exchange or HostSync, the condition broadcast of an If begun in it.
  std::vector<uint32_t> planner_steps;
};

class ExeImage {
 public:
  // Indexes the segments of `e` (which must outlive this) per tile.
  explicit ExeImage(const exe::Executable& e);

  // The word at `addr` on `tile` as loaded; throws ProfileError if no segment holds it.
  uint32_t word(uint32_t tile, uint32_t addr) const;
  bool has_word(uint32_t tile, uint32_t addr) const;

  // The program `p` walked on tile 0: Repeat bodies unrolled; at an If, the branch with
  // more barriers (the compiler's static estimate does the same); the last entry is kEnd
  // (the compute sets after the last barrier). At most `max_steps` barriers, then it stops
  // (the rest is left out).
  std::vector<StepPlan> steps(const exe::Program& p, size_t max_steps = 1u << 22) const;

  // Per compute set, the first of the planner's steps that executes it in any program
  // (UINT32_MAX: none does). Throws ProfileError if a program's walk does not number as
  // many steps as the executable records for it.
  std::vector<uint32_t> compute_set_steps() const;

  // Compute set `cs`'s vertices on `tile` as {codelet, state address} pairs.
  struct Vertex {
    uint32_t codelet = 0, state = 0;
  };
  std::vector<Vertex> vertices(uint32_t tile, uint32_t cs) const;
  uint32_t compute_sets() const { return num_compute_sets_; }

  const exe::Executable& exe() const { return e_; }

 private:
  struct Run {
    uint32_t addr, size;
    const uint8_t* data;
  };
  const Run* find(uint32_t tile, uint32_t addr) const;
  const exe::Executable& e_;
  std::vector<std::vector<Run>> runs_;  // per tile, by address
  uint32_t num_compute_sets_ = 0;
};

// The layer name of each compute set (from the debug map: the layer of its first vertex;
// "cs N" when the compute set has no vertex in the map).
std::vector<std::string> compute_set_names(const exe::Executable& e, uint32_t compute_sets);

}  // namespace tessera::profile
