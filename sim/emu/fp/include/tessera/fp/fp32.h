// tessera::fp -- exact RISC-V "F" extension (IEEE 754 binary32) arithmetic for the ISS.
//
// One function per RISC-V instruction. Operands and results are raw binary32 bit patterns
// (or raw int32/uint32 bits for the integer side of conversions). Every function ORs the
// exception flags it raises into `flags` (it never clears bits), matching fflags accrual.
//
// Semantics follow the RISC-V unprivileged spec, chapter "F": NaN results are always the
// canonical NaN (no payload propagation), tininess is detected after rounding, fmin/fmax
// are IEEE 754-2019 minimumNumber/maximumNumber, conversions to integer saturate.
//
// Implementation: under RNE the host FPU computes the result when that is provably correct
// and the flags are derived exactly (see fp32.cpp); everything else uses the integer
// software path in tessera/fp/softfloat.h. The host rounding mode must be the default
// (RNE; nothing here changes it) and host exception flags are never read. Host
// flush-to-zero / denormals-are-zero settings cannot change results: inputs and results
// they could corrupt are routed to the software path.
#pragma once

#include <cstdint>

namespace tessera::fp {

// RISC-V frm encodings. 5 and 6 are reserved and 7 (DYN) must be resolved by the caller;
// passing any value other than 0..4 behaves like kRne.
enum class Rm : uint8_t { kRne = 0, kRtz = 1, kRdn = 2, kRup = 3, kRmm = 4 };

// fflags bits, RISC-V order.
inline constexpr uint32_t kNX = 1, kUF = 2, kOF = 4, kDZ = 8, kNV = 16;
inline constexpr uint32_t kCanonicalNaN = 0x7fc00000u;

uint32_t add(uint32_t a, uint32_t b, Rm rm, uint32_t& flags);
uint32_t sub(uint32_t a, uint32_t b, Rm rm, uint32_t& flags);
uint32_t mul(uint32_t a, uint32_t b, Rm rm, uint32_t& flags);
uint32_t div(uint32_t a, uint32_t b, Rm rm, uint32_t& flags);
uint32_t sqrt(uint32_t a, Rm rm, uint32_t& flags);
uint32_t fmadd(uint32_t a, uint32_t b, uint32_t c, Rm rm, uint32_t& flags);   //  (a*b)+c
uint32_t fmsub(uint32_t a, uint32_t b, uint32_t c, Rm rm, uint32_t& flags);   //  (a*b)-c
uint32_t fnmsub(uint32_t a, uint32_t b, uint32_t c, Rm rm, uint32_t& flags);  // -(a*b)+c
uint32_t fnmadd(uint32_t a, uint32_t b, uint32_t c, Rm rm, uint32_t& flags);  // -(a*b)-c

uint32_t cvt_w_s(uint32_t a, Rm rm, uint32_t& flags);   // fcvt.w.s:  float -> int32 bits
uint32_t cvt_wu_s(uint32_t a, Rm rm, uint32_t& flags);  // fcvt.wu.s: float -> uint32
uint32_t cvt_s_w(uint32_t a, Rm rm, uint32_t& flags);   // fcvt.s.w:  int32 bits -> float
uint32_t cvt_s_wu(uint32_t a, Rm rm, uint32_t& flags);  // fcvt.s.wu: uint32 -> float

uint32_t feq(uint32_t a, uint32_t b, uint32_t& flags);  // 0/1; quiet: NV only on sNaN
uint32_t flt(uint32_t a, uint32_t b, uint32_t& flags);  // 0/1; signaling: NV on any NaN
uint32_t fle(uint32_t a, uint32_t b, uint32_t& flags);  // 0/1; signaling: NV on any NaN
// IEEE 754-2019 minimumNumber/maximumNumber (RISC-V F 2.2+): -0 < +0, a single NaN
// operand yields the other operand, two NaNs yield the canonical NaN, NV on any sNaN.
uint32_t fmin(uint32_t a, uint32_t b, uint32_t& flags);
uint32_t fmax(uint32_t a, uint32_t b, uint32_t& flags);
uint32_t fclass(uint32_t a);  // 10-bit RISC-V class mask (bit 0 = -inf ... bit 9 = qNaN)

}  // namespace tessera::fp
