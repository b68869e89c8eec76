// Decoding by the mask/match table of insns.def. Decoding is done once per distinct word
// (the ISS caches the result), so a linear scan of the table is fast enough.
#include "tessera/emu/decode.h"

#include <cstddef>

namespace tessera::emu {
namespace {

struct OpInfo {
  const char* name;
  Format format;
  uint32_t mask, match;
  arch::InsnClass klass;
};

constexpr OpInfo kOps[] = {
    {"unknown", Format::None, 0, 1, arch::InsnClass::kAlu},
#define INSN(id, name, fmt, mask, match, klass, ...) \
  {name, Format::fmt, mask, match, arch::InsnClass::k##klass},
#include "tessera/emu/insns.def"
#undef INSN
};
static_assert(sizeof(kOps) / sizeof(kOps[0]) == static_cast<size_t>(Op::kCount));

constexpr uint32_t bits(uint32_t v, int hi, int lo) { return (v >> lo) & ((1u << (hi - lo + 1)) - 1); }
constexpr int32_t sext(uint32_t v, int width) {
  return static_cast<int32_t>(v << (32 - width)) >> (32 - width);
}

int32_t immediate(Format f, uint32_t raw) {
  switch (f) {
    case Format::U: return static_cast<int32_t>(raw & 0xfffff000u);
    case Format::J:
      return sext(bits(raw, 31, 31) << 20 | bits(raw, 19, 12) << 12 | bits(raw, 20, 20) << 11 |
                      bits(raw, 30, 21) << 1, 21);
    case Format::B:
      return sext(bits(raw, 31, 31) << 12 | bits(raw, 7, 7) << 11 | bits(raw, 30, 25) << 5 |
                      bits(raw, 11, 8) << 1, 13);
    case Format::Store:
    case Format::FStore: return sext(bits(raw, 31, 25) << 5 | bits(raw, 11, 7), 12);
    case Format::Shift: return static_cast<int32_t>(bits(raw, 24, 20));
    case Format::Csr:
    case Format::CsrI: return static_cast<int32_t>(bits(raw, 31, 20));
    case Format::Fence: return static_cast<int32_t>(bits(raw, 27, 20));  // pred:succ
    case Format::Jr:
    case Format::Load:
    case Format::I:
    case Format::FLoad: return sext(bits(raw, 31, 20), 12);
    default: return 0;
  }
}

// Which register files an operand format reads and writes, for the scoreboard.
void set_slots(Decoded& d, Format f) {
  const uint8_t x1 = d.rs1, x2 = d.rs2, f1 = kSlotF + d.rs1, f2 = kSlotF + d.rs2, f3 = kSlotF + d.rs3;
  const uint8_t xd = d.rd ? d.rd : kSlotSink, fd = kSlotF + d.rd;
  auto set = [&](uint8_t a, uint8_t b, uint8_t c, uint8_t dst) {
    d.src[0] = a;
    d.src[1] = b;
    d.src[2] = c;
    d.dst = dst;
  };
  constexpr uint8_t N = kSlotNone, S = kSlotSink;
  switch (f) {
    case Format::U: case Format::J: set(N, N, N, xd); break;
    case Format::CsrI: set(kSlotFflags, N, N, xd); break;
    case Format::Csr: set(x1, kSlotFflags, N, xd); break;
    case Format::Jr: case Format::Load: case Format::I: case Format::Shift: set(x1, N, N, xd); break;
    case Format::B: case Format::Store: set(x1, x2, N, S); break;
    case Format::R: set(x1, x2, N, xd); break;
    case Format::Fence: case Format::None: set(N, N, N, S); break;
    case Format::FLoad: set(x1, N, N, fd); break;
    case Format::FStore: set(x1, f2, N, S); break;
    case Format::FR4: set(f1, f2, f3, fd); break;
    case Format::FRm: case Format::FR: set(f1, f2, N, fd); break;
    case Format::FR1m: set(f1, N, N, fd); break;
    case Format::XFm: case Format::XF: set(f1, N, N, xd); break;
    case Format::XFF: set(f1, f2, N, xd); break;
    case Format::FXm: case Format::FX: set(x1, N, N, fd); break;
  }
}

}  // namespace

Decoded decode(uint32_t raw) {
  Decoded d;
  d.raw = raw;
  for (size_t i = 1; i < static_cast<size_t>(Op::kCount); ++i) {
    if ((raw & kOps[i].mask) == kOps[i].match) {
      d.op = static_cast<Op>(i);
      break;
    }
  }
  d.rd = bits(raw, 11, 7);
  d.rs1 = bits(raw, 19, 15);
  d.rs2 = bits(raw, 24, 20);
  d.rs3 = bits(raw, 31, 27);
  d.rm = bits(raw, 14, 12);
  const OpInfo& info = kOps[static_cast<size_t>(d.op)];
  d.imm = immediate(info.format, raw);
  d.lat = arch::kLatency[static_cast<size_t>(info.klass)];
  if (d.op != Op::kIllegal) set_slots(d, info.format);
  using arch::InsnClass;
  switch (info.klass) {
    case InsnClass::kFadd: case InsnClass::kFmul: case InsnClass::kFma: case InsnClass::kFcvt:
    case InsnClass::kFdiv: case InsnClass::kFsqrt: d.dst2 = kSlotFflags; break;
    default: break;
  }
  return d;
}

const char* op_name(Op op) { return kOps[static_cast<size_t>(op)].name; }
Format op_format(Op op) { return kOps[static_cast<size_t>(op)].format; }
arch::InsnClass op_class(Op op) { return kOps[static_cast<size_t>(op)].klass; }
uint32_t op_mask(Op op) { return kOps[static_cast<size_t>(op)].mask; }
uint32_t op_match(Op op) { return kOps[static_cast<size_t>(op)].match; }

}  // namespace tessera::emu
