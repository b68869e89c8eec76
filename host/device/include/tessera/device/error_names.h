// Short names of the device error codes of arch/device_regs.toml (ERR_CAUSE = 0x4000_0000 |
// code) and the account of the first error from the ERR_* registers: the error_detail() of
// backends that have nothing more to say (the Verilated machine, the Alveo card).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "tessera/arch/device_regs.h"
#include "tessera/device/device.h"

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

// The first error as the ERR_* registers of `d` tell it ("tile 3: words lost (received 12
// words) in superstep 7 (RTL)"), empty unless STATE is error; `where` names the backend.
// Register reads only: nothing the device holds changes in the error state.
inline std::string describe_error_registers(Device& d, const std::string& where) {
  const auto hex = [](uint32_t v) {
    char b[16];
    std::snprintf(b, sizeof b, "0x%08x", v);
    return std::string(b);
  };
  if (d.read_reg(arch::kDevRegState) != kStateError) return {};
  const uint32_t cause = d.read_reg(arch::kDevRegErrCause), tile = d.read_reg(arch::kDevRegErrTile);
  const uint32_t ss = d.read_reg(arch::kDevRegErrSuperstep), detail = d.read_reg(arch::kDevRegErrDetail);
  if (cause == arch::kDeviceErrorBit) return "aborted by the host at superstep " + std::to_string(ss);
  std::string s = "tile " + std::to_string(tile) + ": ";
  if (cause & arch::kDeviceErrorBit) {
    const uint32_t code = cause & ~arch::kDeviceErrorBit;
    s += device_error_name(code);
    if (code == arch::kDevErrRecvLost || code == arch::kDevErrRecvDuplicated)
      s += " (received " + std::to_string(detail) + " words)";
    else if (detail)
      s += " (detail " + hex(detail) + ")";
  } else {
    s += "trap, mcause " + hex(cause) + " at pc " + hex(d.read_reg(arch::kDevRegErrPc)) + " (mtval " +
         hex(d.read_reg(arch::kDevRegErrTval)) + ")";
  }
  return s + " in superstep " + std::to_string(ss) + " (" + where + ")";
}

}  // namespace tessera::device
