// Reference model for tessera::fp, built on GNU MPFR and written independently of the code
// under test. Results and all five flags of the arithmetic ops and int<->float conversions
// come from MPFR's correctly rounded operations; only NaN/inf special cases, the RISC-V
// saturation values, fmin/fmax NaN rules and fclass are short transcriptions of the spec.
#pragma once

#include <cstdint>
#include <string>

#include "tessera/fp/fp32.h"

namespace tessera::fp::testing {

enum class Op {
  kAdd,
  kSub,
  kMul,
  kDiv,
  kSqrt,
  kFmadd,
  kFmsub,
  kFnmsub,
  kFnmadd,
  kCvtWS,
  kCvtWuS,
  kCvtSW,
  kCvtSWu,
  kFeq,
  kFlt,
  kFle,
  kFmin,
  kFmax,
  kFclass,
};

struct Outcome {
  uint32_t bits = 0;
  uint32_t flags = 0;
  bool operator==(const Outcome&) const = default;
};

const char* op_name(Op op);
int arity(Op op);     // number of operands (1..3)
bool uses_rm(Op op);  // whether the op takes a rounding mode
const char* rm_name(Rm rm);
std::string flags_string(uint32_t flags);  // e.g. "NV|NX" or "-"

// The expected RISC-V result of `op` (unused operands are ignored).
Outcome reference(Op op, uint32_t a, uint32_t b, uint32_t c, Rm rm);

// The library under test: the public API, and (for add/sub/mul/div/sqrt/fma family) the
// software path called directly. call_soft returns false if the op has no separate path.
Outcome call_api(Op op, uint32_t a, uint32_t b, uint32_t c, Rm rm);
bool call_soft(Op op, uint32_t a, uint32_t b, uint32_t c, Rm rm, Outcome& out);

// Whether MPFR's own underflow flag, with emin set so that 2^-126 is the smallest number of
// the exponent range, reports tininess for the exact product a*b (both finite, nonzero) in
// the native rounding mode rm (not kRmm). Used to document how MPFR's flag relates to
// RISC-V's after-rounding tininess.
bool mpfr_underflow_flag_for_mul(uint32_t a, uint32_t b, Rm rm);
// Tininess as this reference derives it: |a*b rounded to 24 bits, unbounded exponent| < 2^-126.
bool reference_tiny_for_mul(uint32_t a, uint32_t b, Rm rm);

}  // namespace tessera::fp::testing
