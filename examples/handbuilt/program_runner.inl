// The run loop of ProgramBuilder's programs (a template, so it lives in a header).
#pragma once

#include <stdexcept>

#include "tessera/arch/device_regs.h"

namespace tessera::handbuilt {

template <typename F>
void run(device::Device& dev, F&& on_host_sync, int timeout_ms) {
  using namespace device;
  dev.write_reg(arch::kDevRegControl, kControlStart);
  for (uint32_t sync = 0;;) {
    const uint32_t ev = dev.wait_event(kEventHostSync | kEventAllHalted | kEventError,
                                       std::chrono::milliseconds(timeout_ms));
    if (ev & kEventError) throw std::runtime_error(describe_error(dev));
    if (ev & kEventAllHalted) return;
    if (ev & kEventHostSync) {
      on_host_sync(sync++);
      dev.write_reg(arch::kDevRegEvents, kEventHostSync);
      dev.write_reg(arch::kDevRegDoorbell, 1);
      continue;
    }
    throw std::runtime_error("device hung: " + describe_not_arrived(dev));
  }
}

}  // namespace tessera::handbuilt
