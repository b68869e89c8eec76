// emu and emu-native: the emulator, a Machine made by configure().
#pragma once

#include "lazy_device.h"
#include "tessera/emu/machine.h"
#include "tessera/registry/registry.h"

namespace tessera::registry {

class EmuDevice final : public LazyDevice {
 public:
  EmuDevice(emu::Mode mode, const Options& options)
      : LazyDevice("the emulator"), mode_(mode), options_(options) {}
  // The machine of the last configure(); nullptr before the first.
  emu::Machine* machine() const { return static_cast<emu::Machine*>(inner_or_null()); }

 protected:
  std::unique_ptr<device::Device> build(std::string_view target,
                                        std::span<const std::byte> firmware) override;

 private:
  emu::Mode mode_;
  Options options_;
};

std::unique_ptr<device::Device> make_emu(const DeviceUri& uri, const Options& options);

}  // namespace tessera::registry
