// emu and emu-native: the emulator, configured with the executable's firmware (it learns the
// entry point and the firmware's layout from it; the Engine still DMAs the image like any
// loader).
#include "emu_backend.h"

#include "tessera/arch/targets.h"

namespace tessera::registry {

std::unique_ptr<device::Device> EmuDevice::build(std::string_view target,
                                                 std::span<const std::byte> firmware) {
  emu::MachineOptions o;
  o.target = arch::find_target(target);
  if (!o.target)
    throw device::DeviceError("configure: unknown target '" + std::string(target) +
                              "' (targets: " + arch::target_names() + ")");
  o.mode = mode_;
  o.threads = options_.threads;
  o.console = options_.console;
  auto m = std::make_unique<emu::Machine>(o);
  try {
    m->load_firmware(exe::parse_elf(
        std::span(reinterpret_cast<const uint8_t*>(firmware.data()), firmware.size()),
        std::string(target) + " firmware"));
  } catch (const exe::ElfError& e) {
    throw device::DeviceError(std::string("configure: ") + e.what());
  }
  return m;
}

std::unique_ptr<device::Device> make_emu(const DeviceUri& uri, const Options& options) {
  return std::make_unique<EmuDevice>(
      uri.scheme == "emu-native" ? emu::Mode::kNative : emu::Mode::kIss, options);
}

}  // namespace tessera::registry
