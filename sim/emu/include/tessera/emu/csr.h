// Machine-mode CSRs of a Tessera tile core, and the trap causes. docs/isa.md lists each
// CSR's reset and legal values.
#pragma once

#include <cstdint>

namespace tessera::emu {

enum Csr : uint32_t {
  kCsrFflags = 0x001, kCsrFrm = 0x002, kCsrFcsr = 0x003,
  kCsrCycle = 0xC00, kCsrInstret = 0xC02, kCsrCycleh = 0xC80, kCsrInstreth = 0xC82,
  kCsrMstatus = 0x300, kCsrMisa = 0x301, kCsrMie = 0x304, kCsrMtvec = 0x305,
  kCsrMstatush = 0x310,
  kCsrMscratch = 0x340, kCsrMepc = 0x341, kCsrMcause = 0x342, kCsrMtval = 0x343, kCsrMip = 0x344,
  kCsrMcycle = 0xB00, kCsrMinstret = 0xB02, kCsrMcycleh = 0xB80, kCsrMinstreth = 0xB82,
  kCsrMhpmcounter3 = 0xB03, kCsrMhpmcounter31 = 0xB1F,
  kCsrMhpmcounter3h = 0xB83, kCsrMhpmcounter31h = 0xB9F,
  kCsrMhpmevent3 = 0x323, kCsrMhpmevent31 = 0x33F,
  kCsrMcountinhibit = 0x320,
  kCsrMvendorid = 0xF11, kCsrMarchid = 0xF12, kCsrMimpid = 0xF13, kCsrMhartid = 0xF14,
  kCsrMconfigptr = 0xF15,
};

// mstatus fields implemented (all others read zero).
inline constexpr uint32_t kMstatusMie = 1u << 3;
inline constexpr uint32_t kMstatusMpie = 1u << 7;
inline constexpr uint32_t kMstatusMpp = 3u << 11;  // hardwired to 3: machine mode only
inline constexpr uint32_t kMstatusFs = 3u << 13;
inline constexpr uint32_t kMstatusFsDirty = 3u << 13;
inline constexpr uint32_t kMstatusSd = 1u << 31;
inline constexpr uint32_t kMieMask = (1u << 3) | (1u << 7) | (1u << 11);  // MSIE, MTIE, MEIE
inline constexpr uint32_t kMisa = (1u << 30) | (1u << 12) | (1u << 8) | (1u << 5);  // RV32 I M F
inline constexpr uint32_t kMimpid = 0x00010000;  // Tessera tile core v1.0
inline constexpr uint32_t kMtvecReset = 0;       // a trap while mtvec holds this halts the tile

enum TrapCause : uint32_t {
  kCauseMisalignedFetch = 0,
  kCauseFetchAccess = 1,
  kCauseIllegalInstruction = 2,
  kCauseBreakpoint = 3,
  kCauseMisalignedLoad = 4,
  kCauseLoadAccess = 5,
  kCauseMisalignedStore = 6,
  kCauseStoreAccess = 7,
  kCauseEcallM = 11,
};

// Name of a CSR for the disassembler, or nullptr if it has none.
const char* csr_name(uint32_t num);
// Name of a trap cause ("illegal instruction").
const char* cause_name(uint32_t cause);

}  // namespace tessera::emu
