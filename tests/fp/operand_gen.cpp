// Operand generation; see operand_gen.h. Generation may use the host FPU freely (it only
// needs to produce interesting inputs, never expected results).
#include "operand_gen.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <utility>

namespace tessera::fp::testing {
namespace {

constexpr uint32_t kSpecials[] = {
    0x00000000, 0x80000000,              // +-0
    0x7f800000, 0xff800000,              // +-inf
    0x7fc00000, 0xffc00000, 0x7fffffff,  // quiet NaNs (canonical, negative, max payload)
    0x7f800001, 0xff800001, 0x7fa00000, 0x7fbfffff,  // signaling NaNs
    0x00000001, 0x80000001,                          // smallest subnormal
    0x007fffff, 0x807fffff,                          // largest subnormal
    0x00400000, 0x00000002, 0x00000003,              // other subnormals
    0x00800000, 0x80800000,                          // smallest normal
    0x00800001, 0x00ffffff,                          // just above it
    0x7f7fffff, 0xff7fffff, 0x7f7ffffe,              // largest normal
    0x7f000000, 0x7effffff,                          // 2^127, just below
    0x3f800000, 0xbf800000,                          // +-1.0
    0x3f800001, 0x3f7fffff, 0x3fffffff,              // around 1 and 2
    0x3f000000, 0xbf000000,                          // +-0.5
    0x3fc00000, 0xbfc00000, 0x40200000,              // 1.5, -1.5, 2.5
    0x4f000000, 0x4effffff, 0x4f000001,              // 2^31 and neighbours
    0xcf000000, 0xceffffff, 0xcf000001,              // -2^31 and neighbours
    0x4f800000, 0x4f7fffff, 0x4f800001,              // 2^32 and neighbours
    0x4b800000, 0x4b7fffff, 0x4b000000,              // 2^24, 2^24-1, 2^23
    0x34000000, 0x33800000,                          // 2^-23, 2^-24
    0x1f800000, 0x5f800000,  // 2^-64, 2^64 (products/quotients cross the range)
};

// Largest finite binary32 bits for a sign.
constexpr uint32_t kMaxFiniteBits = 0x7f7fffffu;

float f32(uint32_t x) { return std::bit_cast<float>(x); }
uint32_t bits(float f) { return std::bit_cast<uint32_t>(f); }

int unbiased_exp(uint32_t x) {  // for finite nonzero x (subnormals: as if normalized)
  const int e = static_cast<int>((x >> 23) & 0xff);
  if (e) return e - 127;
  return -126 - (std::countl_zero(x & 0x7fffffu) - 8);
}

}  // namespace

OperandGen::OperandGen(uint64_t seed) {
  for (uint64_t& s : s_) {  // splitmix64 seeding
    seed += 0x9e3779b97f4a7c15ull;
    uint64_t z = seed;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    s = z ^ (z >> 31);
  }
}

uint64_t OperandGen::next() {
  const uint64_t result = std::rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = std::rotl(s_[3], 45);
  return result;
}

uint32_t OperandGen::below(uint32_t n) { return static_cast<uint32_t>((next() >> 32) * n >> 32); }
int OperandGen::range(int lo, int hi) { return lo + static_cast<int>(below(hi - lo + 1)); }
bool OperandGen::chance(uint32_t percent) { return below(100) < percent; }

uint32_t OperandGen::special() {
  return kSpecials[below(sizeof(kSpecials) / sizeof(kSpecials[0]))];
}

int OperandGen::num_specials() { return sizeof(kSpecials) / sizeof(kSpecials[0]); }
uint32_t OperandGen::special_at(int i) { return kSpecials[i]; }

uint32_t OperandGen::mantissa() {
  constexpr uint32_t kMask = 0x7fffffu;
  const uint32_t r = static_cast<uint32_t>(next());
  switch (below(9)) {
    case 0:
      return 0;
    case 1:
      return kMask;
    case 2:
      return 1u << below(23);
    case 3: {  // a run of ones
      const int lo = range(0, 22), hi = range(lo, 22);
      return ((2u << hi) - 1) & ~((1u << lo) - 1) & kMask;
    }
    case 4: {  // a run of zeros in ones
      const int lo = range(0, 22), hi = range(lo, 22);
      return ~(((2u << hi) - 1) & ~((1u << lo) - 1)) & kMask;
    }
    case 5:
      return r & static_cast<uint32_t>(next()) & static_cast<uint32_t>(next()) & kMask;
    case 6:
      return (r | static_cast<uint32_t>(next())) & kMask;
    case 7:
      return (below(2) ? (1u << below(24)) - 1 : ~((1u << below(24)) - 1)) & kMask;
    default:
      return r & kMask;
  }
}

uint32_t OperandGen::make(uint32_t sign, int exp, uint32_t sig) {
  const uint32_t s = sign << 31;
  sig &= 0xffffffu;
  sig |= 0x800000u;
  if (exp > 127) return s | kMaxFiniteBits;
  if (exp >= -126) return s | (static_cast<uint32_t>(exp + 127) << 23) | (sig & 0x7fffffu);
  const int shift = -126 - exp;
  return s | (shift >= 24 ? 0u : sig >> shift);
}

uint32_t OperandGen::with_exp(int exp) { return make(below(2), exp, mantissa()); }

uint32_t OperandGen::any_float() {
  const uint32_t k = below(100);
  if (k < 10) return special();
  if (k < 30) return static_cast<uint32_t>(next());
  if (k < 60) return with_exp(range(-150, 127));     // whole range incl. subnormals
  if (k < 63) return (below(2) << 31) | mantissa();  // subnormal
  return with_exp(range(-12, 12));                   // "ordinary" magnitudes
}

uint32_t OperandGen::odd_with_bits(int nbits) {
  if (nbits <= 1) return 1;
  const uint32_t r = static_cast<uint32_t>(next()) | mantissa();
  return (1u << (nbits - 1)) | (r & ((1u << (nbits - 1)) - 1)) | 1u;
}

void OperandGen::add_operands(uint32_t& a, uint32_t& b) {
  switch (below(8)) {
    case 0:
      a = any_float();
      b = any_float();
      return;
    case 1:  // aligned at a random distance (carries, cancellation, sticky bits)
      a = with_exp(range(-140, 126));
      b = make(below(2), unbiased_exp(a) + range(-30, 30), mantissa());
      return;
    case 2: {  // b = -(a +- a few ulps): massive cancellation, often into subnormals
      a = chance(30) ? with_exp(range(-130, -110)) : any_float();
      b = (a ^ 0x80000000u) + static_cast<uint32_t>(range(-3, 3));
      return;
    }
    case 3: {  // a + b exactly halfway between two floats: b = odd * ulp(a)/2
      a = chance(20) ? with_exp(range(-126, -100)) : with_exp(range(-100, 127));
      const int nb = range(1, 24);
      const uint32_t odd = odd_with_bits(nb);
      // value(b) = odd * 2^(ea - 24) = (odd << (24 - nb)) * 2^((ea - 24 + nb - 1) - 23)
      b = make(below(2), unbiased_exp(a) - 24 + nb - 1, odd << (24 - nb));
      return;
    }
    case 4:  // overflow region
      a = make(below(4) ? 0 : 1, range(125, 127), mantissa());
      b = make(a >> 31, range(120, 127), mantissa());
      return;
    case 5:  // both tiny: subnormal results, carries into the normal range
      a = with_exp(range(-150, -120));
      b = with_exp(range(-150, -120));
      return;
    case 6:  // specials against anything
      a = special();
      b = below(2) ? special() : any_float();
      if (below(2)) std::swap(a, b);
      return;
    default:  // ordinary values with close exponents
      a = with_exp(range(-8, 8));
      b = with_exp(range(-8, 8));
      return;
  }
}

void OperandGen::mul_operands(uint32_t& a, uint32_t& b) {
  switch (below(7)) {
    case 0:
      a = any_float();
      b = any_float();
      return;
    case 1:
    case 2: {  // few-bit odd significands: exact products or exact ties (25 significant bits)
      const int nx = range(1, 24);
      const int total = below(3) ? range(25, 26) : range(2, 40);  // mostly 24-bit ties
      const int ny = std::clamp(total - nx, 1, 24);
      const uint32_t x = odd_with_bits(nx), y = odd_with_bits(ny);
      // Target the product exponent: ordinary, subnormal or overflow region.
      const uint32_t region = below(4);
      const int target = region == 0   ? range(-160, -120)
                         : region == 1 ? range(124, 129)
                                       : range(-40, 40);  // (half of the cases)
      const int ea = range(std::max(-126, target - 127), std::min(127, target + 126));
      a = make(below(2), ea, x << (24 - nx));
      b = make(below(2), target - ea, y << (24 - ny));
      return;
    }
    case 3: {  // random significands, product exponent near the subnormal/overflow edges
      const int target = below(2) ? range(-155, -120) : range(124, 130);
      const int ea = range(std::max(-126, target - 127), std::min(127, target + 126));
      a = make(below(2), ea, mantissa());
      b = make(below(2), target - ea, mantissa());
      return;
    }
    case 4:  // a subnormal operand
      a = (below(2) << 31) | mantissa();
      b = with_exp(range(-10, 127));
      if (below(2)) std::swap(a, b);
      return;
    case 5:
      a = special();
      b = below(2) ? special() : any_float();
      if (below(2)) std::swap(a, b);
      return;
    default:
      a = with_exp(range(-10, 10));
      b = with_exp(range(-10, 10));
      return;
  }
}

void OperandGen::div_operands(uint32_t& a, uint32_t& b) {
  switch (below(7)) {
    case 0:
      a = any_float();
      b = any_float();
      return;
    case 1: {  // exact quotients a = b * q (q has few bits), over the whole range
      const int nb = range(1, 12), nq = range(1, 12);
      const uint32_t y = odd_with_bits(nb), q = odd_with_bits(nq);
      const int eb = range(-60, 60);
      const int eq = below(3) ? range(-30, 30) : range(-150, -120);
      b = make(below(2), eb, y << (24 - nb));
      a = make(below(2), eb + eq, (y * q) << (24 - std::bit_width(y * q)));
      // (when a lands in the subnormal range the truncation makes it inexact: still useful)
      return;
    }
    case 2: {  // quotient exactly on a subnormal-grid midpoint: odd * 2^-150 (+ small shift)
      const int nb = range(1, 10), nq = range(1, 13);
      const uint32_t y = odd_with_bits(nb), q = odd_with_bits(nq);
      const int shift = below(2) ? 0 : range(0, 3);
      // b = y * 2^eb ; a = y * q * 2^(eb - 150 + shift): choose eb to keep a normal.
      const int eb = range(40, 100);
      b = make(below(2), eb + nb - 1, y << (24 - nb));
      const uint32_t yq = y * q;
      const int lq = std::bit_width(yq);
      a = make(below(2), eb - 150 + shift + lq - 1, yq << (24 - lq));
      return;
    }
    case 3: {  // quotient exponent at the subnormal/overflow edges
      const int target = below(2) ? range(-155, -120) : range(124, 130);
      const int eb = range(std::max(-126, -127 - target), std::min(127, 127 - target));
      b = make(below(2), eb, mantissa());
      a = make(below(2), target + eb, mantissa());
      return;
    }
    case 4:
      if (below(2)) {  // a quotient just below 2^-126: (2^24 - 1) * 2^-150 and neighbours
        b = make(0, range(0, 20), 0x800000u);
        a = make(below(2), unbiased_exp(b) - 127, 0xffffffu - below(3));
      } else {
        // a/b = 2^-126 * (B - d) / B: inexact, within a few 2^-150 below 2^-126 (rounds to
        // 2^-126 on the subnormal grid in some modes). Note a quotient of 24-bit
        // significands never gets within 2^-150 of 2^-126 from below (1/B > 2^-24), so the
        // "tiny before rounding, not after" window is unreachable for division; mul and
        // fma cover it.
        const uint32_t sig = 0x800000u | mantissa() | 1u;
        const int eb = range(0, 60);
        b = make(below(2), eb, sig);
        a = make(below(2), eb - 126, sig - range(1, 3));
      }
      return;
    case 5:
      a = below(2) ? special() : any_float();
      b = below(2) ? special() : any_float();
      return;
    default:
      a = with_exp(range(-10, 10));
      b = with_exp(range(-10, 10));
      return;
  }
}

uint32_t OperandGen::sqrt_operand() {
  switch (below(5)) {
    case 0:
      return any_float();
    case 1: {  // exact squares (and their neighbours)
      const int nq = range(1, 12);
      const uint32_t q = odd_with_bits(nq);
      const uint32_t sq = q * q;
      const int l = std::bit_width(sq);
      const uint32_t x = make(0, 2 * range(-70, 63) + l - 1, sq << (24 - l));
      return x + static_cast<uint32_t>(below(4) ? 0 : range(-2, 2));
    }
    case 2:
      return mantissa();  // positive subnormal
    case 3:
      return special();
    default:
      return make(0, range(-126, 127), mantissa());
  }
}

void OperandGen::fma_operands(uint32_t& a, uint32_t& b, uint32_t& c) {
  switch (below(10)) {
    case 0:
      a = any_float();
      b = any_float();
      c = any_float();
      return;
    case 1: {  // c ~ -(a*b): massive cancellation, exact tiny remainders, subnormal results
      a = chance(30) ? with_exp(range(-70, -55)) : with_exp(range(-20, 20));
      b = with_exp(range(-20, 20));
      const float p = f32(a) * f32(b);
      c = (bits(-p)) + static_cast<uint32_t>(range(-2, 2));
      return;
    }
    case 2:
    case 3: {  // (a*b) + c exactly at a midpoint of c's binade: P = odd * 2^k, ulp(c) = 2^(k+1)
      const int nx = range(1, 12), ny = range(1, 11);
      const uint32_t x = odd_with_bits(nx), y = odd_with_bits(ny);
      const int ea = range(-40, 40), eb = range(-40, 40);
      a = make(below(2), ea, x << (24 - nx));
      b = make(below(2), eb, y << (24 - ny));
      const int k = (ea - nx + 1) + (eb - ny + 1);  // exponent of the product's lowest bit
      // c's ulp is 2^(ec - 23) == 2^(k + 1)  ->  ec = k + 24; sometimes shift it a little.
      c = make(below(2), k + 24 + (below(4) ? 0 : range(-2, 2)), mantissa());
      return;
    }
    case 4: {  // product near the subnormal edge or overflow, c nearby
      const int target = below(2) ? range(-155, -115) : range(122, 130);
      const int ea = range(std::max(-126, target - 127), std::min(127, target + 126));
      a = make(below(2), ea, mantissa());
      b = make(below(2), target - ea, mantissa());
      c = with_exp(std::clamp(target + range(-30, 5), -150, 127));
      return;
    }
    case 5:  // c far below the product (sticky only) or far above it
      a = with_exp(range(-30, 30));
      b = with_exp(range(-30, 30));
      c = with_exp(std::clamp(
          unbiased_exp(a) + unbiased_exp(b) + (below(2) ? -range(20, 80) : range(20, 80)), -150,
          127));
      return;
    case 6: {  // specials, including 0 * inf + qNaN
      a = below(2) ? special() : any_float();
      b = below(2) ? special() : any_float();
      c = below(2) ? special() : any_float();
      if (chance(15)) {
        a = below(2) ? 0x7f800000u : 0xff800000u;
        b = below(2) ? 0u : 0x80000000u;
        if (below(2)) std::swap(a, b);
      }
      return;
    }
    case 8: {
      // Double-rounding trap for a host fast path that adds in double: a*b = 2^46 - d^2
      // (in units) sits just below c's half ulp, so the exact sum is a hair off a binary32
      // midpoint while its double rounding lands exactly on it.
      const uint32_t d = range(1, 360);
      const int ea = range(-40, 40), eb = range(-40, 40);
      a = make(below(2), ea, 0x800000u + d);
      b = make(below(2), eb, 0x800000u - d);
      c = make(below(2), ea + eb + 24 + (below(4) ? 0 : range(-1, 1)), mantissa());
      return;
    }
    case 7:  // subnormal operands
      a = (below(2) << 31) | mantissa();
      b = with_exp(range(-20, 127));
      c = below(2) ? ((below(2) << 31) | mantissa()) : with_exp(range(-150, -100));
      return;
    default:
      a = with_exp(range(-8, 8));
      b = with_exp(range(-8, 8));
      c = with_exp(range(-10, 10));
      return;
  }
}

uint32_t OperandGen::float_to_int_operand() {
  switch (below(6)) {
    case 0:
      return any_float();
    case 1: {  // k + fraction (halves, quarters, just off) for k of any size up to 2^33
      const double k = std::ldexp(static_cast<double>(next() >> 11), range(-53, -20));
      static constexpr double kFrac[] = {0.0, 0.5, 0.25, 0.75, 1e-3, 0.999, 0.4999, 0.5001};
      const double v = std::floor(k) + kFrac[below(8)];
      return bits(static_cast<float>(below(2) ? -v : v));
    }
    case 2: {  // around +-2^31 and 2^32
      static constexpr uint32_t kEdges[] = {0x4f000000, 0xcf000000, 0x4f800000, 0xcf800000};
      return kEdges[below(4)] + static_cast<uint32_t>(range(-4, 4));
    }
    case 3:
      return make(1, range(-30, 0), mantissa());  // (-2, 0): fcvt.wu.s edge
    case 4:
      return special();
    default:
      return with_exp(range(-3, 34));
  }
}

uint32_t OperandGen::int_operand() {
  switch (below(5)) {
    case 0:
      return static_cast<uint32_t>(next());
    case 1: {  // random bit length, either sign
      const int len = range(0, 32);
      const uint32_t m = len == 32 ? ~0u : (1u << len) - 1;
      const uint32_t v = static_cast<uint32_t>(next()) & m;
      return below(2) ? v : 0u - v;
    }
    case 2: {  // 24..26 significant bits: exact, ties, near-ties
      const uint32_t odd = odd_with_bits(range(24, 26));
      const int shift = range(0, 32 - std::bit_width(odd));
      const uint32_t v = odd << shift;
      return below(2) ? v : 0u - v;
    }
    case 3: {
      static constexpr uint32_t kInts[] = {
          0,          1,          0xffffffff, 0x80000000, 0x7fffffff, 0x01000000, 0x01000001,
          0x00ffffff, 0xff000000, 0xfeffffff, 0x7fffff80, 0x7fffffc0, 0xffffff80};
      return kInts[below(sizeof(kInts) / sizeof(kInts[0]))] + static_cast<uint32_t>(range(-1, 1));
    }
    default:
      return static_cast<uint32_t>(next()) >> below(32);
  }
}

void OperandGen::compare_operands(uint32_t& a, uint32_t& b) {
  a = any_float();
  switch (below(5)) {
    case 0:
      b = a;
      return;
    case 1:
      b = a ^ 0x80000000u;
      return;  // includes +0 vs -0
    case 2:
      b = a + static_cast<uint32_t>(range(-2, 2));
      return;
    case 3:
      b = special();
      return;
    default:
      b = any_float();
      return;
  }
}

}  // namespace tessera::fp::testing
