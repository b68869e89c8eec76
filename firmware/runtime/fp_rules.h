// The floating-point rules of all tile code (docs: DESIGN.md "Native mode and floating
// point"). Codelets are built twice, for the tile's RISC-V core and for the host (the
// emulator's native mode), and must give the same bits. That holds when:
//
//  - both builds use -ffp-contract=off (no a*b+c quietly fused) and -fno-math-errno, and
//    never -ffast-math (no reassociation, no reciprocal tricks): checked below;
//  - float arithmetic is IEEE binary32 with round-to-nearest-even, which both ABIs fix
//    (RISC-V: fcsr = 0 from crt0; x86-64: SSE, FLT_EVAL_METHOD 0): +, -, *, /, sqrt and
//    fused multiply-add are then correctly rounded, hence identical, on both;
//  - fused multiply-add is written explicitly as fp_fma (one rounding on both: fmadd.s on
//    the core, the correctly rounded fmaf of glibc or the FMA unit on the host);
//  - operations where the ISAs differ go through a helper here with RISC-V semantics:
//    min/max (IEEE 754-2019 minimumNumber/maximumNumber, -0 < +0, canonical NaN) and
//    float-to-int (saturating, NaN converts to the largest value);
//  - exp and log come from this file (range reduction + polynomial, only +, -, *, fma and
//    exact bit manipulation), never from a libm: picolibc and glibc differ.
//
// NaN payloads are the one thing allowed to differ (RISC-V always produces the canonical
// NaN 0x7fc00000; x86 produces 0xffc00000 or propagates payloads). The functions below
// return the canonical NaN themselves wherever they make one.
#pragma once

#include <stdint.h>

#if defined(__FAST_MATH__)
#error "tile code must not be built with -ffast-math (fp_rules.h)"
#endif
#if defined(__FLT_EVAL_METHOD__) && __FLT_EVAL_METHOD__ != 0
#error "tile code needs float arithmetic evaluated in float (FLT_EVAL_METHOD 0)"
#endif
#if defined(__riscv) && !defined(__riscv_flen)
#error "tile code needs the F extension"
#endif

