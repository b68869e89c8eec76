// MPFR-based reference model; see mpfr_ref.h.
//
// How the flags are derived:
//  * The exact result X is rounded to 24 bits with MPFR's default (practically unbounded)
//    exponent range: r24, ternary t24. NaN result -> invalid; mpfr_divby0_p -> DZ.
//  * |r24| >= 2^128: overflow (OF|NX), result per the IEEE/RISC-V table for rm.
//  * |r24| >= 2^-126: result r24, NX iff t24 != 0.
//  * |r24| <  2^-126: tiny AFTER rounding (the RISC-V/IEEE "after rounding" rule is exactly
//    "r24 computed with an unbounded exponent range is below 2^-126"). X is rounded again,
//    this time onto the subnormal grid, and UF = NX = (that rounding is inexact).
//    MPFR's own underflow flag is not used for this: with the usual binary32 emulation
//    (emin = -148) it fires only below 2^-149; see mpfr_underflow_flag_for_mul for the
//    emin = -125 setting, under which it matches (checked by a test).
//  * RMM (ties away) is not an MPFR rounding mode: X is computed at 80 bits toward zero
//    (T, sticky = ternary) and T is rounded with mpfr_round_nearest_away. Every binary32
//    midpoint is an 80-bit number, so T and X round the same way; X is exact iff T is and
//    T needs no further rounding.
#include "mpfr_ref.h"

#include <mpfr.h>

#include <bit>
#include <cstdio>
#include <functional>

#include "tessera/fp/softfloat.h"

