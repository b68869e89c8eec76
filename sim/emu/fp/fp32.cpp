// Public binary32 arithmetic: a host-FPU fast path where its answer is provably exact for
// RISC-V, otherwise the integer software path (softfloat.cpp).
//
// The fast path (QEMU's "hardfloat" idea) is taken only under RNE. The host (SSE, default
// MXCSR: RNE) computes the correctly rounded binary32 result r, and the only missing piece
// is NX, derived exactly with error-free double arithmetic (never from host exception flags):
//   add:  r is exact iff r-a == b and r-b == a in double. If r == a+b both hold. Otherwise
//         take |a| >= |b|: either r is within a binade of a, so r-a has <= 26 significant
//         bits and is computed exactly (and differs from b), or there was cancellation by
//         more than a binade, which is exact (Sterbenz) -- a contradiction.
//   mul:  a*b is exact in double (24+24 bits); compare with r.
//   div:  r*b is exact in double; r is exact iff r*b == a.
//   sqrt: r*r is exact in double; r is exact iff r*r == a.
//   fma:  p = a*b exact in double, s = p + c; s is exact iff s-p == c and s-c == p (as for
//         add). float(s) is the correct rounding of p + c unless s is inexact and lands
//         exactly on a binary32 midpoint (double rounding), which falls back.
// Any result that is not a normal number (so: NaN from NaN/invalid operands, inf from
// overflow/DZ/inf operands, tiny results where UF is judged after rounding) falls back,
// except exact zeros that are recognised as such. Subnormal operands are rejected where a
// host running with denormals-are-zero could otherwise produce a plausible wrong answer
// (add, fma); for mul/div such a host yields 0 or inf, which the result check rejects.
// So FTZ/DAZ host settings cannot change results. Build with -ffp-contract=off so the
// error-free transformations are not fused into FMAs.
#include "tessera/fp/fp32.h"

#include <bit>
#include <cmath>

#include "tessera/fp/softfloat.h"

