// The optional bridge from the emulator's profile to the Engine's: header only, so that
// tessera_runtime itself depends on no backend. Include it (and link tessera_emu) where an
// emu::Machine is the device:
//   runtime::EngineOptions o;
//   o.profile_source = runtime::emu_profile_source(machine);
#pragma once

#include <functional>
#include <vector>

#include "tessera/emu/machine.h"
#include "tessera/runtime/engine.h"

namespace tessera::runtime {

// Reads Machine::profile() (cleared at every reset, so it is the last run's); empty in
// native mode, which counts no cycles.
inline std::function<std::vector<SuperstepCycles>()> emu_profile_source(const emu::Machine& m) {
  return [&m] {
    std::vector<SuperstepCycles> out;
    if (m.mode() != emu::Mode::kIss) return out;
    for (const emu::SuperstepProfile& p : m.profile())
      out.push_back({p.superstep, p.kind, p.compute_cycles, p.exchange_cycles, p.exchange_words, p.tile_cycles});
    return out;
  };
}

}  // namespace tessera::runtime
