// Instruction decoding for the RV32IMF ISS: raw word -> Decoded, driven by insns.def.
#pragma once

#include <cstdint>

#include "tessera/arch/latency.h"

namespace tessera::emu {

// Operand shapes. X = integer register, F = float register, m = has a rounding mode.
enum class Format : uint8_t {
  U,       // rd, imm20
  J,       // rd, target
  Jr,      // rd, imm(rs1)
  B,       // rs1, rs2, target
  Load,    // rd, imm(rs1)
  Store,   // rs2, imm(rs1)
  I,       // rd, rs1, imm
  Shift,   // rd, rs1, shamt
  R,       // rd, rs1, rs2
  Fence,   // pred, succ
  None,    // no operands
  Csr,     // rd, csr, rs1
  CsrI,    // rd, csr, uimm5 (in the rs1 field)
  FLoad,   // fd, imm(rs1)
  FStore,  // fs2, imm(rs1)
  FR4,     // fd, fs1, fs2, fs3, rm
  FRm,     // fd, fs1, fs2, rm
  FR1m,    // fd, fs1, rm
  FR,      // fd, fs1, fs2
  XFm,     // rd, fs1, rm
  XF,      // rd, fs1
  XFF,     // rd, fs1, fs2
  FXm,     // fd, rs1, rm
  FX,      // fd, rs1
};

enum class Op : uint16_t {
  kIllegal = 0,
#define INSN(id, name, fmt, mask, match, klass, ...) id,
#include "tessera/emu/insns.def"
#undef INSN
  kCount
};

// Register slots of the cycle model's scoreboard: x0-x31, then f0-f31, then a source
// that is always ready, a sink for results nobody waits on (x0, or no destination), and
// fflags: the FP classes with a pipeline (fadd fmul fma fcvt fdiv fsqrt) write it with
// their result latency and every CSR instruction reads it (docs/tile-rtl.md).
inline constexpr uint8_t kSlotF = 32, kSlotNone = 64, kSlotSink = 65, kSlotFflags = 66,
                         kSlotCount = 67;

// One decoded instruction. `raw` doubles as the tag of the ISS's decode cache.
struct Decoded {
  uint32_t raw = 0;
  Op op = Op::kIllegal;
  uint8_t rd = 0, rs1 = 0, rs2 = 0, rs3 = 0;
  uint8_t rm = 0;       // the instruction's rounding-mode field (7 = dynamic)
  int32_t imm = 0;      // sign-extended; shifted for U, B, J; CSR number for Csr/CsrI
  // For the cycle model: scoreboard slots read and written, and the class's latencies
  // (arch/latency.toml), copied here so the hot loop needs no table lookup.
  uint8_t src[3] = {kSlotNone, kSlotNone, kSlotNone};
  uint8_t dst = kSlotSink;
  uint8_t dst2 = kSlotSink;  // kSlotFflags for FP instructions whose flags come late
  arch::Latency lat = arch::kLatency[0];
};

Decoded decode(uint32_t raw);

// Static facts about an op, from insns.def.
const char* op_name(Op op);
Format op_format(Op op);
arch::InsnClass op_class(Op op);
uint32_t op_mask(Op op);
uint32_t op_match(Op op);

}  // namespace tessera::emu
