// The table of verilated machines (machine_table.inc, generated) and the factory over it.
#include "tessera/vlt/devices.h"

#include <stdexcept>

namespace tessera::vlt {

namespace {
struct MachineEntry {
  std::string_view target;
  std::unique_ptr<device::Device> (*make)(const exe::ElfImage& firmware, std::FILE* console);
  std::unique_ptr<KernelSim> (*make_kernel)(HostStreams& streams, std::FILE* console);
  std::function<std::vector<runtime::SuperstepCycles>()> (*profile_source)(device::Device& device);
};
}  // namespace

#include "machine_table.inc"

std::vector<std::string> machine_targets() {
  std::vector<std::string> names;
  for (const MachineEntry& m : kMachines) names.emplace_back(m.target);
  return names;
}

namespace {
[[noreturn]] void no_machine(std::string_view target) {
  std::string known;
  for (const MachineEntry& m : kMachines) known += (known.empty() ? "" : ", ") + std::string(m.target);
  throw std::runtime_error("no verilated machine for target '" + std::string(target) + "' in this build (it has " +
                           (known.empty() ? std::string("none") : known) +
                           "; TESSERA_VLT_MACHINE_TARGETS chooses them, emulator-only targets have none)");
}
}  // namespace

std::unique_ptr<device::Device> make_machine(std::string_view target, const exe::ElfImage& firmware,
                                             std::FILE* console) {
  for (const MachineEntry& m : kMachines)
    if (m.target == target) return m.make(firmware, console);
  no_machine(target);
}

std::unique_ptr<KernelSim> make_kernel(std::string_view target, HostStreams& streams, std::FILE* console) {
  for (const MachineEntry& m : kMachines)
    if (m.target == target) return m.make_kernel(streams, console);
  no_machine(target);
}

std::function<std::vector<runtime::SuperstepCycles>()> profile_source(device::Device& device) {
  for (const MachineEntry& m : kMachines)
    if (auto source = m.profile_source(device)) return source;
  return {};
}

}  // namespace tessera::vlt
