/* fp-fma: fmadd.s fmsub.s fnmsub.s fnmadd.s (unprivileged spec 11.6): rs1*rs2 + rs3,
   rs1*rs2 - rs3, -(rs1*rs2) + rs3, -(rs1*rs2) - rs3 with ONE rounding (a result that two
   roundings get wrong), in every rounding mode where inexact, including ties of negated
   results; the sign of exact zeros; inf * 0 raises NV even when the addend is a quiet
   NaN (spec 11.6); inf - inf; NaN inputs give the canonical NaN; no intermediate
   overflow or underflow (max * 2 - max = max exactly). Expected values from an exact
   rational model of binary32. Runs on the ISS and on QEMU. */
#define ISA_TEST_FP 1
#include "isa_test.h"

ISA_TEST_BEGIN
  /* the four sign variants: 2 * 3 and 1 */
  TEST_FRRR_RM(1, fmadd.s, rne, 0x40e00000, 0, 0x40000000, 0x40400000, 0x3f800000)   /* fmadd.s: 2 * 3, 1 */
  TEST_FRRR_RM(2, fmsub.s, rne, 0x40a00000, 0, 0x40000000, 0x40400000, 0x3f800000)   /* fmsub.s: 2 * 3, 1 */
  TEST_FRRR_RM(3, fnmsub.s, rne, 0xc0a00000, 0, 0x40000000, 0x40400000, 0x3f800000)   /* fnmsub.s: 2 * 3, 1 */
  TEST_FRRR_RM(4, fnmadd.s, rne, 0xc0e00000, 0, 0x40000000, 0x40400000, 0x3f800000)   /* fnmadd.s: 2 * 3, 1 */
  /* one rounding: (1 + 2^-23)(1 - 2^-23) - 1 = -2^-46 exactly (two roundings give 0) */
  TEST_FRRR_RM(5, fmsub.s, rne, 0xa8800000, 0, 0x3f800001, 0x3f7ffffe, 0x3f800000)   /* fused: exact tiny difference */
  TEST_FRRR_RM(6, fmadd.s, rne, 0xa8800000, 0, 0x3f800001, 0x3f7ffffe, 0xbf800000)   /* the same through fmadd */
  TEST_FRRR_RM(7, fnmadd.s, rne, 0x28800000, 0, 0x3f800001, 0x3f7ffffe, 0xbf800000)   /* and negated */
  /* ties and signs in every mode */
  TEST_FRRR_RM(8, fmadd.s, rne, 0x3f800000, FF_NX, 0x3f800000, 0x3f800000, 0x33800000)   /* 1 * 1 + 2^-24: a tie */
  TEST_FRRR_RM(9, fmadd.s, rtz, 0x3f800000, FF_NX, 0x3f800000, 0x3f800000, 0x33800000)   /* 1 * 1 + 2^-24: a tie */
  TEST_FRRR_RM(10, fmadd.s, rdn, 0x3f800000, FF_NX, 0x3f800000, 0x3f800000, 0x33800000)   /* 1 * 1 + 2^-24: a tie */
  TEST_FRRR_RM(11, fmadd.s, rup, 0x3f800001, FF_NX, 0x3f800000, 0x3f800000, 0x33800000)   /* 1 * 1 + 2^-24: a tie */
  TEST_FRRR_RM(12, fmadd.s, rmm, 0x3f800001, FF_NX, 0x3f800000, 0x3f800000, 0x33800000)   /* 1 * 1 + 2^-24: a tie */
  TEST_FRRR_RM(13, fmsub.s, rne, 0x3f800000, FF_NX, 0x3f800000, 0x3f800000, 0x33000000)   /* 1 * 1 - 2^-25: a tie below 1 */
  TEST_FRRR_RM(14, fmsub.s, rtz, 0x3f7fffff, FF_NX, 0x3f800000, 0x3f800000, 0x33000000)   /* 1 * 1 - 2^-25: a tie below 1 */
  TEST_FRRR_RM(15, fmsub.s, rdn, 0x3f7fffff, FF_NX, 0x3f800000, 0x3f800000, 0x33000000)   /* 1 * 1 - 2^-25: a tie below 1 */
  TEST_FRRR_RM(16, fmsub.s, rup, 0x3f800000, FF_NX, 0x3f800000, 0x3f800000, 0x33000000)   /* 1 * 1 - 2^-25: a tie below 1 */
  TEST_FRRR_RM(17, fmsub.s, rmm, 0x3f800000, FF_NX, 0x3f800000, 0x3f800000, 0x33000000)   /* 1 * 1 - 2^-25: a tie below 1 */
  TEST_FRRR_RM(18, fnmadd.s, rne, 0xbf800000, FF_NX, 0x3f800000, 0x3f800000, 0x33800000)   /* -(1 * 1) - 2^-24: a negative tie */
  TEST_FRRR_RM(19, fnmadd.s, rtz, 0xbf800000, FF_NX, 0x3f800000, 0x3f800000, 0x33800000)   /* -(1 * 1) - 2^-24: a negative tie */
  TEST_FRRR_RM(20, fnmadd.s, rdn, 0xbf800001, FF_NX, 0x3f800000, 0x3f800000, 0x33800000)   /* -(1 * 1) - 2^-24: a negative tie */
  TEST_FRRR_RM(21, fnmadd.s, rup, 0xbf800000, FF_NX, 0x3f800000, 0x3f800000, 0x33800000)   /* -(1 * 1) - 2^-24: a negative tie */
  TEST_FRRR_RM(22, fnmadd.s, rmm, 0xbf800001, FF_NX, 0x3f800000, 0x3f800000, 0x33800000)   /* -(1 * 1) - 2^-24: a negative tie */
  TEST_FRRR_RM(23, fnmsub.s, rne, 0xbf800000, FF_NX, 0x3f800000, 0x3f800000, 0x33000000)   /* -(1 * 1) + 2^-25: a negative tie below 1 */
  TEST_FRRR_RM(24, fnmsub.s, rtz, 0xbf7fffff, FF_NX, 0x3f800000, 0x3f800000, 0x33000000)   /* -(1 * 1) + 2^-25: a negative tie below 1 */
  TEST_FRRR_RM(25, fnmsub.s, rdn, 0xbf800000, FF_NX, 0x3f800000, 0x3f800000, 0x33000000)   /* -(1 * 1) + 2^-25: a negative tie below 1 */
  TEST_FRRR_RM(26, fnmsub.s, rup, 0xbf7fffff, FF_NX, 0x3f800000, 0x3f800000, 0x33000000)   /* -(1 * 1) + 2^-25: a negative tie below 1 */
  TEST_FRRR_RM(27, fnmsub.s, rmm, 0xbf800000, FF_NX, 0x3f800000, 0x3f800000, 0x33000000)   /* -(1 * 1) + 2^-25: a negative tie below 1 */
  TEST_FRRR_RM(28, fmadd.s, rne, 0x3f800002, FF_NX, 0x3f800001, 0x3f800001, 0x00000000)   /* (1 + 2^-23)^2 + 0 */
  TEST_FRRR_RM(29, fmadd.s, rtz, 0x3f800002, FF_NX, 0x3f800001, 0x3f800001, 0x00000000)   /* (1 + 2^-23)^2 + 0 */
  TEST_FRRR_RM(30, fmadd.s, rdn, 0x3f800002, FF_NX, 0x3f800001, 0x3f800001, 0x00000000)   /* (1 + 2^-23)^2 + 0 */
  TEST_FRRR_RM(31, fmadd.s, rup, 0x3f800003, FF_NX, 0x3f800001, 0x3f800001, 0x00000000)   /* (1 + 2^-23)^2 + 0 */
  TEST_FRRR_RM(32, fmadd.s, rmm, 0x3f800002, FF_NX, 0x3f800001, 0x3f800001, 0x00000000)   /* (1 + 2^-23)^2 + 0 */
  TEST_FRRR_RM(33, fmadd.s, rne, 0x32800000, 0, 0x3dcccccd, 0x41200000, 0xbf800000)   /* 0.1 * 10 - 1: the rounding error of 0.1 */
  /* exact zero results: +0, or -0 when rounding down */
  TEST_FRRR_RM(34, fmadd.s, rne, 0x00000000, 0, 0x40000000, 0x40400000, 0xc0c00000)   /* 2 * 3 - 6 */
  TEST_FRRR_RM(35, fmadd.s, rtz, 0x00000000, 0, 0x40000000, 0x40400000, 0xc0c00000)   /* 2 * 3 - 6 */
  TEST_FRRR_RM(36, fmadd.s, rdn, 0x80000000, 0, 0x40000000, 0x40400000, 0xc0c00000)   /* 2 * 3 - 6 */
  TEST_FRRR_RM(37, fmadd.s, rup, 0x00000000, 0, 0x40000000, 0x40400000, 0xc0c00000)   /* 2 * 3 - 6 */
  TEST_FRRR_RM(38, fmadd.s, rmm, 0x00000000, 0, 0x40000000, 0x40400000, 0xc0c00000)   /* 2 * 3 - 6 */
  TEST_FRRR_RM(39, fmsub.s, rne, 0x00000000, 0, 0x40000000, 0x40400000, 0x40c00000)   /* 2 * 3 - 6 */
  TEST_FRRR_RM(40, fmsub.s, rdn, 0x80000000, 0, 0x40000000, 0x40400000, 0x40c00000)   /* 2 * 3 - 6 */
  TEST_FRRR_RM(41, fnmsub.s, rne, 0x00000000, 0, 0x40000000, 0x40400000, 0x40c00000)   /* -(2 * 3) + 6 */
  TEST_FRRR_RM(42, fnmsub.s, rdn, 0x80000000, 0, 0x40000000, 0x40400000, 0x40c00000)   /* -(2 * 3) + 6 */
  TEST_FRRR_RM(43, fnmadd.s, rne, 0x00000000, 0, 0x40000000, 0x40400000, 0xc0c00000)   /* -(2 * 3) + 6 */
  TEST_FRRR_RM(44, fnmadd.s, rdn, 0x80000000, 0, 0x40000000, 0x40400000, 0xc0c00000)   /* -(2 * 3) + 6 */
  TEST_FRRR_RM(45, fmadd.s, rne, 0x80000000, 0, 0x80000000, 0x3f800000, 0x80000000)   /* -0 * 1 + -0 = -0 */
  TEST_FRRR_RM(46, fmadd.s, rne, 0x00000000, 0, 0x00000000, 0x3f800000, 0x80000000)   /* +0 * 1 + -0 */
  TEST_FRRR_RM(47, fmadd.s, rdn, 0x80000000, 0, 0x00000000, 0x3f800000, 0x80000000)   /* +0 * 1 + -0 */
  TEST_FRRR_RM(48, fnmadd.s, rne, 0x80000000, 0, 0x00000000, 0x3f800000, 0x00000000)   /* -(0 * 1) - 0 = -0 */
  TEST_FRRR_RM(49, fnmsub.s, rne, 0x00000000, 0, 0x00000000, 0x3f800000, 0x00000000)   /* -(0 * 1) + 0 */
  TEST_FRRR_RM(50, fnmsub.s, rdn, 0x80000000, 0, 0x00000000, 0x3f800000, 0x00000000)   /* -(0 * 1) + 0 */
  TEST_FRRR_RM(51, fmsub.s, rne, 0x80000000, 0, 0x80000000, 0x3f800000, 0x00000000)   /* -0 * 1 - 0 = -0 */
  /* invalid operations and NaNs */
  TEST_FRRR_RM(52, fmadd.s, rne, 0x7fc00000, FF_NV, 0x7f800000, 0x00000000, 0x7fc00000)   /* inf * 0 + qNaN: NV even with a quiet NaN addend */
  TEST_FRRR_RM(53, fmadd.s, rne, 0x7fc00000, FF_NV, 0x00000000, 0xff800000, 0x3f800000)   /* 0 * -inf + 1: invalid */
  TEST_FRRR_RM(54, fmadd.s, rne, 0x7fc00000, FF_NV, 0x7f800000, 0x3f800000, 0xff800000)   /* inf * 1 - inf: invalid */
  TEST_FRRR_RM(55, fmsub.s, rne, 0x7fc00000, FF_NV, 0x7f800000, 0x3f800000, 0x7f800000)   /* inf * 1 - inf (fmsub): invalid */
  TEST_FRRR_RM(56, fnmadd.s, rne, 0x7fc00000, FF_NV, 0x7f800000, 0x3f800000, 0xff800000)   /* -(inf) + inf: invalid */
  TEST_FRRR_RM(57, fmadd.s, rne, 0x7f800000, 0, 0x7f800000, 0x3f800000, 0x7f800000)   /* inf + inf = inf */
  TEST_FRRR_RM(58, fnmsub.s, rne, 0xff800000, 0, 0x7f800000, 0x3f800000, 0x40a00000)   /* -(inf) + 5 = -inf */
  TEST_FRRR_RM(59, fmadd.s, rne, 0xff800000, 0, 0x3f800000, 0x3f800000, 0xff800000)   /* 1 + -inf = -inf */
  TEST_FRRR_RM(60, fmadd.s, rne, 0x7fc00000, 0, 0x7fc12345, 0x3f800000, 0x3f800000)   /* qNaN * 1 + 1: canonical NaN, no flag */
  TEST_FRRR_RM(61, fmadd.s, rne, 0x7fc00000, FF_NV, 0x3f800000, 0x3f800000, 0x7f800001)   /* 1 * 1 + sNaN: NV */
  TEST_FRRR_RM(62, fnmadd.s, rne, 0x7fc00000, FF_NV, 0x3f800000, 0x7f800001, 0x7fc00000)   /* sNaN in the product: NV */
  /* no intermediate overflow or underflow */
  TEST_FRRR_RM(63, fmadd.s, rne, 0x7f7fffff, 0, 0x7f7fffff, 0x40000000, 0xff7fffff)   /* max * 2 - max = max, exact */
  TEST_FRRR_RM(64, fmadd.s, rne, 0x7f800000, FF_OF|FF_NX, 0x7f7fffff, 0x40000000, 0x00000000)   /* max * 2 + 0: overflow */
  TEST_FRRR_RM(65, fmadd.s, rtz, 0x7f7fffff, FF_OF|FF_NX, 0x7f7fffff, 0x40000000, 0x00000000)   /* max * 2 + 0: overflow */
  TEST_FRRR_RM(66, fmadd.s, rdn, 0x7f7fffff, FF_OF|FF_NX, 0x7f7fffff, 0x40000000, 0x00000000)   /* max * 2 + 0: overflow */
  TEST_FRRR_RM(67, fmadd.s, rup, 0x7f800000, FF_OF|FF_NX, 0x7f7fffff, 0x40000000, 0x00000000)   /* max * 2 + 0: overflow */
  TEST_FRRR_RM(68, fmadd.s, rmm, 0x7f800000, FF_OF|FF_NX, 0x7f7fffff, 0x40000000, 0x00000000)   /* max * 2 + 0: overflow */
  TEST_FRRR_RM(69, fnmsub.s, rne, 0xff800000, FF_OF|FF_NX, 0x7f7fffff, 0x40000000, 0x00000000)   /* -(max * 2) + 0: overflow */
  TEST_FRRR_RM(70, fnmsub.s, rtz, 0xff7fffff, FF_OF|FF_NX, 0x7f7fffff, 0x40000000, 0x00000000)   /* -(max * 2) + 0: overflow */
  TEST_FRRR_RM(71, fnmsub.s, rdn, 0xff800000, FF_OF|FF_NX, 0x7f7fffff, 0x40000000, 0x00000000)   /* -(max * 2) + 0: overflow */
  TEST_FRRR_RM(72, fnmsub.s, rup, 0xff7fffff, FF_OF|FF_NX, 0x7f7fffff, 0x40000000, 0x00000000)   /* -(max * 2) + 0: overflow */
  TEST_FRRR_RM(73, fnmsub.s, rmm, 0xff800000, FF_OF|FF_NX, 0x7f7fffff, 0x40000000, 0x00000000)   /* -(max * 2) + 0: overflow */
  TEST_FRRR_RM(74, fmadd.s, rne, 0x00802000, 0, 0x00800000, 0x3a800000, 0x00800000)   /* 2^-136 + 2^-126: exact */
  TEST_FRRR_RM(75, fmadd.s, rne, 0x00000000, FF_UF|FF_NX, 0x00000001, 0x3f000000, 0x00000000)   /* min subnormal / 2 + 0: UF */
  TEST_FRRR_RM(76, fmadd.s, rtz, 0x00000000, FF_UF|FF_NX, 0x00000001, 0x3f000000, 0x00000000)   /* min subnormal / 2 + 0: UF */
  TEST_FRRR_RM(77, fmadd.s, rdn, 0x00000000, FF_UF|FF_NX, 0x00000001, 0x3f000000, 0x00000000)   /* min subnormal / 2 + 0: UF */
  TEST_FRRR_RM(78, fmadd.s, rup, 0x00000001, FF_UF|FF_NX, 0x00000001, 0x3f000000, 0x00000000)   /* min subnormal / 2 + 0: UF */
  TEST_FRRR_RM(79, fmadd.s, rmm, 0x00000001, FF_UF|FF_NX, 0x00000001, 0x3f000000, 0x00000000)   /* min subnormal / 2 + 0: UF */
  TEST_FRRR_RM(80, fmadd.s, rne, 0x00400000, 0, 0x00800000, 0x3f000000, 0x00000000)   /* min normal / 2 + 0: exact, no UF */
  TEST_FRRR_RM(81, fmsub.s, rne, 0x00800000, FF_UF|FF_NX, 0x00800000, 0x3f7fffff, 0x80000000)   /* min normal * (1 - 2^-24) - -0: tiny */
  TEST_FRRR_RM(82, fmsub.s, rtz, 0x007fffff, FF_UF|FF_NX, 0x00800000, 0x3f7fffff, 0x80000000)   /* min normal * (1 - 2^-24) - -0: tiny */
  TEST_FRRR_RM(83, fmsub.s, rdn, 0x007fffff, FF_UF|FF_NX, 0x00800000, 0x3f7fffff, 0x80000000)   /* min normal * (1 - 2^-24) - -0: tiny */
  TEST_FRRR_RM(84, fmsub.s, rup, 0x00800000, FF_UF|FF_NX, 0x00800000, 0x3f7fffff, 0x80000000)   /* min normal * (1 - 2^-24) - -0: tiny */
  TEST_FRRR_RM(85, fmsub.s, rmm, 0x00800000, FF_UF|FF_NX, 0x00800000, 0x3f7fffff, 0x80000000)   /* min normal * (1 - 2^-24) - -0: tiny */
  /* all four registers the same */
  li gp, 120; li a0, 0x40000000; fmv.w.x fa0, a0; fmadd.s fa0, fa0, fa0, fa0; CHECK_F(fa0, 0x40c00000)
  CHECK_FFLAGS(0)
  /* the dynamic mode */
  li gp, 121; fsrmi RM_RDN; li a0, 0x3f800000; fmv.w.x fa1, a0; li a0, 0x33800000
  fmv.w.x fa2, a0; fnmadd.s fa0, fa1, fa1, fa2; CHECK_F(fa0, 0xbf800001); CHECK_FFLAGS(FF_NX)
  fsrmi RM_RNE
ISA_TEST_END
