// Co-simulation of whole programs: one executable runs through the host runtime's Engine on
// the emulator (ISS) and on the machine RTL (VltMachine) at once, superstep by superstep. Both
// stop at every barrier release (BREAK_SUPERSTEP), at every host sync and at the end; there
// every tile's SRAM from the firmware's end (the memory the executable owns) is hashed on
// both, and the first difference is reported with its tile, superstep and lowest differing
// address and both values. Every event, every word the host reads and every tensor at the end
// must agree as well. The per-superstep cycles of both (compute phase: release to the last
// arrival, as emu::Machine::profile(); barrier: last arrival to release) are kept for the
// calibration of the emulator's cycle model (docs/machine-rtl.md).
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tessera/exe/executable.h"
#include "tessera/vlt/vlt_machine.h"

namespace tessera::vlt {
inline namespace TESSERA_VLT_MACHINE_NS {

struct CosimOptions {
  std::vector<std::string> programs;  // run in this order; empty: the first program
  uint32_t seed = 1;                  // host-to-device streams not in `inputs`: a seeded pattern
  std::map<std::string, std::vector<std::byte>> inputs;  // stream name -> its data (one transfer)
  // Called on the RTL right after superstep `superstep` of program `program` compared equal
  // (its release): tests corrupt the RTL's memory here (VltMachine::poke_word).
  std::function<void(VltMachine& rtl, const std::string& program, uint32_t superstep)> after_superstep;
  std::FILE* log = nullptr;  // one line per compared superstep when set
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};  // per program
};

// The first difference in memory.
struct CosimMismatch {
  std::string program;
  uint32_t superstep = 0;  // the superstep at whose end (release, host sync or halt) it showed
  const char* where = "";  // "release", "host sync", "end"
  uint32_t tile = 0, addr = 0, emu_value = 0, rtl_value = 0;
  uint32_t words_differing = 0;  // on that tile
};

struct CosimStep {
  std::string program;
  uint32_t superstep = 0, kind = 0;  // kind: 0 exchange or plain barrier, 1 host sync
  uint64_t emu_compute = 0, rtl_compute = 0;  // release (or start) to the last arrival
  uint64_t emu_sync = 0, rtl_sync = 0;        // last arrival to release (RTL host syncs: host time included)
  uint64_t words = 0;                         // exchanged (emulator's count)
};

struct CosimResult {
  bool ok = false;                       // everything equal, every program ran to its end
  std::optional<CosimMismatch> mismatch;  // the first memory difference
  std::string error;                     // what went wrong otherwise (events, outputs, a device error)
  uint32_t compared = 0;                 // memory comparisons made (supersteps, host syncs, ends)
  std::vector<CosimStep> steps;          // every superstep that ended in a release
  uint64_t rtl_cycles = 0;
  double seconds = 0;
};

// Runs `e` (for VltMachine::target()) on both; stops at the first difference.
CosimResult cosimulate(const exe::Executable& e, const CosimOptions& options);

// "program 'p', superstep 3 (release): tile 2, address 0x0001fffc: emulator 0x00000000, RTL 0xdeadbeef (1 word differs)".
std::string describe(const CosimMismatch& m);

// The RTL's compute phase ends when the NIs have seen every tile's arrival, which is when
// the SYNC store retires: the tile pipeline's constant depth after the cycle the ISS counts
// (its issue). The tile RTL is otherwise cycle-exact to the ISS's model (rtl.isa.*).
inline constexpr uint64_t kArrivalPipelineCycles = 6;

// Prints the calibration table of `steps` (compute and barrier cycles, emulator vs RTL, the
// compute error per superstep) to `out`; returns the worst relative compute-phase error
// |(rtl - offset) - emu| / emu, over compute phases of at least `min_cycles` emulator cycles.
double print_calibration(const std::vector<CosimStep>& steps, std::FILE* out, uint64_t min_cycles = 0,
                         uint64_t offset = kArrivalPipelineCycles);

}  // namespace TESSERA_VLT_MACHINE_NS
}  // namespace tessera::vlt
