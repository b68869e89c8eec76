// Hand-written known-answer vectors, each derived from the RISC-V F chapter / IEEE 754 by
// hand. They check the library (public API and software path) AND the MPFR reference
// model, so a systematic mistake in the reference cannot hide library bugs.
#include <gtest/gtest.h>

#include <cstdio>

#include "mpfr_ref.h"

namespace tessera::fp::testing {
namespace {

constexpr uint32_t kOne = 0x3f800000, kMinusOne = 0xbf800000, kTwo = 0x40000000;
constexpr uint32_t kPZero = 0, kMZero = 0x80000000, kPInf = 0x7f800000, kMInf = 0xff800000;
constexpr uint32_t kQNaN = 0x7fc00000, kQNaNPayload = 0x7fc12345, kSNaN = 0x7f800001;
constexpr uint32_t kMax = 0x7f7fffff, kMinNormal = 0x00800000, kMaxSub = 0x007fffff;
constexpr uint32_t kNaN = kCanonicalNaN;
constexpr uint32_t k2m24 = 0x33800000;      // 2^-24: half an ulp of 1.0
constexpr uint32_t kOneMinus = 0x3f7fffff;  // 1 - 2^-24 = 0xffffff * 2^-24
// a*b = (2^25 - 1) * 2^-151 = 2^-126 - 2^-151 exactly (31 * 1082401 = 2^25 - 1).
constexpr uint32_t k31x2m30 = 0x32f80000, k1082401x2m121 = 0x0d042108;

constexpr Rm RNE = Rm::kRne, RTZ = Rm::kRtz, RDN = Rm::kRdn, RUP = Rm::kRup, RMM = Rm::kRmm;

struct Kat {
  Op op;
  Rm rm;
  uint32_t a, b, c;
  uint32_t bits, flags;
  const char* why;
};

const Kat kKats[] = {
    // RMM: ties away from zero; 1 + 2^-24 is exactly halfway between 1 and 1 + 2^-23.
    {Op::kAdd, RNE, kOne, k2m24, 0, kOne, kNX, "tie -> even"},
    {Op::kAdd, RMM, kOne, k2m24, 0, 0x3f800001, kNX, "tie -> away"},
    {Op::kAdd, RTZ, kOne, k2m24, 0, kOne, kNX, ""},
    {Op::kAdd, RUP, kOne, k2m24, 0, 0x3f800001, kNX, ""},
    {Op::kAdd, RDN, kOne, k2m24, 0, kOne, kNX, ""},
    {Op::kSub, RMM, kMinusOne, k2m24, 0, 0xbf800001, kNX, "negative tie -> away"},
    {Op::kSub, RNE, kMinusOne, k2m24, 0, kMinusOne, kNX, ""},
    {Op::kSub, RDN, kMinusOne, k2m24, 0, 0xbf800001, kNX, ""},
    {Op::kSub, RUP, kMinusOne, k2m24, 0, kMinusOne, kNX, ""},
    // Integer conversions with ties.
    {Op::kCvtWS, RNE, 0x40200000, 0, 0, 2, kNX, "2.5 -> 2"},
    {Op::kCvtWS, RMM, 0x40200000, 0, 0, 3, kNX, "2.5 -> 3"},
    {Op::kCvtWS, RMM, 0xc0200000, 0, 0, 0xfffffffd, kNX, "-2.5 -> -3"},
    {Op::kCvtWS, RNE, 0xc0200000, 0, 0, 0xfffffffe, kNX, "-2.5 -> -2"},
    {Op::kCvtWS, RDN, 0xc0200000, 0, 0, 0xfffffffd, kNX, ""},
    {Op::kCvtWS, RUP, 0x40200000, 0, 0, 3, kNX, ""},
    {Op::kCvtWS, RTZ, 0xc0200000, 0, 0, 0xfffffffe, kNX, ""},
    // fcvt.wu.s of (-1, 0): 0 with NX if it rounds to 0, else invalid.
    {Op::kCvtWuS, RNE, 0xbf000000, 0, 0, 0, kNX, "-0.5 -> 0"},
    {Op::kCvtWuS, RTZ, 0xbf000000, 0, 0, 0, kNX, ""},
    {Op::kCvtWuS, RUP, 0xbf000000, 0, 0, 0, kNX, ""},
    {Op::kCvtWuS, RMM, 0xbf000000, 0, 0, 0, kNV, "-0.5 -> -1: invalid"},
    {Op::kCvtWuS, RDN, 0xbf000000, 0, 0, 0, kNV, ""},
    {Op::kCvtWuS, RNE, kMZero, 0, 0, 0, 0, "-0 is exact"},
    {Op::kCvtWuS, RTZ, kMinusOne, 0, 0, 0, kNV, ""},
    // Saturation.
    {Op::kCvtWS, RNE, kQNaN, 0, 0, 0x7fffffff, kNV, "NaN -> 2^31-1"},
    {Op::kCvtWuS, RNE, kSNaN, 0, 0, 0xffffffff, kNV, "NaN -> 2^32-1"},
    {Op::kCvtWS, RNE, kMInf, 0, 0, 0x80000000, kNV, ""},
    {Op::kCvtWuS, RNE, kMInf, 0, 0, 0, kNV, ""},
    {Op::kCvtWS, RNE, kPInf, 0, 0, 0x7fffffff, kNV, ""},
    {Op::kCvtWS, RNE, 0x4f000000, 0, 0, 0x7fffffff, kNV, "2^31 overflows"},
    {Op::kCvtWS, RNE, 0xcf000000, 0, 0, 0x80000000, 0, "-2^31 fits"},
    {Op::kCvtWuS, RNE, 0x4f800000, 0, 0, 0xffffffff, kNV, "2^32 overflows"},
    {Op::kCvtWuS, RNE, 0x4f7fffff, 0, 0, 0xffffff00, 0, ""},
    {Op::kCvtWS, RTZ, 0x4effffff, 0, 0, 0x7fffff80, 0, ""},
    // int -> float rounding.
    {Op::kCvtSW, RNE, 0x01000001, 0, 0, 0x4b800000, kNX, "2^24+1 tie -> even"},
    {Op::kCvtSW, RMM, 0x01000001, 0, 0, 0x4b800001, kNX, "2^24+1 tie -> away"},
    {Op::kCvtSW, RUP, 0x01000001, 0, 0, 0x4b800001, kNX, ""},
    {Op::kCvtSW, RDN, 0xfeffffff, 0, 0, 0xcb800001, kNX, "-(2^24+1) down"},
    {Op::kCvtSW, RNE, 0x80000000, 0, 0, 0xcf000000, 0, "INT32_MIN exact"},
    {Op::kCvtSWu, RNE, 0xffffffff, 0, 0, 0x4f800000, kNX, ""},
    {Op::kCvtSWu, RTZ, 0xffffffff, 0, 0, 0x4f7fffff, kNX, ""},
    // Overflow result depends on the rounding mode.
    {Op::kMul, RNE, kMax, kTwo, 0, kPInf, kOF | kNX, ""},
    {Op::kMul, RMM, kMax, kTwo, 0, kPInf, kOF | kNX, ""},
    {Op::kMul, RTZ, kMax, kTwo, 0, kMax, kOF | kNX, ""},
    {Op::kMul, RDN, kMax, kTwo, 0, kMax, kOF | kNX, ""},
    {Op::kMul, RUP, kMax, kTwo, 0, kPInf, kOF | kNX, ""},
    {Op::kMul, RDN, kMax | 0x80000000, kTwo, 0, kMInf, kOF | kNX, ""},
    {Op::kMul, RUP, kMax | 0x80000000, kTwo, 0, kMax | 0x80000000, kOF | kNX, ""},
    {Op::kMul, RTZ, kMax | 0x80000000, kTwo, 0, kMax | 0x80000000, kOF | kNX, ""},
    // Overflow is judged after rounding: max + exactly half an ulp ties to 2^128 (max is
    // odd), so it overflows; anything less rounds back to max without OF.
    {Op::kAdd, RNE, kMax, 0x73000000, 0, kPInf, kOF | kNX, "max + 2^103 (half ulp)"},
    {Op::kAdd, RNE, kMax, 0x72ffffff, 0, kMax, kNX, "just under half ulp: no OF"},
    // Tininess after rounding. 0x3f7fffff * 2^-126 = 2^-126 - 2^-150 exactly: it has 24 bits
    // so it is tiny after rounding, and on the subnormal grid it is a tie.
    {Op::kMul, RNE, kOneMinus, kMinNormal, 0, kMinNormal, kUF | kNX, "tie -> 2^-126, UF"},
    {Op::kMul, RMM, kOneMinus, kMinNormal, 0, kMinNormal, kUF | kNX, ""},
    {Op::kMul, RUP, kOneMinus, kMinNormal, 0, kMinNormal, kUF | kNX, ""},
    {Op::kMul, RTZ, kOneMinus, kMinNormal, 0, kMaxSub, kUF | kNX, ""},
    {Op::kMul, RDN, kOneMinus, kMinNormal, 0, kMaxSub, kUF | kNX, ""},
    // 2^-126 - 2^-151 needs 25 bits: rounded to 24 bits (unbounded) it becomes 2^-126 under
    // RNE/RMM/RUP, so it is NOT tiny: NX only (before-rounding detection would add UF).
    {Op::kMul, RNE, k31x2m30, k1082401x2m121, 0, kMinNormal, kNX, "not tiny after rounding"},
    {Op::kMul, RMM, k31x2m30, k1082401x2m121, 0, kMinNormal, kNX, ""},
    {Op::kMul, RUP, k31x2m30, k1082401x2m121, 0, kMinNormal, kNX, ""},
    {Op::kMul, RTZ, k31x2m30, k1082401x2m121, 0, kMaxSub, kUF | kNX, ""},
    {Op::kMul, RDN, k31x2m30, k1082401x2m121, 0, kMaxSub, kUF | kNX, ""},
    // Exact subnormal results raise nothing; inexact ones raise UF|NX.
    {Op::kAdd, RNE, 0x00000001, 0x00000001, 0, 0x00000002, 0, "tiny but exact"},
    {Op::kSub, RNE, 0x00800001, kMinNormal, 0, 0x00000001, 0, ""},
    {Op::kMul, RNE, 0x00000001, 0x3f000000, 0, kPZero, kUF | kNX, "2^-150 tie -> 0"},
    {Op::kMul, RMM, 0x00000001, 0x3f000000, 0, 0x00000001, kUF | kNX, "2^-150 tie -> away"},
    {Op::kMul, RUP, 0x80000001, 0x3f000000, 0, kMZero, kUF | kNX, "-0 result"},
    {Op::kMul, RDN, 0x80000001, 0x3f000000, 0, 0x80000001, kUF | kNX, ""},
    // Signs of exact zeros.
    {Op::kAdd, RNE, kOne, kMinusOne, 0, kPZero, 0, "x - x = +0"},
    {Op::kAdd, RDN, kOne, kMinusOne, 0, kMZero, 0, "x - x = -0 under RDN"},
    {Op::kAdd, RMM, kOne, kMinusOne, 0, kPZero, 0, ""},
    {Op::kAdd, RNE, kMZero, kMZero, 0, kMZero, 0, "-0 + -0 = -0"},
    {Op::kAdd, RNE, kPZero, kMZero, 0, kPZero, 0, ""},
    {Op::kAdd, RDN, kPZero, kMZero, 0, kMZero, 0, ""},
    {Op::kSub, RNE, kMZero, kPZero, 0, kMZero, 0, ""},
    {Op::kFmadd, RNE, kOne, kOne, kMinusOne, kPZero, 0, ""},
    {Op::kFmadd, RDN, kOne, kOne, kMinusOne, kMZero, 0, ""},
    {Op::kFnmadd, RNE, kOne, kOne, kMinusOne, kPZero, 0, "-(1*1) - (-1) = +0"},
    {Op::kFnmadd, RDN, kOne, kOne, kMinusOne, kMZero, 0, ""},
    {Op::kFmadd, RNE, kMZero, kOne, kMZero, kMZero, 0, "-0*1 + -0 = -0"},
    {Op::kFnmsub, RNE, kPZero, kOne, kMZero, kMZero, 0, "-(0*1) + -0 = -0"},
    {Op::kMul, RNE, kMZero, kOne, 0, kMZero, 0, ""},
    {Op::kSqrt, RNE, kMZero, 0, 0, kMZero, 0, "sqrt(-0) = -0"},
    // fnmadd/fnmsub under directed rounding: -(a*b)-c is rounded as one value.
    {Op::kFnmadd, RUP, kOne, k2m24, kOne, kMinusOne, kNX, "-(2^-24) - 1 rounds up to -1"},
    {Op::kFnmadd, RDN, kOne, k2m24, kOne, 0xbf800001, kNX, ""},
    // Invalid operations and NaNs.
    {Op::kFmadd, RNE, kPZero, kPInf, kQNaN, kNaN, kNV, "0*inf + qNaN raises NV"},
    {Op::kFmadd, RNE, kMInf, kPZero, kQNaN, kNaN, kNV, ""},
    {Op::kFmadd, RNE, kQNaN, kPZero, kPInf, kNaN, 0, "qNaN*0: no NV"},
    {Op::kFmadd, RNE, kPInf, kOne, kMInf, kNaN, kNV, "inf - inf"},
    {Op::kFmadd, RNE, kOne, kOne, kSNaN, kNaN, kNV, ""},
    {Op::kAdd, RNE, kQNaNPayload, kOne, 0, kNaN, 0, "canonical NaN, no payload"},
    {Op::kAdd, RNE, kSNaN, kOne, 0, kNaN, kNV, ""},
    {Op::kAdd, RNE, kPInf, kMInf, 0, kNaN, kNV, ""},
    {Op::kMul, RNE, kPZero, kMInf, 0, kNaN, kNV, ""},
    {Op::kDiv, RNE, kOne, kPZero, 0, kPInf, kDZ, ""},
    {Op::kDiv, RNE, kMinusOne, kPZero, 0, kMInf, kDZ, ""},
    {Op::kDiv, RNE, 0x00000001, kMZero, 0, kMInf, kDZ, "subnormal / -0"},
    {Op::kDiv, RNE, kPInf, kPZero, 0, kPInf, 0, "inf / 0: no DZ"},
    {Op::kDiv, RNE, kPZero, kPZero, 0, kNaN, kNV, ""},
    {Op::kDiv, RNE, kPInf, kMInf, 0, kNaN, kNV, ""},
    {Op::kDiv, RNE, kOne, kPInf, 0, kPZero, 0, ""},
    {Op::kSqrt, RNE, kMinusOne, 0, 0, kNaN, kNV, ""},
    {Op::kSqrt, RNE, kMInf, 0, 0, kNaN, kNV, ""},
    {Op::kSqrt, RNE, 0x80000001, 0, 0, kNaN, kNV, "negative subnormal"},
    {Op::kSqrt, RNE, kPInf, 0, 0, kPInf, 0, ""},
    {Op::kSqrt, RNE, 0x40800000, 0, 0, kTwo, 0, "sqrt(4) = 2"},
    {Op::kSqrt, RNE, kTwo, 0, 0, 0x3fb504f3, kNX, "sqrt(2)"},
    {Op::kSqrt, RUP, kTwo, 0, 0, 0x3fb504f4, kNX, ""},
    {Op::kSqrt, RNE, 0x00000001, 0, 0, 0x1a3504f3, kNX, "sqrt(2^-149)"},
    // Comparisons, min/max.
    {Op::kFeq, RNE, kSNaN, kOne, 0, 0, kNV, "feq: NV only for sNaN"},
    {Op::kFeq, RNE, kQNaN, kOne, 0, 0, 0, ""},
    {Op::kFeq, RNE, kPZero, kMZero, 0, 1, 0, "+0 == -0"},
    {Op::kFlt, RNE, kQNaN, kOne, 0, 0, kNV, "flt: NV for any NaN"},
    {Op::kFle, RNE, kOne, kQNaN, 0, 0, kNV, ""},
    {Op::kFlt, RNE, kMZero, kPZero, 0, 0, 0, "-0 < +0 is false"},
    {Op::kFle, RNE, kMZero, kPZero, 0, 1, 0, ""},
    {Op::kFlt, RNE, kMInf, 0x80000001, 0, 1, 0, ""},
    {Op::kFmin, RNE, kMZero, kPZero, 0, kMZero, 0, "min(-0, +0) = -0"},
    {Op::kFmin, RNE, kPZero, kMZero, 0, kMZero, 0, ""},
    {Op::kFmax, RNE, kMZero, kPZero, 0, kPZero, 0, "max(-0, +0) = +0"},
    {Op::kFmin, RNE, kQNaNPayload, kOne, 0, kOne, 0, "one NaN -> other operand"},
    {Op::kFmax, RNE, kOne, kSNaN, 0, kOne, kNV, "sNaN: other operand, NV"},
    {Op::kFmin, RNE, kQNaNPayload, kSNaN, 0, kNaN, kNV, "two NaNs -> canonical"},
    {Op::kFmax, RNE, kQNaNPayload, kQNaNPayload, 0, kNaN, 0, ""},
    // fclass: one of each class.
    {Op::kFclass, RNE, kMInf, 0, 0, 1u << 0, 0, ""},
    {Op::kFclass, RNE, kMinusOne, 0, 0, 1u << 1, 0, ""},
    {Op::kFclass, RNE, 0x80000001, 0, 0, 1u << 2, 0, ""},
    {Op::kFclass, RNE, kMZero, 0, 0, 1u << 3, 0, ""},
    {Op::kFclass, RNE, kPZero, 0, 0, 1u << 4, 0, ""},
    {Op::kFclass, RNE, kMaxSub, 0, 0, 1u << 5, 0, ""},
    {Op::kFclass, RNE, kMinNormal, 0, 0, 1u << 6, 0, ""},
    {Op::kFclass, RNE, kPInf, 0, 0, 1u << 7, 0, ""},
    {Op::kFclass, RNE, kSNaN, 0, 0, 1u << 8, 0, ""},
    {Op::kFclass, RNE, 0xffc00000, 0, 0, 1u << 9, 0, ""},
};

std::string describe(const Kat& k) {
  char buf[200];
  std::snprintf(buf, sizeof buf, "%s rm=%s a=0x%08x b=0x%08x c=0x%08x (%s)", op_name(k.op),
                rm_name(k.rm), k.a, k.b, k.c, k.why);
  return buf;
}

void expect_outcome(const char* who, const Kat& k, Outcome got) {
  EXPECT_TRUE(got.bits == k.bits && got.flags == k.flags)
      << who << ": " << describe(k) << "\n  expected 0x" << std::hex << k.bits << " "
      << flags_string(k.flags) << "\n  got      0x" << got.bits << " " << flags_string(got.flags);
}

TEST(FpKnownAnswer, Library) {
  for (const Kat& k : kKats) {
    expect_outcome("api", k, call_api(k.op, k.a, k.b, k.c, k.rm));
    Outcome soft;
    if (call_soft(k.op, k.a, k.b, k.c, k.rm, soft)) expect_outcome("soft", k, soft);
  }
}

TEST(FpKnownAnswer, ReferenceModel) {
  for (const Kat& k : kKats) {
    expect_outcome("mpfr reference", k, reference(k.op, k.a, k.b, k.c, k.rm));
  }
}

TEST(FpKnownAnswer, FlagsAccumulate) {
  uint32_t flags = kDZ;  // pre-existing bits must survive
  EXPECT_EQ(add(kOne, k2m24, Rm::kRne, flags), kOne);
  EXPECT_EQ(flags, kDZ | kNX);
  EXPECT_EQ(mul(kTwo, kTwo, Rm::kRne, flags), 0x40800000u);
  EXPECT_EQ(flags, kDZ | kNX);
}

}  // namespace
}  // namespace tessera::fp::testing
