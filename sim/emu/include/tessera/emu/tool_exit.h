// Exit statuses of the tools that run one bare-metal ELF on one tile (tessera-emu on the
// emulator, tessera-vlt on the tile RTL), chosen so that the tool's own outcomes can never be
// mistaken for the guest program's status (docs/isa.md, "Exit status"):
//   0        the program passed (tohost or EXIT status 0)
//   1..63    the program failed with that status (63: status 63 or more; the exact
//            status is printed on stderr)
//   64..67   the tool's own outcomes, below; no guest status maps there
#pragma once

#include <cstdint>

namespace tessera::emu {

enum ToolExit : int {
  kToolExitUsage = 64,     // bad command line
  kToolExitBadElf = 65,    // the ELF cannot be read (missing, a directory) or is malformed
  kToolExitTrap = 66,      // the tile halted on a trap it could not handle, or a bad HTIF command
  kToolExitLimit = 67,     // the instruction (or cycle) limit came first
};

inline constexpr int kGuestStatusMax = 63;

// The exit status for a guest's tohost/EXIT status.
constexpr int guest_exit_status(uint32_t status) {
  return status < kGuestStatusMax ? static_cast<int>(status) : kGuestStatusMax;
}

}  // namespace tessera::emu