namespace tessera::fp {
namespace {

inline float f32(uint32_t x) { return std::bit_cast<float>(x); }
inline uint32_t bits(float f) { return std::bit_cast<uint32_t>(f); }

// Nonzero with a zero exponent field.
inline bool subnormal(uint32_t x) { return (x & 0x7fffffffu) - 1u < 0x007fffffu; }
inline bool is_zero(uint32_t x) { return (x << 1) == 0; }

// |r| normal (including 2^-126) and finite.
inline bool normal_bits(uint32_t r) { return (r & 0x7fffffffu) - 0x00800000u < 0x7f000000u; }

// |r| strictly between the smallest normal and infinity: no overflow, no tininess.
inline bool above_min_normal_bits(uint32_t r) {
  return (r & 0x7fffffffu) - 0x00800001u < 0x7f7fffffu - 0x00800000u;
}

inline void raise_nx_if(bool inexact, uint32_t& flags) { flags |= static_cast<uint32_t>(inexact); }
static_assert(kNX == 1);

constexpr uint32_t kNegate = 0x80000000u;

}  // namespace

uint32_t add(uint32_t a, uint32_t b, Rm rm, uint32_t& flags) {
  if ((rm == Rm::kRne) & !subnormal(a) & !subnormal(b)) [[likely]] {
    const float fa = f32(a), fb = f32(b);
    const uint32_t r = bits(fa + fb);
    const double dr = f32(r), da = fa, db = fb;
    const bool inexact = (dr - da != db) | (dr - db != da);
    // Zero results are taken only when exact (a == -b), never a host flush to zero. A tiny
    // sum of floats is always exact, so r == 2^-126 needs no tininess check.
    if (normal_bits(r) | (is_zero(r) & !inexact)) {
      raise_nx_if(inexact, flags);
      return r;
    }
  }
  return soft::add(a, b, rm, flags);
}

uint32_t sub(uint32_t a, uint32_t b, Rm rm, uint32_t& flags) {
  // Flipping b's sign is exact and does not change NaN-ness or signaling-ness.
  return add(a, b ^ kNegate, rm, flags);
}

uint32_t mul(uint32_t a, uint32_t b, Rm rm, uint32_t& flags) {
  if (rm == Rm::kRne) [[likely]] {
    const float fa = f32(a), fb = f32(b);
    const uint32_t r = bits(fa * fb);
    if (above_min_normal_bits(r)) {
      // The double product of two 24-bit significands is exact.
      raise_nx_if(static_cast<double>(f32(r)) != static_cast<double>(fa) * static_cast<double>(fb),
                  flags);
      return r;
    }
    if (is_zero(r) & (is_zero(a) | is_zero(b))) return r;  // 0 * finite: exact signed zero
  }
  return soft::mul(a, b, rm, flags);
}

uint32_t div(uint32_t a, uint32_t b, Rm rm, uint32_t& flags) {
  if (rm == Rm::kRne) [[likely]] {
    const float fa = f32(a), fb = f32(b);
    const uint32_t r = bits(fa / fb);
    if (above_min_normal_bits(r)) {
      // r * b is exact in double (24 + 24 bits); r is exact iff it reproduces a.
      raise_nx_if(static_cast<double>(f32(r)) * static_cast<double>(fb) != static_cast<double>(fa),
                  flags);
      return r;
    }
    if (is_zero(r) & is_zero(a)) return r;  // 0 / nonzero (incl. inf): exact signed zero
  }
  return soft::div(a, b, rm, flags);
}

uint32_t sqrt(uint32_t a, Rm rm, uint32_t& flags) {
  // Positive normal input: the result is normal; the sign bit must be clear.
  if (rm == Rm::kRne && a - 0x00800000u < 0x7f000000u) [[likely]] {
    const float fa = f32(a);
    const float r = std::sqrt(fa);
    const double dr = r;
    raise_nx_if(dr * dr != static_cast<double>(fa), flags);  // r*r is exact in double
    return bits(r);
  }
  return soft::sqrt(a, rm, flags);
}

uint32_t fmadd(uint32_t a, uint32_t b, uint32_t c, Rm rm, uint32_t& flags) {
  if ((rm == Rm::kRne) & !subnormal(a) & !subnormal(b) & !subnormal(c)) [[likely]] {
    const double p = static_cast<double>(f32(a)) * static_cast<double>(f32(b));  // exact
    const double dc = f32(c);
    const double s = p + dc;
    const uint32_t r = bits(static_cast<float>(s));
    if (above_min_normal_bits(r)) {
      const bool s_exact = (s - p == dc) & (s - dc == p);
      // If s is inexact, float(s) is still the correct rounding of p + c unless s sits
      // exactly on a binary32 midpoint (its 29 low significand bits are 1000...0): then
      // double rounding may have chosen the wrong side, so fall back.
      const bool midpoint = (std::bit_cast<uint64_t>(s) & 0x1fffffffu) == 0x10000000u;
      if (s_exact | !midpoint) {
        raise_nx_if(!s_exact | (static_cast<double>(f32(r)) != s), flags);
        return r;
      }
    }
  }
  return soft::fma(a, b, c, rm, flags);
}

// The negated forms: RISC-V defines them as single roundings of -(a*b)+-c, which is exactly
// fma with negated inputs (negation is exact and leaves NaN classification unchanged).
uint32_t fmsub(uint32_t a, uint32_t b, uint32_t c, Rm rm, uint32_t& flags) {
  return fmadd(a, b, c ^ kNegate, rm, flags);
}

uint32_t fnmsub(uint32_t a, uint32_t b, uint32_t c, Rm rm, uint32_t& flags) {
  return fmadd(a ^ kNegate, b, c, rm, flags);
}

uint32_t fnmadd(uint32_t a, uint32_t b, uint32_t c, Rm rm, uint32_t& flags) {
  return fmadd(a ^ kNegate, b, c ^ kNegate, rm, flags);
}

}  // namespace tessera::fp
