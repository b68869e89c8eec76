// Exact software binary32 arithmetic (integer only), all RISC-V rounding modes and flags.
//
// Internal representation: operands are aligned with their leading one at bit 61
// (value = sig * 2^(exp - 61)) so that sums cannot overflow 64 bits; before rounding a value
// is normalized so that its leading one is bit 63 (value = sig * 2^(exp - 63)) and rounded
// at bit 40. Bits shifted out to the right are OR-ed into bit 0 ("jamming"): this keeps the
// round/inexact decision exact as long as the rounding point stays >= 2 bits above bit 0,
// which every caller guarantees. The hot paths avoid data-dependent branches (operand swap,
// effective add/subtract, round-up decision), which random data would mispredict; special
// operands (NaN, inf, zero) are filtered with one test and handled out of line.
#include "tessera/fp/softfloat.h"

#include <bit>
#include <cmath>

namespace tessera::fp::soft {
namespace {

constexpr uint32_t kSignBit = 0x80000000u;
constexpr uint32_t kInf = 0x7f800000u;
constexpr uint32_t kMaxFinite = 0x7f7fffffu;
constexpr uint32_t kMinusZero = kSignBit;

constexpr bool is_nan(uint32_t x) { return (x & 0x7fffffffu) > kInf; }
constexpr bool is_snan(uint32_t x) { return is_nan(x) && !(x & 0x00400000u); }
constexpr bool is_inf(uint32_t x) { return (x & 0x7fffffffu) == kInf; }
constexpr bool is_zero(uint32_t x) { return (x & 0x7fffffffu) == 0; }
constexpr uint32_t sign_of(uint32_t x) { return x >> 31; }
// NaN, inf or zero: anything the finite-nonzero arithmetic below must not see.
constexpr bool is_special(uint32_t x) { return ((x & kInf) == kInf) | is_zero(x); }

// A finite nonzero binary32 with the hidden bit made explicit and subnormals normalized:
// value = sig * 2^(exp - 23), sig in [2^23, 2^24).
struct Unpacked {
  int exp;
  uint32_t sig;
};

inline Unpacked unpack(uint32_t x) {
  const int e = static_cast<int>((x >> 23) & 0xff);
  const uint32_t m = x & 0x7fffffu;
  if (e == 0) [[unlikely]] {
    const int sh = std::countl_zero(m) - 8;  // move the leading one up to bit 23
    return {-126 - sh, m << sh};
  }
  return {e - 127, m | 0x800000u};
}

// Right shift (n >= 0) that ORs every shifted-out bit into bit 0. Shifts of 63 or more
// leave just the sticky bit (for x < 2^63; for larger x a shift by 63 is exact enough:
// bit 0 is then set iff x != 0, which is what every caller needs).
inline uint64_t shift_right_jam(uint64_t x, int n) {
  n = n < 63 ? n : 63;
  return (x >> n) | ((x & ((uint64_t{1} << n) - 1)) != 0);
}

// Whether to add one unit in the last kept place. q = kept bits, rem = dropped bits,
// half = the weight of the most significant dropped bit.
inline bool round_increment(Rm rm, uint32_t sign, uint64_t q, uint64_t rem, uint64_t half) {
  switch (rm) {
    case Rm::kRtz:
      return false;
    case Rm::kRdn:
      return (sign != 0) & (rem != 0);
    case Rm::kRup:
      return (sign == 0) & (rem != 0);
    case Rm::kRmm:
      return rem >= half;  // ties away from zero
    default:               // kRne (and reserved encodings)
      return (rem > half) | ((rem == half) & ((q & 1) != 0));
  }
}

[[gnu::noinline]] uint32_t overflow(uint32_t sign, Rm rm, uint32_t& flags) {
  flags |= kOF | kNX;
  // Directed modes that round toward zero for this sign saturate at the largest finite value.
  const bool to_max = rm == Rm::kRtz || (rm == Rm::kRdn && !sign) || (rm == Rm::kRup && sign);
  return (sign << 31) | (to_max ? kMaxFinite : kInf);
}

constexpr int kDrop = 63 - 23;  // bits below the 24-bit significand when bit 63 leads
constexpr uint64_t kDropMask = (uint64_t{1} << kDrop) - 1;
constexpr uint64_t kDropHalf = uint64_t{1} << (kDrop - 1);

// Values below 2^-126 before rounding: round onto the subnormal grid (ulp 2^-149).
// sig has bit 63 set; value = sig * 2^(biased - 127 - 63) with biased <= 0.
[[gnu::noinline]] uint32_t round_pack_tiny(uint32_t sign, int biased, uint64_t sig, Rm rm,
                                           uint32_t& flags) {
  // Tininess is judged AFTER rounding (RISC-V): the value is tiny unless rounding it to 24
  // bits with an unbounded exponent range reaches 2^-126, which is only possible when
  // biased == 0 and the 24-bit significand is all ones and rounds up.
  bool tiny = true;
  if (biased == 0) {
    const uint64_t q24 = sig >> kDrop;
    if (q24 == 0xffffff && round_increment(rm, sign, q24, sig & kDropMask, kDropHalf)) {
      tiny = false;
    }
  }
  int shift = kDrop + 1 - biased;  // >= 41
  if (shift > 63) {  // pre-shift (with sticky) so the shifts below stay within 64 bits
    sig = shift_right_jam(sig, shift - 63);
    shift = 63;
  }
  uint64_t q = sig >> shift;
  const uint64_t rem = sig & ((uint64_t{1} << shift) - 1);
  q += round_increment(rm, sign, q, rem, uint64_t{1} << (shift - 1));  // 2^23: 2^-126
  if (rem) {
    flags |= kNX;
    if (tiny) flags |= kUF;  // UF needs tiny AND inexact
  }
  return (sign << 31) | static_cast<uint32_t>(q);
}

// sig has bit 63 set; value = sig * 2^(exp - 63).
inline uint32_t round_pack(uint32_t sign, int exp, uint64_t sig, Rm rm, uint32_t& flags) {
  const int biased = exp + 127;
  if (biased < 1) [[unlikely]] {
    return round_pack_tiny(sign, biased, sig, rm, flags);
  }
  const uint64_t q = sig >> kDrop;
  const uint64_t rem = sig & kDropMask;
  // q includes the hidden bit, so ((biased - 1) << 23) + q builds exponent and fraction, and
  // a rounding carry to q == 2^24 correctly bumps the exponent. biased <= 404 for every
  // caller (largest: div, 127 + 149 + 128), so this cannot wrap.
  const uint32_t mag = (static_cast<uint32_t>(biased - 1) << 23) +
                       static_cast<uint32_t>(q + round_increment(rm, sign, q, rem, kDropHalf));
  if (mag >= kInf) [[unlikely]] {
    return overflow(sign, rm, flags);
  }
  flags |= static_cast<uint32_t>(rem != 0);  // NX
  return (sign << 31) | mag;
}
static_assert(kNX == 1);

// value = sig * 2^(exp - 61), sig != 0 with its leading one at or below bit 62.
inline uint32_t normalize_61(uint32_t sign, int exp, uint64_t sig, Rm rm, uint32_t& flags) {
  const int lz = std::countl_zero(sig);
  return round_pack(sign, exp + 2 - lz, sig << lz, rm, flags);
}

inline uint32_t canonical_nan_for(bool signaling, uint32_t& flags) {
  if (signaling) flags |= kNV;
  return kCanonicalNaN;
}

// Exact sum of zero operands: equal signs keep the sign, otherwise +0 (-0 under RDN).
inline uint32_t zero_sum(uint32_t sign_a, uint32_t sign_b, Rm rm) {
  if (sign_a == sign_b) return sign_a << 31;
  return rm == Rm::kRdn ? kMinusZero : 0;
}

// Adds sign_x*X*2^(ex-61) and sign_y*Y*2^(ey-61) where X, Y are nonzero with their leading
// one at bit 61. Used by add and fma.
inline uint32_t add_aligned(uint32_t sign_x, int ex, uint64_t x, uint32_t sign_y, int ey,
                            uint64_t y, Rm rm, uint32_t& flags) {
  const bool swap = (ex < ey) | ((ex == ey) & (x < y));  // make "hi" the larger magnitude
  const uint32_t sign = swap ? sign_y : sign_x;
  const int e_hi = swap ? ey : ex;
  const uint64_t hi = swap ? y : x;
  // If the exponents differ by >= 2, at most one bit cancels, so the jammed bits of lo stay
  // far below the rounding point; if they differ by <= 1, nothing is lost in the shift.
  const uint64_t lo = shift_right_jam(swap ? x : y, swap ? ey - ex : ex - ey);
  const uint64_t sum = sign_x == sign_y ? hi + lo : hi - lo;  // < 2^63
  if (sum == 0) [[unlikely]] {  // exact cancellation: +0, or -0 under RDN
    return rm == Rm::kRdn ? kMinusZero : 0;
  }
  return normalize_61(sign, e_hi, sum, rm, flags);
}

// Integer square root: floor(sqrt(n)) for n < 2^64, exact (the double estimate is only a
// starting point, corrected with integer arithmetic).
inline uint64_t isqrt(uint64_t n) {
  uint64_t r = static_cast<uint64_t>(std::sqrt(static_cast<double>(n)));
  while (r * r > n) --r;
  while ((r + 1) * (r + 1) <= n) ++r;
  return r;
}

[[gnu::noinline]] uint32_t add_special(uint32_t a, uint32_t b, Rm rm, uint32_t& flags) {
  if (is_nan(a) || is_nan(b)) return canonical_nan_for(is_snan(a) || is_snan(b), flags);
  if (is_inf(a)) {
    if (is_inf(b) && sign_of(a) != sign_of(b)) return canonical_nan_for(true, flags);  // inf-inf
    return a;
  }
  if (is_inf(b)) return b;
  if (is_zero(a)) return is_zero(b) ? zero_sum(sign_of(a), sign_of(b), rm) : b;  // exact
  // b is zero: the sum is a, exactly.
  return a;
}

[[gnu::noinline]] uint32_t mul_special(uint32_t a, uint32_t b, uint32_t& flags) {
  if (is_nan(a) || is_nan(b)) return canonical_nan_for(is_snan(a) || is_snan(b), flags);
  const uint32_t sign = sign_of(a) ^ sign_of(b);
  if (is_inf(a) || is_inf(b)) {
    if (is_zero(a) || is_zero(b)) return canonical_nan_for(true, flags);  // 0 * inf
    return (sign << 31) | kInf;
  }
  return sign << 31;  // a zero operand
}

[[gnu::noinline]] uint32_t div_special(uint32_t a, uint32_t b, uint32_t& flags) {
  if (is_nan(a) || is_nan(b)) return canonical_nan_for(is_snan(a) || is_snan(b), flags);
  const uint32_t sign = sign_of(a) ^ sign_of(b);
  if (is_inf(a)) {
    if (is_inf(b)) return canonical_nan_for(true, flags);  // inf / inf
    return (sign << 31) | kInf;
  }
  if (is_inf(b)) return sign << 31;
  if (is_zero(b)) {
    if (is_zero(a)) return canonical_nan_for(true, flags);  // 0 / 0
    flags |= kDZ;                                           // finite nonzero / 0
    return (sign << 31) | kInf;
  }
  return sign << 31;  // 0 / finite nonzero
}

[[gnu::noinline]] uint32_t fma_special(uint32_t a, uint32_t b, uint32_t c, Rm rm, uint32_t& flags) {
  const bool inf_times_zero = (is_inf(a) && is_zero(b)) || (is_zero(a) && is_inf(b));
  if (is_nan(a) || is_nan(b) || is_nan(c)) {
    // RISC-V: 0 * inf raises NV even when the addend is a quiet NaN.
    return canonical_nan_for(is_snan(a) || is_snan(b) || is_snan(c) || inf_times_zero, flags);
  }
  if (inf_times_zero) return canonical_nan_for(true, flags);
  const uint32_t sign_p = sign_of(a) ^ sign_of(b);
  if (is_inf(a) || is_inf(b)) {
    if (is_inf(c) && sign_of(c) != sign_p) return canonical_nan_for(true, flags);  // inf - inf
    return (sign_p << 31) | kInf;
  }
  if (is_inf(c)) return c;
  // a*b + 0 with a, b finite nonzero: the product rounded once (its sign survives even if
  // it rounds to zero), i.e. exactly mul.
  if (!is_zero(a) && !is_zero(b)) return soft::mul(a, b, rm, flags);
  // a or b is zero: the product is an exact zero and the result is c, exactly.
  return is_zero(c) ? zero_sum(sign_p, sign_of(c), rm) : c;
}

}  // namespace

uint32_t normalize_round_pack(uint32_t sign, int exp, uint64_t sig, Rm rm, uint32_t& flags) {
  // value = sig * 2^(exp - 62) = (sig << lz) * 2^((exp + 1 - lz) - 63)
  const int lz = std::countl_zero(sig);
  return round_pack(sign, exp + 1 - lz, sig << lz, rm, flags);
}

uint32_t add(uint32_t a, uint32_t b, Rm rm, uint32_t& flags) {
  if (is_special(a) | is_special(b)) [[unlikely]] {
    return add_special(a, b, rm, flags);
  }
  const Unpacked ua = unpack(a), ub = unpack(b);
  return add_aligned(sign_of(a), ua.exp, uint64_t{ua.sig} << 38, sign_of(b), ub.exp,
                     uint64_t{ub.sig} << 38, rm, flags);
}

uint32_t mul(uint32_t a, uint32_t b, Rm rm, uint32_t& flags) {
  if (is_special(a) | is_special(b)) [[unlikely]] {
    return mul_special(a, b, flags);
  }
  const Unpacked ua = unpack(a), ub = unpack(b);
  // Exact 48-bit product: value = p * 2^(ea + eb - 46) = p * 2^((ea + eb + 16) - 62).
  const uint64_t p = uint64_t{ua.sig} * ub.sig;
  return normalize_round_pack(sign_of(a) ^ sign_of(b), ua.exp + ub.exp + 16, p, rm, flags);
}

uint32_t div(uint32_t a, uint32_t b, Rm rm, uint32_t& flags) {
  if (is_special(a) | is_special(b)) [[unlikely]] {
    return div_special(a, b, flags);
  }
  const Unpacked ua = unpack(a), ub = unpack(b);
  // 39 extra quotient bits (>= 38 significant) plus a sticky bit for the remainder.
  const uint64_t num = uint64_t{ua.sig} << 39;
  uint64_t q = num / ub.sig;
  q |= (num % ub.sig) != 0;
  // value = q * 2^(ea - eb - 39) = q * 2^((ea - eb + 23) - 62)
  return normalize_round_pack(sign_of(a) ^ sign_of(b), ua.exp - ub.exp + 23, q, rm, flags);
}

uint32_t sqrt(uint32_t a, Rm rm, uint32_t& flags) {
  if (is_nan(a)) return canonical_nan_for(is_snan(a), flags);
  if (is_zero(a)) return a;                               // sqrt(-0) = -0
  if (sign_of(a)) return canonical_nan_for(true, flags);  // negative, including -inf
  if (is_inf(a)) return a;
  const Unpacked ua = unpack(a);
  // value = n * 2^(ea - 23 - k) with the power even; n in [2^61, 2^63).
  const int k = (ua.exp & 1) ? 38 : 39;
  const uint64_t n = uint64_t{ua.sig} << k;
  uint64_t r = isqrt(n);  // >= 2^30: 31+ significant bits
  r |= (r * r != n);
  const int half_pow = (ua.exp - 23 - k) / 2;  // exact: numerator is even
  return normalize_round_pack(0, half_pow + 62, r, rm, flags);
}

uint32_t fma(uint32_t a, uint32_t b, uint32_t c, Rm rm, uint32_t& flags) {
  if (is_special(a) | is_special(b) | is_special(c)) [[unlikely]] {
    return fma_special(a, b, c, rm, flags);
  }
  const Unpacked ua = unpack(a), ub = unpack(b), uc = unpack(c);
  const uint64_t p = uint64_t{ua.sig} * ub.sig;  // exact, in [2^46, 2^48)
  // Leading one of p to bit 61: value = P * 2^(pexp - 61).
  const int top = static_cast<int>(p >> 47);  // 1 if p >= 2^47
  const int pexp = ua.exp + ub.exp + top;
  return add_aligned(sign_of(a) ^ sign_of(b), pexp, p << (15 - top), sign_of(c), uc.exp,
                     uint64_t{uc.sig} << 38, rm, flags);
}

}  // namespace tessera::fp::soft