namespace tessera::fp::testing {
namespace {

constexpr uint32_t kMaxFinite = 0x7f7fffffu;
constexpr uint32_t kInfBits = 0x7f800000u;

bool is_nan(uint32_t x) { return (x & 0x7fffffffu) > kInfBits; }
bool is_snan(uint32_t x) { return is_nan(x) && !(x & 0x00400000u); }
bool is_inf(uint32_t x) { return (x & 0x7fffffffu) == kInfBits; }
bool is_zero(uint32_t x) { return (x & 0x7fffffffu) == 0; }

mpfr_rnd_t native_rnd(Rm rm) {
  switch (rm) {
    case Rm::kRtz:
      return MPFR_RNDZ;
    case Rm::kRdn:
      return MPFR_RNDD;
    case Rm::kRup:
      return MPFR_RNDU;
    default:
      return MPFR_RNDN;
  }
}

// Working variables, created once (the tests are single threaded).
struct Vars {
  mpfr_t a, b, c, na, nc;  // operands (24 bits) and negated copies
  mpfr_t r24, rs, t80, rp, ri, bits_tmp;
  Vars() {
    for (mpfr_ptr v : {a, b, c, na, nc, r24, rs}) mpfr_init2(v, 24);
    mpfr_init2(t80, 80);
    mpfr_init2(rp, 24);
    mpfr_init2(ri, 64);
    mpfr_init2(bits_tmp, 64);
  }
  ~Vars() {
    for (mpfr_ptr v : {a, b, c, na, nc, r24, rs, t80, rp, ri, bits_tmp}) mpfr_clear(v);
  }
};
Vars& vars() {
  static Vars v;
  return v;
}

// Exact binary32 bits -> MPFR, built from the integer significand (no host FPU involved).
void set_bits(mpfr_ptr x, uint32_t v) {
  const int sign = (v >> 31) ? -1 : 1;
  const uint32_t e = (v >> 23) & 0xff, m = v & 0x7fffffu;
  if (e == 0xff) {
    if (m)
      mpfr_set_nan(x);
    else
      mpfr_set_inf(x, sign);
  } else if (e == 0 && m == 0) {
    mpfr_set_zero(x, sign);
  } else {
    const uint32_t sig = e ? (m | 0x800000u) : m;
    const long pow = static_cast<long>(e ? e : 1) - 150;
    mpfr_set_ui_2exp(x, sig, pow, MPFR_RNDN);  // exact: sig has <= 24 bits
    if (sign < 0) mpfr_neg(x, x, MPFR_RNDN);
  }
}

// MPFR value already representable in binary32 (normal, subnormal, zero or inf) -> bits,
// with integer operations only (so the reference does not depend on host FPU modes).
uint32_t get_bits(mpfr_srcptr x) {
  const uint32_t sign = mpfr_signbit(x) ? 0x80000000u : 0u;
  if (mpfr_inf_p(x)) return sign | kInfBits;
  if (mpfr_zero_p(x)) return sign;
  mpfr_ptr t = vars().bits_tmp;
  mpfr_abs(t, x, MPFR_RNDN);
  const long e = mpfr_get_exp(x) - 1;  // |x| in [2^e, 2^(e+1))
  if (e >= -126) {
    // Normal: x = significand * 2^(e - 23).
    mpfr_mul_2si(t, t, 23 - e, MPFR_RNDN);
    const unsigned long sig = mpfr_get_ui(t, MPFR_RNDN);
    return sign | (static_cast<uint32_t>(e + 127) << 23) | (static_cast<uint32_t>(sig) & 0x7fffffu);
  }
  mpfr_mul_2si(t, t, 149, MPFR_RNDN);  // subnormal: multiple of 2^-149
  return sign | static_cast<uint32_t>(mpfr_get_ui(t, MPFR_RNDN));
}

using Compute = std::function<int(mpfr_ptr rop, mpfr_rnd_t rnd)>;

// Rounds the value `f` computes into binary32 with RISC-V flags (see file comment).
Outcome round_to_binary32(const Compute& f, Rm rm) {
  Vars& v = vars();
  Outcome out;
  // First evaluation: r24 directly for the native modes, T (80 bits, toward zero) for RMM.
  mpfr_ptr first = rm == Rm::kRmm ? v.t80 : v.r24;
  mpfr_clear_flags();
  const int t_first = f(first, rm == Rm::kRmm ? MPFR_RNDZ : native_rnd(rm));
  // NaN: an invalid operation. Inf: exact (inf operand or x/0). Zero: exact (with an
  // unbounded exponent range nothing underflows to zero).
  if (mpfr_nan_p(first)) return {kCanonicalNaN, kNV};
  if (mpfr_inf_p(first)) return {get_bits(first), mpfr_divby0_p() ? kDZ : 0u};
  if (mpfr_zero_p(first)) return {get_bits(first), 0u};
  bool inexact24 = t_first != 0;
  if (rm == Rm::kRmm) {
    mpfr_round_nearest_away_begin(v.r24);
    const int t = mpfr_round_nearest_away_end(v.r24, mpfr_set(v.r24, v.t80, MPFR_RNDN));
    inexact24 = inexact24 || t != 0;
  }
  const bool neg = mpfr_signbit(v.r24);
  // MPFR exponent E means |x| in [2^(E-1), 2^E).
  const mpfr_exp_t e24 = mpfr_get_exp(v.r24);
  if (e24 >= 129) {  // |r24| >= 2^128: overflow after rounding
    const bool to_max = rm == Rm::kRtz || (rm == Rm::kRdn && !neg) || (rm == Rm::kRup && neg);
    return {(neg ? 0x80000000u : 0u) | (to_max ? kMaxFinite : kInfBits), kOF | kNX};
  }
  if (e24 >= -125) return {get_bits(v.r24), inexact24 ? kNX : 0u};  // |r24| >= 2^-126

  // Tiny after rounding: round X onto the subnormal grid (ulp 2^-149).
  bool inexact;
  if (rm == Rm::kRmm) {
    const long p = mpfr_get_exp(v.t80) + 149;  // bits of T at or above 2^-149
    if (p >= 1) {
      mpfr_set_prec(v.rp, p);
      mpfr_round_nearest_away_begin(v.rp);
      const int tp = mpfr_round_nearest_away_end(v.rp, mpfr_set(v.rp, v.t80, MPFR_RNDN));
      out.bits = get_bits(v.rp);
      inexact = tp != 0 || t_first != 0;
      mpfr_set_prec(v.rp, 24);
    } else {
      // |T| < 2^-149: p == 0 means |T| >= 2^-150 = half the smallest subnormal (rounds
      // away to it); p < 0 rounds to zero.
      out.bits = (neg ? 0x80000000u : 0u) | (p == 0 ? 1u : 0u);
      inexact = true;
    }
  } else {
    // MPFR's documented binary32 emulation: emin = -148, emax = 128, then subnormalize.
    const mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
    mpfr_set_emin(-148);
    mpfr_set_emax(128);
    int t = f(v.rs, native_rnd(rm));
    t = mpfr_subnormalize(v.rs, t, native_rnd(rm));
    out.bits = get_bits(v.rs);
    mpfr_set_emin(emin);
    mpfr_set_emax(emax);
    inexact = t != 0;
  }
  out.flags = inexact ? (kUF | kNX) : 0u;
  return out;
}

Outcome arith(Op op, uint32_t a, uint32_t b, uint32_t c, Rm rm) {
  const bool fma_family =
      op == Op::kFmadd || op == Op::kFmsub || op == Op::kFnmsub || op == Op::kFnmadd;
  const int n = arity(op);
  const bool any_nan = is_nan(a) || (n > 1 && is_nan(b)) || (n > 2 && is_nan(c));
  const bool any_snan = is_snan(a) || (n > 1 && is_snan(b)) || (n > 2 && is_snan(c));
  // Spec: NaN in -> canonical NaN; NV for sNaN, and for fma 0*inf even if c is a qNaN.
  const bool fma_inf_zero = fma_family && ((is_inf(a) && is_zero(b)) || (is_zero(a) && is_inf(b)));
  if (any_nan) return {kCanonicalNaN, (any_snan || fma_inf_zero) ? kNV : 0u};

  Vars& v = vars();
  set_bits(v.a, a);
  set_bits(v.b, b);
  set_bits(v.c, c);
  mpfr_neg(v.na, v.a, MPFR_RNDN);
  mpfr_neg(v.nc, v.c, MPFR_RNDN);
  Compute f;
  switch (op) {
    case Op::kAdd:
      f = [&](mpfr_ptr r, mpfr_rnd_t d) { return mpfr_add(r, v.a, v.b, d); };
      break;
    case Op::kSub:
      f = [&](mpfr_ptr r, mpfr_rnd_t d) { return mpfr_sub(r, v.a, v.b, d); };
      break;
    case Op::kMul:
      f = [&](mpfr_ptr r, mpfr_rnd_t d) { return mpfr_mul(r, v.a, v.b, d); };
      break;
    case Op::kDiv:
      f = [&](mpfr_ptr r, mpfr_rnd_t d) { return mpfr_div(r, v.a, v.b, d); };
      break;
    case Op::kSqrt:
      f = [&](mpfr_ptr r, mpfr_rnd_t d) { return mpfr_sqrt(r, v.a, d); };
      break;
    // (a*b)+c, (a*b)-c, -(a*b)+c = (-a)*b+c, -(a*b)-c = (-a)*b-c; each one rounding.
    case Op::kFmadd:
      f = [&](mpfr_ptr r, mpfr_rnd_t d) { return mpfr_fma(r, v.a, v.b, v.c, d); };
      break;
    case Op::kFmsub:
      f = [&](mpfr_ptr r, mpfr_rnd_t d) { return mpfr_fms(r, v.a, v.b, v.c, d); };
      break;
    case Op::kFnmsub:
      f = [&](mpfr_ptr r, mpfr_rnd_t d) { return mpfr_fma(r, v.na, v.b, v.c, d); };
      break;
    case Op::kFnmadd:
      f = [&](mpfr_ptr r, mpfr_rnd_t d) { return mpfr_fms(r, v.na, v.b, v.c, d); };
      break;
    default:
      break;
  }
  Outcome out = round_to_binary32(f, rm);
  if (fma_inf_zero) out.flags |= kNV;  // (already NaN + NV from MPFR; kept explicit)
  return out;
}

Outcome int_to_float(Op op, uint32_t a, Rm rm) {
  Compute f;
  if (op == Op::kCvtSW) {
    const long x = static_cast<int32_t>(a);
    f = [x](mpfr_ptr r, mpfr_rnd_t d) { return mpfr_set_si(r, x, d); };
  } else {
    const unsigned long x = a;
    f = [x](mpfr_ptr r, mpfr_rnd_t d) { return mpfr_set_ui(r, x, d); };
  }
  return round_to_binary32(f, rm);
}

Outcome float_to_int(Op op, uint32_t a, Rm rm) {
  const bool is_signed = op == Op::kCvtWS;
  const bool neg = a >> 31;
  // Spec saturation: NaN -> max; +inf/too large -> max; -inf/too small -> min (0 for .wu).
  const uint32_t max_v = is_signed ? 0x7fffffffu : 0xffffffffu;
  const uint32_t min_v = is_signed ? 0x80000000u : 0u;
  if (is_nan(a)) return {max_v, kNV};
  if (is_inf(a)) return {neg ? min_v : max_v, kNV};
  Vars& v = vars();
  set_bits(v.a, a);
  int t;
  switch (rm) {  // round to an integer (ri has 64 bits: every float integer fits exactly)
    case Rm::kRtz:
      t = mpfr_trunc(v.ri, v.a);
      break;
    case Rm::kRdn:
      t = mpfr_floor(v.ri, v.a);
      break;
    case Rm::kRup:
      t = mpfr_ceil(v.ri, v.a);
      break;
    case Rm::kRmm:  // ties away from zero
      t = mpfr_round(v.ri, v.a);
      break;
    default:  // ties to even
      t = mpfr_rint(v.ri, v.a, MPFR_RNDN);
      break;
  }
  const bool fits =
      is_signed ? mpfr_fits_sint_p(v.ri, MPFR_RNDN) != 0 : mpfr_fits_uint_p(v.ri, MPFR_RNDN) != 0;
  static_assert(sizeof(int) == 4);
  if (!fits) return {neg ? min_v : max_v, kNV};  // invalid: no NX
  const uint32_t bits = is_signed ? static_cast<uint32_t>(mpfr_get_si(v.ri, MPFR_RNDN))
                                  : static_cast<uint32_t>(mpfr_get_ui(v.ri, MPFR_RNDN));
  return {bits, t != 0 ? kNX : 0u};
}

Outcome compare(Op op, uint32_t a, uint32_t b) {
  const bool any_nan = is_nan(a) || is_nan(b);
  // Spec: feq is quiet (NV only for sNaN), flt/fle signal on any NaN; NaN compares false.
  uint32_t flags = 0;
  if (op == Op::kFeq ? (is_snan(a) || is_snan(b)) : any_nan) flags = kNV;
  if (any_nan) return {0, flags};
  Vars& v = vars();
  set_bits(v.a, a);
  set_bits(v.b, b);
  int r = 0;
  if (op == Op::kFeq) r = mpfr_equal_p(v.a, v.b);
  if (op == Op::kFlt) r = mpfr_less_p(v.a, v.b);
  if (op == Op::kFle) r = mpfr_lessequal_p(v.a, v.b);
  return {r ? 1u : 0u, flags};
}

Outcome min_max(Op op, uint32_t a, uint32_t b) {
  // Spec (minimumNumber/maximumNumber): NV on sNaN; one NaN -> the other operand;
  // both NaN -> canonical NaN. Otherwise MPFR's min/max, which order -0 below +0.
  const uint32_t flags = (is_snan(a) || is_snan(b)) ? kNV : 0u;
  if (is_nan(a) && is_nan(b)) return {kCanonicalNaN, flags};
  if (is_nan(a)) return {b, flags};
  if (is_nan(b)) return {a, flags};
  Vars& v = vars();
  set_bits(v.a, a);
  set_bits(v.b, b);
  if (op == Op::kFmin)
    mpfr_min(v.r24, v.a, v.b, MPFR_RNDN);
  else
    mpfr_max(v.r24, v.a, v.b, MPFR_RNDN);
  return {get_bits(v.r24), flags};
}

uint32_t classify(uint32_t a) {
  // Spec table: 0 -inf, 1 -normal, 2 -subnormal, 3 -0, 4 +0, 5 +subnormal, 6 +normal,
  // 7 +inf, 8 sNaN, 9 qNaN.
  const bool neg = a >> 31;
  if (is_nan(a)) return is_snan(a) ? 1u << 8 : 1u << 9;
  if (is_inf(a)) return neg ? 1u << 0 : 1u << 7;
  if (is_zero(a)) return neg ? 1u << 3 : 1u << 4;
  if ((a & 0x7f800000u) == 0) return neg ? 1u << 2 : 1u << 5;  // exponent field 0
  return neg ? 1u << 1 : 1u << 6;
}

}  // namespace

const char* op_name(Op op) {
  static const char* const kNames[] = {"fadd.s",    "fsub.s",   "fmul.s",    "fdiv.s",   "fsqrt.s",
                                       "fmadd.s",   "fmsub.s",  "fnmsub.s",  "fnmadd.s", "fcvt.w.s",
                                       "fcvt.wu.s", "fcvt.s.w", "fcvt.s.wu", "feq.s",    "flt.s",
                                       "fle.s",     "fmin.s",   "fmax.s",    "fclass.s"};
  return kNames[static_cast<int>(op)];
}

int arity(Op op) {
  switch (op) {
    case Op::kSqrt:
    case Op::kCvtWS:
    case Op::kCvtWuS:
    case Op::kCvtSW:
    case Op::kCvtSWu:
    case Op::kFclass:
      return 1;
    case Op::kFmadd:
    case Op::kFmsub:
    case Op::kFnmsub:
    case Op::kFnmadd:
      return 3;
    default:
      return 2;
  }
}

bool uses_rm(Op op) { return op <= Op::kCvtSWu; }

const char* rm_name(Rm rm) {
  static const char* const kNames[] = {"rne", "rtz", "rdn", "rup", "rmm"};
  return static_cast<int>(rm) < 5 ? kNames[static_cast<int>(rm)] : "rm?";
}

std::string flags_string(uint32_t flags) {
  static const char* const kNames[] = {"NX", "UF", "OF", "DZ", "NV"};
  std::string s;
  for (int i = 4; i >= 0; --i) {
    if (flags & (1u << i)) s += s.empty() ? kNames[i] : std::string("|") + kNames[i];
  }
  return s.empty() ? "-" : s;
}

Outcome reference(Op op, uint32_t a, uint32_t b, uint32_t c, Rm rm) {
  switch (op) {
    case Op::kCvtWS:
    case Op::kCvtWuS:
      return float_to_int(op, a, rm);
    case Op::kCvtSW:
    case Op::kCvtSWu:
      return int_to_float(op, a, rm);
    case Op::kFeq:
    case Op::kFlt:
    case Op::kFle:
      return compare(op, a, b);
    case Op::kFmin:
    case Op::kFmax:
      return min_max(op, a, b);
    case Op::kFclass:
      return {classify(a), 0};
    default:
      return arith(op, a, b, c, rm);
  }
}

Outcome call_api(Op op, uint32_t a, uint32_t b, uint32_t c, Rm rm) {
  Outcome o;
  uint32_t& fl = o.flags;
  switch (op) {
    case Op::kAdd:
      o.bits = add(a, b, rm, fl);
      break;
    case Op::kSub:
      o.bits = sub(a, b, rm, fl);
      break;
    case Op::kMul:
      o.bits = mul(a, b, rm, fl);
      break;
    case Op::kDiv:
      o.bits = div(a, b, rm, fl);
      break;
    case Op::kSqrt:
      o.bits = fp::sqrt(a, rm, fl);
      break;
    case Op::kFmadd:
      o.bits = fmadd(a, b, c, rm, fl);
      break;
    case Op::kFmsub:
      o.bits = fmsub(a, b, c, rm, fl);
      break;
    case Op::kFnmsub:
      o.bits = fnmsub(a, b, c, rm, fl);
      break;
    case Op::kFnmadd:
      o.bits = fnmadd(a, b, c, rm, fl);
      break;
    case Op::kCvtWS:
      o.bits = cvt_w_s(a, rm, fl);
      break;
    case Op::kCvtWuS:
      o.bits = cvt_wu_s(a, rm, fl);
      break;
    case Op::kCvtSW:
      o.bits = cvt_s_w(a, rm, fl);
      break;
    case Op::kCvtSWu:
      o.bits = cvt_s_wu(a, rm, fl);
      break;
    case Op::kFeq:
      o.bits = feq(a, b, fl);
      break;
    case Op::kFlt:
      o.bits = flt(a, b, fl);
      break;
    case Op::kFle:
      o.bits = fle(a, b, fl);
      break;
    case Op::kFmin:
      o.bits = fmin(a, b, fl);
      break;
    case Op::kFmax:
      o.bits = fmax(a, b, fl);
      break;
    case Op::kFclass:
      o.bits = fclass(a);
      break;
  }
  return o;
}

bool call_soft(Op op, uint32_t a, uint32_t b, uint32_t c, Rm rm, Outcome& o) {
  constexpr uint32_t kNeg = 0x80000000u;
  o = {};
  uint32_t& fl = o.flags;
  switch (op) {
    case Op::kAdd:
      o.bits = soft::add(a, b, rm, fl);
      return true;
    case Op::kSub:
      o.bits = soft::add(a, b ^ kNeg, rm, fl);
      return true;
    case Op::kMul:
      o.bits = soft::mul(a, b, rm, fl);
      return true;
    case Op::kDiv:
      o.bits = soft::div(a, b, rm, fl);
      return true;
    case Op::kSqrt:
      o.bits = soft::sqrt(a, rm, fl);
      return true;
    case Op::kFmadd:
      o.bits = soft::fma(a, b, c, rm, fl);
      return true;
    case Op::kFmsub:
      o.bits = soft::fma(a, b, c ^ kNeg, rm, fl);
      return true;
    case Op::kFnmsub:
      o.bits = soft::fma(a ^ kNeg, b, c, rm, fl);
      return true;
    case Op::kFnmadd:
      o.bits = soft::fma(a ^ kNeg, b, c ^ kNeg, rm, fl);
      return true;
    default:
      return false;
  }
}

bool mpfr_underflow_flag_for_mul(uint32_t a, uint32_t b, Rm rm) {
  Vars& v = vars();
  set_bits(v.a, a);
  set_bits(v.b, b);
  // 2^-126 = 0.5 * 2^-125 is the smallest number of MPFR's exponent range [-125, 128]:
  // MPFR signals underflow when X rounded to 24 bits with unbounded exponent is below it.
  const mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
  mpfr_set_emin(-125);
  mpfr_set_emax(128);
  mpfr_clear_flags();
  mpfr_mul(v.rs, v.a, v.b, native_rnd(rm));
  const bool uf = mpfr_underflow_p() != 0;
  mpfr_set_emin(emin);
  mpfr_set_emax(emax);
  return uf;
}

bool reference_tiny_for_mul(uint32_t a, uint32_t b, Rm rm) {
  Vars& v = vars();
  set_bits(v.a, a);
  set_bits(v.b, b);
  mpfr_mul(v.r24, v.a, v.b, native_rnd(rm));
  return !mpfr_zero_p(v.r24) && mpfr_get_exp(v.r24) < -125;  // |r24| < 2^-126
}

}  // namespace tessera::fp::testing
