// Integer conversions, comparisons, fmin/fmax and fclass. All exact integer code: these
// are cheap enough that a host fast path would buy little, and integer compares stay
// correct even if the host runs with denormals-are-zero.
#include <bit>

#include "tessera/fp/fp32.h"
#include "tessera/fp/softfloat.h"

namespace tessera::fp {
namespace {

constexpr uint32_t kSignBit = 0x80000000u;
constexpr uint32_t kInf = 0x7f800000u;

constexpr bool is_nan(uint32_t x) { return (x & 0x7fffffffu) > kInf; }
constexpr bool is_snan(uint32_t x) { return is_nan(x) && !(x & 0x00400000u); }
constexpr bool is_inf(uint32_t x) { return (x & 0x7fffffffu) == kInf; }

// Rounds |x| (finite) to an integer under rm (rm applied to the signed value), returning
// the magnitude; anything >= 2^40 is returned as 2^40 (out of every range we check).
uint64_t round_to_integer_magnitude(uint32_t x, Rm rm, bool& inexact) {
  inexact = false;
  const uint32_t sign = x >> 31;
  const int e = static_cast<int>((x >> 23) & 0xff);
  const uint32_t m = x & 0x7fffffu;
  if (e == 0 && m == 0) return 0;
  const uint64_t sig = e ? (m | 0x800000u) : m;  // value = sig * 2^(max(e,1) - 150)
  const int pow = (e ? e : 1) - 150;
  if (pow >= 0) return pow > 16 ? (uint64_t{1} << 40) : sig << pow;  // integral already
  const int shift = -pow;
  uint64_t q, rem, half;
  if (shift >= 26) {  // |x| < 2^-1: nonzero, below one half
    q = 0;
    rem = 1;
    half = 2;
  } else {
    q = sig >> shift;
    rem = sig & ((uint64_t{1} << shift) - 1);
    half = uint64_t{1} << (shift - 1);
  }
  bool up;
  switch (rm) {
    case Rm::kRtz:
      up = false;
      break;
    case Rm::kRdn:
      up = sign && rem;
      break;
    case Rm::kRup:
      up = !sign && rem;
      break;
    case Rm::kRmm:
      up = rem >= half;
      break;
    default:
      up = rem > half || (rem == half && (q & 1));
      break;
  }
  inexact = rem != 0;
  return q + up;
}

// Order key for non-NaN values: -0 and +0 map to the same key.
constexpr int32_t order_key(uint32_t x) {
  return (x & kSignBit) ? -static_cast<int32_t>(x & 0x7fffffffu) : static_cast<int32_t>(x);
}

}  // namespace

uint32_t cvt_w_s(uint32_t a, Rm rm, uint32_t& flags) {
  if (is_nan(a)) {
    flags |= kNV;
    return 0x7fffffffu;
  }
  const bool neg = a >> 31;
  if (is_inf(a)) {
    flags |= kNV;
    return neg ? 0x80000000u : 0x7fffffffu;
  }
  bool inexact;
  const uint64_t mag = round_to_integer_magnitude(a, rm, inexact);
  if (neg ? mag > 0x80000000u : mag > 0x7fffffffu) {  // out of range: NV only, no NX
    flags |= kNV;
    return neg ? 0x80000000u : 0x7fffffffu;
  }
  if (inexact) flags |= kNX;
  return neg ? 0u - static_cast<uint32_t>(mag) : static_cast<uint32_t>(mag);
}

uint32_t cvt_wu_s(uint32_t a, Rm rm, uint32_t& flags) {
  if (is_nan(a)) {
    flags |= kNV;
    return 0xffffffffu;
  }
  const bool neg = a >> 31;
  if (is_inf(a)) {
    flags |= kNV;
    return neg ? 0u : 0xffffffffu;
  }
  bool inexact;
  const uint64_t mag = round_to_integer_magnitude(a, rm, inexact);
  // A negative input is only valid if it rounds to 0 (e.g. -0.4 under RNE gives 0, NX).
  if (neg ? mag != 0 : mag > 0xffffffffu) {
    flags |= kNV;
    return neg ? 0u : 0xffffffffu;
  }
  if (inexact) flags |= kNX;
  return static_cast<uint32_t>(mag);
}

uint32_t cvt_s_w(uint32_t a, Rm rm, uint32_t& flags) {
  if (a == 0) return 0;
  const uint32_t sign = a >> 31;
  const uint32_t mag = sign ? 0u - a : a;  // INT32_MIN -> 2^31, fine as unsigned
  return soft::normalize_round_pack(sign, 62, mag, rm, flags);  // value = mag * 2^0
}

uint32_t cvt_s_wu(uint32_t a, Rm rm, uint32_t& flags) {
  if (a == 0) return 0;
  return soft::normalize_round_pack(0, 62, a, rm, flags);
}

uint32_t feq(uint32_t a, uint32_t b, uint32_t& flags) {
  if (is_nan(a) || is_nan(b)) {
    if (is_snan(a) || is_snan(b)) flags |= kNV;  // quiet comparison
    return 0;
  }
  return order_key(a) == order_key(b);
}

uint32_t flt(uint32_t a, uint32_t b, uint32_t& flags) {
  if (is_nan(a) || is_nan(b)) {
    flags |= kNV;  // signaling comparison
    return 0;
  }
  return order_key(a) < order_key(b);
}

uint32_t fle(uint32_t a, uint32_t b, uint32_t& flags) {
  if (is_nan(a) || is_nan(b)) {
    flags |= kNV;
    return 0;
  }
  return order_key(a) <= order_key(b);
}

uint32_t fmin(uint32_t a, uint32_t b, uint32_t& flags) {
  if (is_snan(a) || is_snan(b)) flags |= kNV;
  if (is_nan(a)) return is_nan(b) ? kCanonicalNaN : b;
  if (is_nan(b)) return a;
  const int32_t ka = order_key(a), kb = order_key(b);
  if (ka != kb) return ka < kb ? a : b;
  return a | b;  // equal: identical bits, or +0/-0 where min is -0
}

uint32_t fmax(uint32_t a, uint32_t b, uint32_t& flags) {
  if (is_snan(a) || is_snan(b)) flags |= kNV;
  if (is_nan(a)) return is_nan(b) ? kCanonicalNaN : b;
  if (is_nan(b)) return a;
  const int32_t ka = order_key(a), kb = order_key(b);
  if (ka != kb) return ka > kb ? a : b;
  return a & b;  // equal: identical bits, or +0/-0 where max is +0
}

uint32_t fclass(uint32_t a) {
  const bool neg = a >> 31;
  const uint32_t e = (a >> 23) & 0xff;
  const uint32_t m = a & 0x7fffffu;
  int bit;
  if (e == 0xff) {
    if (m != 0) return (m & 0x400000u) ? 1u << 9 : 1u << 8;  // quiet / signaling NaN
    bit = neg ? 0 : 7;                                       // infinity
  } else if (e == 0) {
    bit = m == 0 ? (neg ? 3 : 4) : (neg ? 2 : 5);  // zero / subnormal
  } else {
    bit = neg ? 1 : 6;  // normal
  }
  return 1u << bit;
}

}  // namespace tessera::fp
