// Machine-mode CSRs: which exist, their legal values (WARL fields), and their names.
// docs/isa.md is the prose version of this file.
#include <array>
#include <cstdint>
#include <string>
#include <utility>

#include "tessera/emu/csr.h"
#include "tessera/emu/hart.h"

namespace tessera::emu {

bool Hart::csr_read(uint32_t num, uint32_t& v) const {
  const bool fp_on = mstatus_ & kMstatusFs;
  switch (num) {
    case kCsrFflags: v = fflags_; return fp_on;
    case kCsrFrm: v = frm_; return fp_on;
    case kCsrFcsr: v = frm_ << 5 | fflags_; return fp_on;
    case kCsrMstatus:
      v = mstatus_ | ((mstatus_ & kMstatusFs) == kMstatusFsDirty ? kMstatusSd : 0);
      return true;
    case kCsrMstatush: v = 0; return true;
    case kCsrMisa: v = kMisa; return true;
    case kCsrMie: v = mie_; return true;
    case kCsrMip: v = 0; return true;  // no interrupt sources in v1
    case kCsrMtvec: v = mtvec_; return true;
    case kCsrMscratch: v = mscratch_; return true;
    case kCsrMepc: v = mepc_; return true;
    case kCsrMcause: v = mcause_; return true;
    case kCsrMtval: v = mtval_; return true;
    case kCsrCycle: case kCsrMcycle: v = static_cast<uint32_t>(cycle_); return true;
    case kCsrCycleh: case kCsrMcycleh: v = static_cast<uint32_t>(cycle_ >> 32); return true;
    case kCsrInstret: case kCsrMinstret: v = static_cast<uint32_t>(instret_); return true;
    case kCsrInstreth: case kCsrMinstreth: v = static_cast<uint32_t>(instret_ >> 32); return true;
    case kCsrMcountinhibit: v = 0; return true;
    case kCsrMvendorid: v = 0; return true;  // non-commercial implementation
    case kCsrMarchid: v = 0; return true;
    case kCsrMimpid: v = kMimpid; return true;
    case kCsrMhartid: v = 0; return true;    // every tile is hart 0; TILE_ID tells tiles apart
    case kCsrMconfigptr: v = 0; return true;
    default: break;
  }
  // Performance counters and their event selectors: present, hardwired to zero.
  if ((num >= kCsrMhpmcounter3 && num <= kCsrMhpmcounter31) ||
      (num >= kCsrMhpmcounter3h && num <= kCsrMhpmcounter31h) ||
      (num >= kCsrMhpmevent3 && num <= kCsrMhpmevent31)) {
    v = 0;
    return true;
  }
  return false;
}

bool Hart::csr_write(uint32_t num, uint32_t v) {
  switch (num) {
    case kCsrFflags: fflags_ = v & 0x1f; mstatus_ |= kMstatusFsDirty; return true;
    case kCsrFrm: frm_ = v & 7; mstatus_ |= kMstatusFsDirty; return true;
    case kCsrFcsr:
      fflags_ = v & 0x1f;
      frm_ = (v >> 5) & 7;
      mstatus_ |= kMstatusFsDirty;
      return true;
    case kCsrMstatus:
      mstatus_ = (v & (kMstatusMie | kMstatusMpie | kMstatusFs)) | kMstatusMpp;
      return true;
    case kCsrMstatush: case kCsrMisa: case kCsrMip: case kCsrMcountinhibit:
    case kCsrMconfigptr:
      return true;  // WARL, read-only in this implementation
    case kCsrMie: mie_ = v & kMieMask; return true;
    case kCsrMtvec: mtvec_ = v & ~3u; return true;  // direct mode only
    case kCsrMscratch: mscratch_ = v; return true;
    case kCsrMepc: mepc_ = v & ~3u; return true;    // IALIGN = 32
    case kCsrMcause: mcause_ = v; return true;
    case kCsrMtval: mtval_ = v; return true;
    // The value written is what the next instruction reads: the writing instruction's own
    // increment (done when it retires) is taken off in advance.
    case kCsrMcycle: cycle_ = ((cycle_ & ~0xffffffffull) | v) - 1; return true;
    case kCsrMcycleh: cycle_ = ((cycle_ & 0xffffffffull) | uint64_t{v} << 32) - 1; return true;
    case kCsrMinstret: instret_ = ((instret_ & ~0xffffffffull) | v) - 1; return true;
    case kCsrMinstreth: instret_ = ((instret_ & 0xffffffffull) | uint64_t{v} << 32) - 1; return true;
    default: break;
  }
  uint32_t ignored;
  return csr_read(num, ignored);  // the hardwired-zero counters accept and drop writes
}

// Names as GNU objdump prints them (it knows the counters and delegation registers, but
// not mstatush or mconfigptr), so that our disassembly reads the same.
const char* csr_name(uint32_t num) {
  static const std::array<std::string, 4096> names = [] {
    std::array<std::string, 4096> n;
    const std::pair<uint32_t, const char*> fixed[] = {
        {0x001, "fflags"},   {0x002, "frm"},       {0x003, "fcsr"},     {0xC00, "cycle"},
        {0xC01, "time"},     {0xC02, "instret"},   {0xC80, "cycleh"},   {0xC81, "timeh"},
        {0xC82, "instreth"}, {0x300, "mstatus"},   {0x301, "misa"},     {0x302, "medeleg"},
        {0x303, "mideleg"},  {0x304, "mie"},       {0x305, "mtvec"},    {0x306, "mcounteren"},
        {0x320, "mcountinhibit"}, {0x340, "mscratch"}, {0x341, "mepc"}, {0x342, "mcause"},
        {0x343, "mtval"},    {0x344, "mip"},       {0xB00, "mcycle"},   {0xB02, "minstret"},
        {0xB80, "mcycleh"},  {0xB82, "minstreth"}, {0xF11, "mvendorid"}, {0xF12, "marchid"},
        {0xF13, "mimpid"},   {0xF14, "mhartid"}};
    for (auto [num, name] : fixed) n[num] = name;
    for (uint32_t i = 3; i <= 31; ++i) {
      n[0xC00 + i] = "hpmcounter" + std::to_string(i);
      n[0xC80 + i] = "hpmcounter" + std::to_string(i) + "h";
      n[0xB00 + i] = "mhpmcounter" + std::to_string(i);
      n[0xB80 + i] = "mhpmcounter" + std::to_string(i) + "h";
      n[0x320 + i] = "mhpmevent" + std::to_string(i);
    }
    return n;
  }();
  return num < names.size() && !names[num].empty() ? names[num].c_str() : nullptr;
}

const char* cause_name(uint32_t cause) {
  switch (cause) {
    case kCauseMisalignedFetch: return "instruction address misaligned";
    case kCauseFetchAccess: return "instruction access fault";
    case kCauseIllegalInstruction: return "illegal instruction";
    case kCauseBreakpoint: return "breakpoint";
    case kCauseMisalignedLoad: return "load address misaligned";
    case kCauseLoadAccess: return "load access fault";
    case kCauseMisalignedStore: return "store address misaligned";
    case kCauseStoreAccess: return "store access fault";
    case kCauseEcallM: return "environment call from M-mode";
    default: return "unknown cause";
  }
}

}  // namespace tessera::emu