namespace tessera::fw {

inline constexpr uint32_t kCanonicalNaN = 0x7fc00000u;

constexpr uint32_t f2u(float f) { return __builtin_bit_cast(uint32_t, f); }
constexpr float u2f(uint32_t u) { return __builtin_bit_cast(float, u); }
constexpr bool fp_is_nan(float f) { return (f2u(f) & 0x7fffffffu) > 0x7f800000u; }

// a * b + c with one rounding.
inline float fp_fma(float a, float b, float c) { return __builtin_fmaf(a, b, c); }

// Correctly rounded square root (fsqrt.s; sqrtss on the host).
inline float fp_sqrt(float a) { return __builtin_sqrtf(a); }

// IEEE 754-2019 minimumNumber / maximumNumber as RISC-V fmin.s / fmax.s: a NaN operand is
// ignored (signalling or quiet), two NaNs give the canonical NaN, -0 orders below +0.
inline float fp_min(float a, float b) {
#if defined(__riscv)
  float r;
  asm("fmin.s %0, %1, %2" : "=f"(r) : "f"(a), "f"(b));
  return r;
#else
  if (fp_is_nan(a)) return fp_is_nan(b) ? u2f(kCanonicalNaN) : b;
  if (fp_is_nan(b)) return a;
  if (a < b) return a;
  if (b < a) return b;
  return u2f(f2u(a) | f2u(b));  // equal: only +-0 differ in bits; min(-0, +0) = -0
#endif
}

inline float fp_max(float a, float b) {
#if defined(__riscv)
  float r;
  asm("fmax.s %0, %1, %2" : "=f"(r) : "f"(a), "f"(b));
  return r;
#else
  if (fp_is_nan(a)) return fp_is_nan(b) ? u2f(kCanonicalNaN) : b;
  if (fp_is_nan(b)) return a;
  if (a > b) return a;
  if (b > a) return b;
  return u2f(f2u(a) & f2u(b));  // max(-0, +0) = +0
#endif
}

// float -> int32 rounding toward zero (a C cast), as fcvt.w.s with rtz: out-of-range
// values saturate, NaN gives INT32_MAX.
inline int32_t fp_to_i32(float a) {
#if defined(__riscv)
  int32_t r;
  asm("fcvt.w.s %0, %1, rtz" : "=r"(r) : "f"(a));
  return r;
#else
  if (fp_is_nan(a) || a >= 0x1p31f) return INT32_MAX;
  if (a < -0x1p31f) return INT32_MIN;
  return static_cast<int32_t>(a);
#endif
}

// float -> uint32 rounding toward zero, as fcvt.wu.s with rtz: negative values give 0,
// too large values and NaN give UINT32_MAX.
inline uint32_t fp_to_u32(float a) {
#if defined(__riscv)
  uint32_t r;
  asm("fcvt.wu.s %0, %1, rtz" : "=r"(r) : "f"(a));
  return r;
#else
  if (fp_is_nan(a) || a >= 0x1p32f) return UINT32_MAX;
  if (a <= -1.0f) return 0;
  return static_cast<uint32_t>(a);  // (-1, 2^32): truncation is in range
#endif
}

// exp(x). x = k ln2 + r with k = round(x / ln2) and |r| <= ln2/2 (Cody-Waite with fma),
// exp(r) by its Taylor polynomial of degree 7 (truncation < 0.1 ulp), then 2^k by building
// the exponent bits; when 2^k is not a normal float (results near overflow or subnormal)
// it is applied in two exact halves so that only the last multiply rounds. NaN gives the
// canonical NaN, exp(+inf) = +inf, exp(-inf) = +0; overflow gives +inf and underflow
// +0 or a subnormal, as the final multiply rounds. Error <= 1.06 ulp against exp over all
// floats (checked exhaustively once; tests/firmware samples it).
inline float fp_expf(float x) {
  if (fp_is_nan(x)) return u2f(kCanonicalNaN);
  if (x > 100.0f) return u2f(0x7f800000u);  // exp(88.73) already overflows
  if (x < -110.0f) return 0.0f;             // exp(-104) already rounds to 0
  constexpr float kLog2e = 0x1.715476p+0f;
  constexpr float kLn2Hi = 0x1.62e4p-1f;     // ln2 rounded to 15 bits
  constexpr float kLn2Lo = 0x1.7f7d1cp-20f;  // ln2 - kLn2Hi
  constexpr float kShifter = 0x1.8p23f;      // adding it rounds to an integer (RNE)
  const float t = fp_fma(x, kLog2e, kShifter);
  const float kf = t - kShifter;                                   // k as a float, exact
  const int32_t k = static_cast<int32_t>(f2u(t) - f2u(kShifter));  // k, |k| <= 159
  float r = fp_fma(-kf, kLn2Hi, x);
  r = fp_fma(-kf, kLn2Lo, r);
  // exp(r) = 1 + r + r^2 (1/2 + r/6 + ... + r^5/5040)
  float q = 0x1.a01a02p-13f;          // 1/5040
  q = fp_fma(q, r, 0x1.6c16c2p-10f);  // 1/720
  q = fp_fma(q, r, 0x1.111112p-7f);   // 1/120
  q = fp_fma(q, r, 0x1.555556p-5f);   // 1/24
  q = fp_fma(q, r, 0x1.555556p-3f);   // 1/6
  q = fp_fma(q, r, 0.5f);
  const float p = 1.0f + fp_fma(q, r * r, r);
  if (k >= -126 && k <= 127) return p * u2f(static_cast<uint32_t>(k + 127) << 23);
  const int32_t k1 = k / 2, k2 = k - k1;  // each in [-80, 72]: both powers are normal
  return p * u2f(static_cast<uint32_t>(k1 + 127) << 23) *
         u2f(static_cast<uint32_t>(k2 + 127) << 23);
}

// log(x). x = 2^e (1 + f) with 1 + f in [sqrt(1/2), sqrt(2)) (exact bit manipulation;
// subnormals are scaled up by 2^23 first), then log1p(f) = f - f^2/2 + f^3 P(f) with P of
// degree 7 fitted by runtime/tools/fit_logf.py (relative error 0.14 * 2^-24), and
// e ln2 added in two parts (e * kLn2Hi is exact). log(+-0) = -inf, log(+inf) = +inf,
// NaN and x < 0 give the canonical NaN. Error <= 0.81 ulp against log over all floats
// (checked exhaustively once; tests/firmware samples it).
inline float fp_logf(float x) {
  uint32_t ix = f2u(x);
  if (ix >= 0x7f800000u) {                           // +inf, NaN, or the sign bit set
    if (ix == 0x7f800000u) return x;                 // +inf
    if (ix == 0x80000000u) return u2f(0xff800000u);  // -0
    return u2f(kCanonicalNaN);                       // NaN, x < 0
  }
  if (ix == 0) return u2f(0xff800000u);
  int32_t e = 0;
  if (ix < 0x00800000u) {  // subnormal: x * 2^23 is exact and normal
    ix = f2u(x * 0x1p23f);
    e = -23;
  }
  e += static_cast<int32_t>(ix >> 23) - 127;
  uint32_t m = (ix & 0x007fffffu) | 0x3f800000u;  // mantissa as a float in [1, 2)
  if (m > 0x3fb504f3u) {                          // above sqrt(2): halve it
    m -= 0x00800000u;
    e += 1;
  }
  constexpr float kLn2Hi = 0x1.62e4p-1f;     // 15 significant bits: e * kLn2Hi is exact
  constexpr float kLn2Lo = 0x1.7f7d1cp-20f;  // ln2 - kLn2Hi
  const float f = u2f(m) - 1.0f;             // exact (Sterbenz)
  const float ef = static_cast<float>(e);    // |e| <= 149: exact
  float p = -0x1.38b4ccp-4f;
  p = fp_fma(p, f, 0x1.055b46p-3f);
  p = fp_fma(p, f, -0x1.0d8552p-3f);
  p = fp_fma(p, f, 0x1.22da22p-3f);
  p = fp_fma(p, f, -0x1.547244p-3f);
  p = fp_fma(p, f, 0x1.99a008p-3f);
  p = fp_fma(p, f, -0x1.000228p-2f);
  p = fp_fma(p, f, 0x1.555554p-2f);
  const float f2 = f * f;
  float y = fp_fma(f2 * f, p, ef * kLn2Lo);  // f^3 P(f) + e ln2_lo
  y = fp_fma(f, -0.5f * f, y);               // - f^2/2 (-0.5f * f is exact)
  y = y + f;
  return y + ef * kLn2Hi;
}

}  // namespace tessera::fw
