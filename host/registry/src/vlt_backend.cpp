// vlt: the Verilated machine of the executable's target (built only when this build has
// Verilated machines, tessera_vlt_devices).
#include "lazy_device.h"
#include "tessera/registry/registry.h"
#include "tessera/vlt/devices.h"

namespace tessera::registry {

namespace {

class VltDevice final : public LazyDevice {
 public:
  explicit VltDevice(const Options& options)
      : LazyDevice("the Verilated machine"), console_(options.console) {}

 protected:
  std::unique_ptr<device::Device> build(std::string_view target,
                                        std::span<const std::byte> firmware) override {
    try {
      return vlt::make_machine(
          target,
          exe::parse_elf(
              std::span(reinterpret_cast<const uint8_t*>(firmware.data()), firmware.size()),
              std::string(target) + " firmware"),
          console_);
    } catch (const std::runtime_error& e) {
      throw device::DeviceError(std::string("configure: ") + e.what());
    }
  }

 private:
  std::FILE* console_;
};

}  // namespace

std::unique_ptr<device::Device> make_vlt(const DeviceUri&, const Options& options) {
  return std::make_unique<VltDevice>(options);
}

// The RTL's profile of the machine the last configure() built (looked up when called, since
// configure() may replace it); unset when `device` is not a vlt device.
std::function<std::vector<runtime::SuperstepCycles>()> vlt_profile_source(device::Device& device) {
  auto* vlt = dynamic_cast<VltDevice*>(&device);
  if (!vlt) return {};
  return [vlt]() -> std::vector<runtime::SuperstepCycles> {
    device::Device* machine = vlt->inner_or_null();
    if (!machine) return {};
    const auto source = vlt::profile_source(*machine);
    return source ? source() : std::vector<runtime::SuperstepCycles>{};
  };
}

}  // namespace tessera::registry
