// The verilated machines of this build, by target: what `tessera run --device vlt` opens.
// Each target in TESSERA_VLT_MACHINE_TARGETS is its own model (sim/vlt/machine), with its
// harness in an inline namespace of its own, so that one program can link them all.
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/device/device.h"
#include "tessera/exe/elf.h"
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

}  // namespace tessera::vlt
