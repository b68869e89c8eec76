// Disassembly from the operand format of each op (insns.def), so that what the ISS runs
// and what it prints come from one table. The text follows GNU objdump -M no-aliases
// (tests/emu/disasm_test.cpp holds the two to each other).
#include "tessera/emu/disasm.h"

#include <cstdio>

#include "tessera/emu/csr.h"
#include "tessera/emu/decode.h"

namespace tessera::emu {

const char* xreg_name(unsigned i) {
  static const char* const kNames[32] = {
      "zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0",  "a1",  "a2", "a3", "a4", "a5",
      "a6",   "a7", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6"};
  return kNames[i & 31];
}

const char* freg_name(unsigned i) {
  static const char* const kNames[32] = {
      "ft0", "ft1", "ft2",  "ft3",  "ft4", "ft5", "ft6",  "ft7",  "fs0", "fs1", "fa0",
      "fa1", "fa2", "fa3",  "fa4",  "fa5", "fa6", "fa7",  "fs2",  "fs3", "fs4", "fs5",
      "fs6", "fs7", "fs8",  "fs9",  "fs10", "fs11", "ft8", "ft9", "ft10", "ft11"};
  return kNames[i & 31];
}

namespace {

const char* rm_name(unsigned rm) {
  static const char* const kNames[8] = {"rne", "rtz", "rdn", "rup", "rmm", "rm5", "rm6", "dyn"};
  return kNames[rm & 7];
}

std::string fence_set(unsigned bits4) {
  std::string s;
  if (bits4 & 8) s += 'i';
  if (bits4 & 4) s += 'o';
  if (bits4 & 2) s += 'r';
  if (bits4 & 1) s += 'w';
  return s.empty() ? "unknown" : s;  // as objdump prints an empty set
}

std::string csr_text(int32_t num) {
  if (const char* name = csr_name(static_cast<uint32_t>(num))) return name;
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%03x", static_cast<unsigned>(num));
  return buf;
}

}  // namespace

std::string disassemble(uint32_t raw, uint32_t pc) {
  const Decoded d = decode(raw);
  char buf[96];
  const char* n = op_name(d.op);
  const char *X = xreg_name(d.rd), *X1 = xreg_name(d.rs1), *X2 = xreg_name(d.rs2);
  const char *F = freg_name(d.rd), *F1 = freg_name(d.rs1), *F2 = freg_name(d.rs2),
             *F3 = freg_name(d.rs3);
  // A dynamic rounding mode is the assembler's default and is not printed.
  std::string rm = d.rm == 7 ? "" : std::string(", ") + rm_name(d.rm);
  const unsigned target = pc + static_cast<uint32_t>(d.imm);
  switch (d.op == Op::kIllegal ? Format::None : op_format(d.op)) {
    case Format::U: std::snprintf(buf, sizeof buf, "%s %s, 0x%x", n, X, static_cast<uint32_t>(d.imm) >> 12); break;
    case Format::J: std::snprintf(buf, sizeof buf, "%s %s, %x", n, X, target); break;
    case Format::Jr:
    case Format::Load: std::snprintf(buf, sizeof buf, "%s %s, %d(%s)", n, X, d.imm, X1); break;
    case Format::B: std::snprintf(buf, sizeof buf, "%s %s, %s, %x", n, X1, X2, target); break;
    case Format::Store: std::snprintf(buf, sizeof buf, "%s %s, %d(%s)", n, X2, d.imm, X1); break;
    case Format::I: std::snprintf(buf, sizeof buf, "%s %s, %s, %d", n, X, X1, d.imm); break;
    case Format::Shift: std::snprintf(buf, sizeof buf, "%s %s, %s, 0x%x", n, X, X1, d.imm); break;
    case Format::R: std::snprintf(buf, sizeof buf, "%s %s, %s, %s", n, X, X1, X2); break;
    case Format::Fence:
      std::snprintf(buf, sizeof buf, "%s %s, %s", n, fence_set(d.imm >> 4).c_str(), fence_set(d.imm & 15).c_str());
      break;
    case Format::None:
      if (d.op == Op::kIllegal) std::snprintf(buf, sizeof buf, "unknown 0x%08x", raw);
      else std::snprintf(buf, sizeof buf, "%s", n);
      break;
    case Format::Csr: std::snprintf(buf, sizeof buf, "%s %s, %s, %s", n, X, csr_text(d.imm).c_str(), X1); break;
    case Format::CsrI: std::snprintf(buf, sizeof buf, "%s %s, %s, %u", n, X, csr_text(d.imm).c_str(), d.rs1); break;
    case Format::FLoad: std::snprintf(buf, sizeof buf, "%s %s, %d(%s)", n, F, d.imm, X1); break;
    case Format::FStore: std::snprintf(buf, sizeof buf, "%s %s, %d(%s)", n, F2, d.imm, X1); break;
    case Format::FR4: std::snprintf(buf, sizeof buf, "%s %s, %s, %s, %s%s", n, F, F1, F2, F3, rm.c_str()); break;
    case Format::FRm: std::snprintf(buf, sizeof buf, "%s %s, %s, %s%s", n, F, F1, F2, rm.c_str()); break;
    case Format::FR1m: std::snprintf(buf, sizeof buf, "%s %s, %s%s", n, F, F1, rm.c_str()); break;
    case Format::FR: std::snprintf(buf, sizeof buf, "%s %s, %s, %s", n, F, F1, F2); break;
    case Format::XFm: std::snprintf(buf, sizeof buf, "%s %s, %s%s", n, X, F1, rm.c_str()); break;
    case Format::XF: std::snprintf(buf, sizeof buf, "%s %s, %s", n, X, F1); break;
    case Format::XFF: std::snprintf(buf, sizeof buf, "%s %s, %s, %s", n, X, F1, F2); break;
    case Format::FXm: std::snprintf(buf, sizeof buf, "%s %s, %s%s", n, F, X1, rm.c_str()); break;
    case Format::FX: std::snprintf(buf, sizeof buf, "%s %s, %s", n, F, X1); break;
  }
  return buf;
}

}  // namespace tessera::emu
