// Short names of the device error codes of arch/device_regs.toml (ERR_CAUSE = 0x4000_0000 |
// code), for the error_detail() of backends that build it from the ERR_* registers (the
// Verilated machine, the Alveo card).
#pragma once

#include <cstdint>

#include "tessera/arch/device_regs.h"

namespace tessera::device {

inline const char* device_error_name(uint32_t code) {
  switch (code) {
    case arch::kDevErrXchgDoubleWrite: return "double write";
    case arch::kDevErrXchgWriteSource: return "write into a send list's source";
    case arch::kDevErrXchgWriteProtected: return "write into firmware memory";
    case arch::kDevErrXchgBadDestination: return "bad destination";
    case arch::kDevErrXchgBadSource: return "bad source";
    case arch::kDevErrRecvLost: return "words lost";
    case arch::kDevErrRecvDuplicated: return "words duplicated";
    case arch::kDevErrHaltedAtBarrier: return "tile halted at a barrier";
    case arch::kDevErrSyncMismatch: return "sync kinds disagree";
    case arch::kDevErrExitError: return "non-zero exit";
    case arch::kDevErrHostDma: return "bad host DMA";
    default: return "device error";
  }
}

}  // namespace tessera::device
