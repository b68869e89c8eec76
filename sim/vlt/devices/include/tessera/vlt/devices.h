// The verilated machines of this build, by target: what `tessera run --device vlt` opens.
// Each target in TESSERA_VLT_MACHINE_TARGETS is its own model (sim/vlt/machine), with its
// harness in an inline namespace of its own, so that one program can link them all.
#pragma once

#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/device/device.h"
#include "tessera/exe/elf.h"
#include "tessera/runtime/engine.h"
#include "tessera/vlt/kernel_sim.h"

namespace tessera::vlt {

// The targets this build verilated, in the order TESSERA_VLT_MACHINE_TARGETS gives them.
std::vector<std::string> machine_targets();

// A verilated machine of `target` with `firmware` loaded (the cores held in reset, as
// emu::Machine::load_firmware leaves them), its tiles' CONSOLE bytes to `console`. Throws
// std::runtime_error naming the targets this build has when `target` is not one of them.
std::unique_ptr<device::Device> make_machine(std::string_view target, const exe::ElfImage& firmware,
                                             std::FILE* console);

// The kernel of `target` alone, its host streams served by `streams` (kernel_sim.h; the
// card's simulation, host/card). Same error as make_machine for a target this build lacks.
std::unique_ptr<KernelSim> make_kernel(std::string_view target, HostStreams& streams, std::FILE* console);

// The RTL's per-superstep profile of `device`'s last run (VltMachine::superstep_cycles: every
// tile's cycles to its arrival, the barrier's cycles, the words exchanged) for the Engine
// (EngineOptions::profile_source), when `device` is a machine make_machine built; unset
// otherwise. The source reads the machine when called, so it must not outlive it.
std::function<std::vector<runtime::SuperstepCycles>()> profile_source(device::Device& device);

}  // namespace tessera::vlt
