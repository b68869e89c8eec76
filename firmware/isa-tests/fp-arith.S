/* fp-arith: fadd.s fsub.s fmul.s fdiv.s fsqrt.s (unprivileged spec 11.6) with known
   answers and fflags, in every rounding mode wherever the result is inexact: ties (even
   vs away), overflow (to infinity or to the largest finite number depending on the mode
   and sign, OF|NX), underflow (UF only when the result is tiny AND inexact; tininess is
   detected after rounding, so min normal * (1 - 2^-24) raises UF even where it rounds up
   to the smallest normal), exact subnormal results (no UF), the sign of exact zeros (-0
   only when rounding down), divide by zero (DZ only for finite / 0), invalid operations
   (inf - inf, 0 * inf, 0/0, inf/inf, sqrt of a negative: canonical NaN 0x7fc00000 and
   NV), NaN inputs (canonical NaN out, NV only for signaling NaNs, payloads dropped).
   Expected values from an exact rational model of binary32 (checked against the host's
   IEEE arithmetic for round-to-nearest). Runs on the ISS and on QEMU. */
#define ISA_TEST_FP 1
#include "isa_test.h"

ISA_TEST_BEGIN
  /* fadd.s */
  TEST_FRR_RM(1, fadd.s, rne, 0x40400000, 0, 0x3f800000, 0x40000000)   /* 1 + 2 = 3 */
  TEST_FRR_RM(2, fadd.s, rne, 0x3f800000, FF_NX, 0x3f800000, 0x33800000)   /* 1 + 2^-24: a tie */
  TEST_FRR_RM(3, fadd.s, rtz, 0x3f800000, FF_NX, 0x3f800000, 0x33800000)   /* 1 + 2^-24: a tie */
  TEST_FRR_RM(4, fadd.s, rdn, 0x3f800000, FF_NX, 0x3f800000, 0x33800000)   /* 1 + 2^-24: a tie */
  TEST_FRR_RM(5, fadd.s, rup, 0x3f800001, FF_NX, 0x3f800000, 0x33800000)   /* 1 + 2^-24: a tie */
  TEST_FRR_RM(6, fadd.s, rmm, 0x3f800001, FF_NX, 0x3f800000, 0x33800000)   /* 1 + 2^-24: a tie */
  TEST_FRR_RM(7, fadd.s, rne, 0x3f800001, FF_NX, 0x3f800000, 0x33c00000)   /* 1 + 1.5 * 2^-24: above the tie */
  TEST_FRR_RM(8, fadd.s, rtz, 0x3f800000, FF_NX, 0x3f800000, 0x33c00000)   /* 1 + 1.5 * 2^-24: above the tie */
  TEST_FRR_RM(9, fadd.s, rdn, 0x3f800000, FF_NX, 0x3f800000, 0x33c00000)   /* 1 + 1.5 * 2^-24: above the tie */
  TEST_FRR_RM(10, fadd.s, rup, 0x3f800001, FF_NX, 0x3f800000, 0x33c00000)   /* 1 + 1.5 * 2^-24: above the tie */
  TEST_FRR_RM(11, fadd.s, rmm, 0x3f800001, FF_NX, 0x3f800000, 0x33c00000)   /* 1 + 1.5 * 2^-24: above the tie */
  TEST_FRR_RM(12, fadd.s, rne, 0xbf800000, FF_NX, 0xbf800000, 0xb3800000)   /* -1 - 2^-24: a negative tie */
  TEST_FRR_RM(13, fadd.s, rtz, 0xbf800000, FF_NX, 0xbf800000, 0xb3800000)   /* -1 - 2^-24: a negative tie */
  TEST_FRR_RM(14, fadd.s, rdn, 0xbf800001, FF_NX, 0xbf800000, 0xb3800000)   /* -1 - 2^-24: a negative tie */
  TEST_FRR_RM(15, fadd.s, rup, 0xbf800000, FF_NX, 0xbf800000, 0xb3800000)   /* -1 - 2^-24: a negative tie */
  TEST_FRR_RM(16, fadd.s, rmm, 0xbf800001, FF_NX, 0xbf800000, 0xb3800000)   /* -1 - 2^-24: a negative tie */
  TEST_FRR_RM(17, fadd.s, rne, 0x7f800000, FF_OF|FF_NX, 0x7f7fffff, 0x7f7fffff)   /* max + max: overflow */
  TEST_FRR_RM(18, fadd.s, rtz, 0x7f7fffff, FF_OF|FF_NX, 0x7f7fffff, 0x7f7fffff)   /* max + max: overflow */
  TEST_FRR_RM(19, fadd.s, rdn, 0x7f7fffff, FF_OF|FF_NX, 0x7f7fffff, 0x7f7fffff)   /* max + max: overflow */
  TEST_FRR_RM(20, fadd.s, rup, 0x7f800000, FF_OF|FF_NX, 0x7f7fffff, 0x7f7fffff)   /* max + max: overflow */
  TEST_FRR_RM(21, fadd.s, rmm, 0x7f800000, FF_OF|FF_NX, 0x7f7fffff, 0x7f7fffff)   /* max + max: overflow */
  TEST_FRR_RM(22, fadd.s, rne, 0xff800000, FF_OF|FF_NX, 0xff7fffff, 0xff7fffff)   /* -max - max: overflow */
  TEST_FRR_RM(23, fadd.s, rtz, 0xff7fffff, FF_OF|FF_NX, 0xff7fffff, 0xff7fffff)   /* -max - max: overflow */
  TEST_FRR_RM(24, fadd.s, rdn, 0xff800000, FF_OF|FF_NX, 0xff7fffff, 0xff7fffff)   /* -max - max: overflow */
  TEST_FRR_RM(25, fadd.s, rup, 0xff7fffff, FF_OF|FF_NX, 0xff7fffff, 0xff7fffff)   /* -max - max: overflow */
  TEST_FRR_RM(26, fadd.s, rmm, 0xff800000, FF_OF|FF_NX, 0xff7fffff, 0xff7fffff)   /* -max - max: overflow */
  TEST_FRR_RM(27, fadd.s, rne, 0x7f800000, FF_OF|FF_NX, 0x7f7fffff, 0x73000000)   /* max + half an ulp: a tie at the top */
  TEST_FRR_RM(28, fadd.s, rtz, 0x7f7fffff, FF_NX, 0x7f7fffff, 0x73000000)   /* max + half an ulp: a tie at the top */
  TEST_FRR_RM(29, fadd.s, rdn, 0x7f7fffff, FF_NX, 0x7f7fffff, 0x73000000)   /* max + half an ulp: a tie at the top */
  TEST_FRR_RM(30, fadd.s, rup, 0x7f800000, FF_OF|FF_NX, 0x7f7fffff, 0x73000000)   /* max + half an ulp: a tie at the top */
  TEST_FRR_RM(31, fadd.s, rmm, 0x7f800000, FF_OF|FF_NX, 0x7f7fffff, 0x73000000)   /* max + half an ulp: a tie at the top */
  TEST_FRR_RM(32, fadd.s, rne, 0x00000000, 0, 0x3fc00000, 0xbfc00000)   /* x + -x: +0, but -0 rounding down */
  TEST_FRR_RM(33, fadd.s, rtz, 0x00000000, 0, 0x3fc00000, 0xbfc00000)   /* x + -x: +0, but -0 rounding down */
  TEST_FRR_RM(34, fadd.s, rdn, 0x80000000, 0, 0x3fc00000, 0xbfc00000)   /* x + -x: +0, but -0 rounding down */
  TEST_FRR_RM(35, fadd.s, rup, 0x00000000, 0, 0x3fc00000, 0xbfc00000)   /* x + -x: +0, but -0 rounding down */
  TEST_FRR_RM(36, fadd.s, rmm, 0x00000000, 0, 0x3fc00000, 0xbfc00000)   /* x + -x: +0, but -0 rounding down */
  TEST_FRR_RM(37, fadd.s, rne, 0x80000000, 0, 0x80000000, 0x80000000)   /* -0 + -0 = -0 */
  TEST_FRR_RM(38, fadd.s, rne, 0x00000000, 0, 0x00000000, 0x80000000)   /* +0 + -0 */
  TEST_FRR_RM(39, fadd.s, rdn, 0x80000000, 0, 0x00000000, 0x80000000)   /* +0 + -0 */
  TEST_FRR_RM(40, fadd.s, rne, 0x00000002, 0, 0x00000001, 0x00000001)   /* subnormal + subnormal: exact, no UF */
  TEST_FRR_RM(41, fadd.s, rne, 0x007fffff, 0, 0x00800000, 0x80000001)   /* min normal - min subnormal: exact subnormal */
  TEST_FRR_RM(42, fadd.s, rne, 0x7fc00000, FF_NV, 0x7f800000, 0xff800000)   /* inf + -inf: invalid */
  TEST_FRR_RM(43, fadd.s, rne, 0x7f800000, 0, 0x7f800000, 0x7f7fffff)   /* inf + max = inf */
  TEST_FRR_RM(44, fadd.s, rne, 0x7fc00000, 0, 0x7fc12345, 0x3f800000)   /* qNaN (payload) + 1: canonical NaN, no flag */
  TEST_FRR_RM(45, fadd.s, rne, 0x7fc00000, FF_NV, 0x3f800000, 0x7f800001)   /* 1 + sNaN: canonical NaN, NV */
  TEST_FRR_RM(46, fadd.s, rne, 0x3e99999a, FF_NX, 0x3dcccccd, 0x3e4ccccd)   /* 0.1 + 0.2 */
  TEST_FRR_RM(47, fadd.s, rtz, 0x3e999999, FF_NX, 0x3dcccccd, 0x3e4ccccd)   /* 0.1 + 0.2 */
  TEST_FRR_RM(48, fadd.s, rdn, 0x3e999999, FF_NX, 0x3dcccccd, 0x3e4ccccd)   /* 0.1 + 0.2 */
  TEST_FRR_RM(49, fadd.s, rup, 0x3e99999a, FF_NX, 0x3dcccccd, 0x3e4ccccd)   /* 0.1 + 0.2 */
  TEST_FRR_RM(50, fadd.s, rmm, 0x3e99999a, FF_NX, 0x3dcccccd, 0x3e4ccccd)   /* 0.1 + 0.2 */
  /* fsub.s */
  TEST_FRR_RM(51, fsub.s, rne, 0x3fc00000, 0, 0x40400000, 0x3fc00000)   /* 3 - 1.5 */
  TEST_FRR_RM(52, fsub.s, rne, 0x00000000, 0, 0x3f800000, 0x3f800000)   /* 1 - 1: +0, -0 rounding down */
  TEST_FRR_RM(53, fsub.s, rtz, 0x00000000, 0, 0x3f800000, 0x3f800000)   /* 1 - 1: +0, -0 rounding down */
  TEST_FRR_RM(54, fsub.s, rdn, 0x80000000, 0, 0x3f800000, 0x3f800000)   /* 1 - 1: +0, -0 rounding down */
  TEST_FRR_RM(55, fsub.s, rup, 0x00000000, 0, 0x3f800000, 0x3f800000)   /* 1 - 1: +0, -0 rounding down */
  TEST_FRR_RM(56, fsub.s, rmm, 0x00000000, 0, 0x3f800000, 0x3f800000)   /* 1 - 1: +0, -0 rounding down */
  TEST_FRR_RM(57, fsub.s, rne, 0x3f800000, FF_NX, 0x3f800000, 0x33000000)   /* 1 - 2^-25: a tie below 1 */
  TEST_FRR_RM(58, fsub.s, rtz, 0x3f7fffff, FF_NX, 0x3f800000, 0x33000000)   /* 1 - 2^-25: a tie below 1 */
  TEST_FRR_RM(59, fsub.s, rdn, 0x3f7fffff, FF_NX, 0x3f800000, 0x33000000)   /* 1 - 2^-25: a tie below 1 */
  TEST_FRR_RM(60, fsub.s, rup, 0x3f800000, FF_NX, 0x3f800000, 0x33000000)   /* 1 - 2^-25: a tie below 1 */
  TEST_FRR_RM(61, fsub.s, rmm, 0x3f800000, FF_NX, 0x3f800000, 0x33000000)   /* 1 - 2^-25: a tie below 1 */
  TEST_FRR_RM(62, fsub.s, rne, 0x3f7fffff, 0, 0x3f800000, 0x33800000)   /* 1 - 2^-24: exact */
  TEST_FRR_RM(63, fsub.s, rne, 0xff800000, FF_OF|FF_NX, 0xff7fffff, 0x7f7fffff)   /* -max - max: overflow */
  TEST_FRR_RM(64, fsub.s, rtz, 0xff7fffff, FF_OF|FF_NX, 0xff7fffff, 0x7f7fffff)   /* -max - max: overflow */
  TEST_FRR_RM(65, fsub.s, rdn, 0xff800000, FF_OF|FF_NX, 0xff7fffff, 0x7f7fffff)   /* -max - max: overflow */
  TEST_FRR_RM(66, fsub.s, rup, 0xff7fffff, FF_OF|FF_NX, 0xff7fffff, 0x7f7fffff)   /* -max - max: overflow */
  TEST_FRR_RM(67, fsub.s, rmm, 0xff800000, FF_OF|FF_NX, 0xff7fffff, 0x7f7fffff)   /* -max - max: overflow */
  TEST_FRR_RM(68, fsub.s, rne, 0x7fc00000, FF_NV, 0x7f800000, 0x7f800000)   /* inf - inf: invalid */
  TEST_FRR_RM(69, fsub.s, rne, 0xff800000, 0, 0xff800000, 0x7f800000)   /* -inf - inf = -inf */
  TEST_FRR_RM(70, fsub.s, rne, 0x80000000, 0, 0x80000000, 0x00000000)   /* -0 - +0 = -0 */
  TEST_FRR_RM(71, fsub.s, rne, 0x00000000, 0, 0x00000000, 0x00000000)   /* +0 - +0 */
  TEST_FRR_RM(72, fsub.s, rdn, 0x80000000, 0, 0x00000000, 0x00000000)   /* +0 - +0 */
  TEST_FRR_RM(73, fsub.s, rne, 0x80000001, 0, 0x00800000, 0x00800001)   /* cancellation into the subnormals: exact */
  TEST_FRR_RM(74, fsub.s, rne, 0x7fc00000, FF_NV, 0x7fc00000, 0x7f800001)   /* qNaN - sNaN: NV */
  /* fmul.s */
  TEST_FRR_RM(80, fmul.s, rne, 0x41400000, 0, 0x40400000, 0x40800000)   /* 3 * 4 */
  TEST_FRR_RM(81, fmul.s, rne, 0x3f800002, FF_NX, 0x3f800001, 0x3f800001)   /* (1 + 2^-23)^2: inexact */
  TEST_FRR_RM(82, fmul.s, rtz, 0x3f800002, FF_NX, 0x3f800001, 0x3f800001)   /* (1 + 2^-23)^2: inexact */
  TEST_FRR_RM(83, fmul.s, rdn, 0x3f800002, FF_NX, 0x3f800001, 0x3f800001)   /* (1 + 2^-23)^2: inexact */
  TEST_FRR_RM(84, fmul.s, rup, 0x3f800003, FF_NX, 0x3f800001, 0x3f800001)   /* (1 + 2^-23)^2: inexact */
  TEST_FRR_RM(85, fmul.s, rmm, 0x3f800002, FF_NX, 0x3f800001, 0x3f800001)   /* (1 + 2^-23)^2: inexact */
  TEST_FRR_RM(86, fmul.s, rne, 0xbf800002, FF_NX, 0xbf800001, 0x3f800001)   /* -(1 + 2^-23)^2 */
  TEST_FRR_RM(87, fmul.s, rtz, 0xbf800002, FF_NX, 0xbf800001, 0x3f800001)   /* -(1 + 2^-23)^2 */
  TEST_FRR_RM(88, fmul.s, rdn, 0xbf800003, FF_NX, 0xbf800001, 0x3f800001)   /* -(1 + 2^-23)^2 */
  TEST_FRR_RM(89, fmul.s, rup, 0xbf800002, FF_NX, 0xbf800001, 0x3f800001)   /* -(1 + 2^-23)^2 */
  TEST_FRR_RM(90, fmul.s, rmm, 0xbf800002, FF_NX, 0xbf800001, 0x3f800001)   /* -(1 + 2^-23)^2 */
  TEST_FRR_RM(91, fmul.s, rne, 0x407ffffe, FF_NX, 0x3fffffff, 0x3fffffff)   /* (2 - 2^-23)^2 */
  TEST_FRR_RM(92, fmul.s, rtz, 0x407ffffe, FF_NX, 0x3fffffff, 0x3fffffff)   /* (2 - 2^-23)^2 */
  TEST_FRR_RM(93, fmul.s, rdn, 0x407ffffe, FF_NX, 0x3fffffff, 0x3fffffff)   /* (2 - 2^-23)^2 */
  TEST_FRR_RM(94, fmul.s, rup, 0x407fffff, FF_NX, 0x3fffffff, 0x3fffffff)   /* (2 - 2^-23)^2 */
  TEST_FRR_RM(95, fmul.s, rmm, 0x407ffffe, FF_NX, 0x3fffffff, 0x3fffffff)   /* (2 - 2^-23)^2 */
  TEST_FRR_RM(96, fmul.s, rne, 0x7f800000, FF_OF|FF_NX, 0x7f7fffff, 0x40000000)   /* max * 2: overflow */
  TEST_FRR_RM(97, fmul.s, rtz, 0x7f7fffff, FF_OF|FF_NX, 0x7f7fffff, 0x40000000)   /* max * 2: overflow */
  TEST_FRR_RM(98, fmul.s, rdn, 0x7f7fffff, FF_OF|FF_NX, 0x7f7fffff, 0x40000000)   /* max * 2: overflow */
  TEST_FRR_RM(99, fmul.s, rup, 0x7f800000, FF_OF|FF_NX, 0x7f7fffff, 0x40000000)   /* max * 2: overflow */
  TEST_FRR_RM(100, fmul.s, rmm, 0x7f800000, FF_OF|FF_NX, 0x7f7fffff, 0x40000000)   /* max * 2: overflow */
  TEST_FRR_RM(101, fmul.s, rne, 0xff800000, FF_OF|FF_NX, 0x7f7fffff, 0xc0000000)   /* max * -2: overflow */
  TEST_FRR_RM(102, fmul.s, rtz, 0xff7fffff, FF_OF|FF_NX, 0x7f7fffff, 0xc0000000)   /* max * -2: overflow */
  TEST_FRR_RM(103, fmul.s, rdn, 0xff800000, FF_OF|FF_NX, 0x7f7fffff, 0xc0000000)   /* max * -2: overflow */
  TEST_FRR_RM(104, fmul.s, rup, 0xff7fffff, FF_OF|FF_NX, 0x7f7fffff, 0xc0000000)   /* max * -2: overflow */
  TEST_FRR_RM(105, fmul.s, rmm, 0xff800000, FF_OF|FF_NX, 0x7f7fffff, 0xc0000000)   /* max * -2: overflow */
  TEST_FRR_RM(106, fmul.s, rne, 0x00400000, 0, 0x00800000, 0x3f000000)   /* min normal / 2: exact subnormal, no UF */
  TEST_FRR_RM(107, fmul.s, rne, 0x00000000, FF_UF|FF_NX, 0x00000001, 0x3f000000)   /* min subnormal / 2: a tie at zero, UF */
  TEST_FRR_RM(108, fmul.s, rtz, 0x00000000, FF_UF|FF_NX, 0x00000001, 0x3f000000)   /* min subnormal / 2: a tie at zero, UF */
  TEST_FRR_RM(109, fmul.s, rdn, 0x00000000, FF_UF|FF_NX, 0x00000001, 0x3f000000)   /* min subnormal / 2: a tie at zero, UF */
  TEST_FRR_RM(110, fmul.s, rup, 0x00000001, FF_UF|FF_NX, 0x00000001, 0x3f000000)   /* min subnormal / 2: a tie at zero, UF */
  TEST_FRR_RM(111, fmul.s, rmm, 0x00000001, FF_UF|FF_NX, 0x00000001, 0x3f000000)   /* min subnormal / 2: a tie at zero, UF */
  TEST_FRR_RM(112, fmul.s, rne, 0x80000000, FF_UF|FF_NX, 0x80000001, 0x3f000000)   /* -min subnormal / 2 */
  TEST_FRR_RM(113, fmul.s, rtz, 0x80000000, FF_UF|FF_NX, 0x80000001, 0x3f000000)   /* -min subnormal / 2 */
  TEST_FRR_RM(114, fmul.s, rdn, 0x80000001, FF_UF|FF_NX, 0x80000001, 0x3f000000)   /* -min subnormal / 2 */
  TEST_FRR_RM(115, fmul.s, rup, 0x80000000, FF_UF|FF_NX, 0x80000001, 0x3f000000)   /* -min subnormal / 2 */
  TEST_FRR_RM(116, fmul.s, rmm, 0x80000001, FF_UF|FF_NX, 0x80000001, 0x3f000000)   /* -min subnormal / 2 */
  TEST_FRR_RM(117, fmul.s, rne, 0x00800000, FF_UF|FF_NX, 0x00800000, 0x3f7fffff)   /* min normal * (1 - 2^-24): tiny before rounding */
  TEST_FRR_RM(118, fmul.s, rtz, 0x007fffff, FF_UF|FF_NX, 0x00800000, 0x3f7fffff)   /* min normal * (1 - 2^-24): tiny before rounding */
  TEST_FRR_RM(119, fmul.s, rdn, 0x007fffff, FF_UF|FF_NX, 0x00800000, 0x3f7fffff)   /* min normal * (1 - 2^-24): tiny before rounding */
  TEST_FRR_RM(120, fmul.s, rup, 0x00800000, FF_UF|FF_NX, 0x00800000, 0x3f7fffff)   /* min normal * (1 - 2^-24): tiny before rounding */
  TEST_FRR_RM(121, fmul.s, rmm, 0x00800000, FF_UF|FF_NX, 0x00800000, 0x3f7fffff)   /* min normal * (1 - 2^-24): tiny before rounding */
  TEST_FRR_RM(122, fmul.s, rne, 0x00800000, FF_NX, 0x00800001, 0x3f7fffff)   /* (min normal + ulp) * (1 - 2^-24): normal */
  TEST_FRR_RM(123, fmul.s, rne, 0x7fc00000, FF_NV, 0x00000000, 0x7f800000)   /* 0 * inf: invalid */
  TEST_FRR_RM(124, fmul.s, rne, 0x80000000, 0, 0x80000000, 0x40a00000)   /* -0 * 5 = -0 */
  TEST_FRR_RM(125, fmul.s, rne, 0xff800000, 0, 0x7f800000, 0xc0000000)   /* inf * -2 = -inf */
  TEST_FRR_RM(126, fmul.s, rne, 0x7fc00000, FF_NV, 0x7f800001, 0x3f800000)   /* sNaN * 1: NV */
  TEST_FRR_RM(127, fmul.s, rne, 0x3f800000, FF_NX, 0x3dcccccd, 0x41200000)   /* 0.1 * 10 */
  TEST_FRR_RM(128, fmul.s, rtz, 0x3f800000, FF_NX, 0x3dcccccd, 0x41200000)   /* 0.1 * 10 */
  TEST_FRR_RM(129, fmul.s, rdn, 0x3f800000, FF_NX, 0x3dcccccd, 0x41200000)   /* 0.1 * 10 */
  TEST_FRR_RM(130, fmul.s, rup, 0x3f800001, FF_NX, 0x3dcccccd, 0x41200000)   /* 0.1 * 10 */
  TEST_FRR_RM(131, fmul.s, rmm, 0x3f800000, FF_NX, 0x3dcccccd, 0x41200000)   /* 0.1 * 10 */
  /* fdiv.s */
  TEST_FRR_RM(132, fdiv.s, rne, 0x40000000, 0, 0x40c00000, 0x40400000)   /* 6 / 3 */
  TEST_FRR_RM(133, fdiv.s, rne, 0x3eaaaaab, FF_NX, 0x3f800000, 0x40400000)   /* 1 / 3 */
  TEST_FRR_RM(134, fdiv.s, rtz, 0x3eaaaaaa, FF_NX, 0x3f800000, 0x40400000)   /* 1 / 3 */
  TEST_FRR_RM(135, fdiv.s, rdn, 0x3eaaaaaa, FF_NX, 0x3f800000, 0x40400000)   /* 1 / 3 */
  TEST_FRR_RM(136, fdiv.s, rup, 0x3eaaaaab, FF_NX, 0x3f800000, 0x40400000)   /* 1 / 3 */
  TEST_FRR_RM(137, fdiv.s, rmm, 0x3eaaaaab, FF_NX, 0x3f800000, 0x40400000)   /* 1 / 3 */
  TEST_FRR_RM(138, fdiv.s, rne, 0xbeaaaaab, FF_NX, 0xbf800000, 0x40400000)   /* -1 / 3 */
  TEST_FRR_RM(139, fdiv.s, rtz, 0xbeaaaaaa, FF_NX, 0xbf800000, 0x40400000)   /* -1 / 3 */
  TEST_FRR_RM(140, fdiv.s, rdn, 0xbeaaaaab, FF_NX, 0xbf800000, 0x40400000)   /* -1 / 3 */
  TEST_FRR_RM(141, fdiv.s, rup, 0xbeaaaaaa, FF_NX, 0xbf800000, 0x40400000)   /* -1 / 3 */
  TEST_FRR_RM(142, fdiv.s, rmm, 0xbeaaaaab, FF_NX, 0xbf800000, 0x40400000)   /* -1 / 3 */
  TEST_FRR_RM(143, fdiv.s, rne, 0x3f2aaaab, FF_NX, 0x40000000, 0x40400000)   /* 2 / 3 */
  TEST_FRR_RM(144, fdiv.s, rtz, 0x3f2aaaaa, FF_NX, 0x40000000, 0x40400000)   /* 2 / 3 */
  TEST_FRR_RM(145, fdiv.s, rdn, 0x3f2aaaaa, FF_NX, 0x40000000, 0x40400000)   /* 2 / 3 */
  TEST_FRR_RM(146, fdiv.s, rup, 0x3f2aaaab, FF_NX, 0x40000000, 0x40400000)   /* 2 / 3 */
  TEST_FRR_RM(147, fdiv.s, rmm, 0x3f2aaaab, FF_NX, 0x40000000, 0x40400000)   /* 2 / 3 */
  TEST_FRR_RM(148, fdiv.s, rne, 0x7f800000, FF_DZ, 0x3f800000, 0x00000000)   /* 1 / 0: DZ */
  TEST_FRR_RM(149, fdiv.s, rne, 0xff800000, FF_DZ, 0xbf800000, 0x00000000)   /* -1 / 0: DZ */
  TEST_FRR_RM(150, fdiv.s, rne, 0xff800000, FF_DZ, 0x3f800000, 0x80000000)   /* 1 / -0: DZ */
  TEST_FRR_RM(151, fdiv.s, rne, 0x7fc00000, FF_NV, 0x00000000, 0x00000000)   /* 0 / 0: invalid */
  TEST_FRR_RM(152, fdiv.s, rne, 0x7fc00000, FF_NV, 0x7f800000, 0x7f800000)   /* inf / inf: invalid */
  TEST_FRR_RM(153, fdiv.s, rne, 0x7f800000, 0, 0x7f800000, 0x00000000)   /* inf / 0 = inf, no DZ */
  TEST_FRR_RM(154, fdiv.s, rne, 0x00000000, 0, 0x00000000, 0x40a00000)   /* 0 / 5 */
  TEST_FRR_RM(155, fdiv.s, rne, 0x80000000, 0, 0xc0a00000, 0x7f800000)   /* -5 / inf = -0 */
  TEST_FRR_RM(156, fdiv.s, rne, 0x7fc00000, 0, 0x7fc00000, 0x00000000)   /* qNaN / 0: NaN, no DZ */
  TEST_FRR_RM(157, fdiv.s, rne, 0x7f800000, FF_OF|FF_NX, 0x7f7fffff, 0x3f000000)   /* max / 0.5: overflow */
  TEST_FRR_RM(158, fdiv.s, rtz, 0x7f7fffff, FF_OF|FF_NX, 0x7f7fffff, 0x3f000000)   /* max / 0.5: overflow */
  TEST_FRR_RM(159, fdiv.s, rdn, 0x7f7fffff, FF_OF|FF_NX, 0x7f7fffff, 0x3f000000)   /* max / 0.5: overflow */
  TEST_FRR_RM(160, fdiv.s, rup, 0x7f800000, FF_OF|FF_NX, 0x7f7fffff, 0x3f000000)   /* max / 0.5: overflow */
  TEST_FRR_RM(161, fdiv.s, rmm, 0x7f800000, FF_OF|FF_NX, 0x7f7fffff, 0x3f000000)   /* max / 0.5: overflow */
  TEST_FRR_RM(162, fdiv.s, rne, 0x00200000, 0, 0x00800000, 0x40800000)   /* min normal / 4: exact */
  TEST_FRR_RM(163, fdiv.s, rne, 0x002aaaab, FF_UF|FF_NX, 0x00800000, 0x40400000)   /* min normal / 3: UF */
  TEST_FRR_RM(164, fdiv.s, rtz, 0x002aaaaa, FF_UF|FF_NX, 0x00800000, 0x40400000)   /* min normal / 3: UF */
  TEST_FRR_RM(165, fdiv.s, rdn, 0x002aaaaa, FF_UF|FF_NX, 0x00800000, 0x40400000)   /* min normal / 3: UF */
  TEST_FRR_RM(166, fdiv.s, rup, 0x002aaaab, FF_UF|FF_NX, 0x00800000, 0x40400000)   /* min normal / 3: UF */
  TEST_FRR_RM(167, fdiv.s, rmm, 0x002aaaab, FF_UF|FF_NX, 0x00800000, 0x40400000)   /* min normal / 3: UF */
  /* fsqrt.s */
  TEST_FR_RM(168, fsqrt.s, rne, 0x40000000, 0, 0x40800000)   /* sqrt 4 */
  TEST_FR_RM(169, fsqrt.s, rne, 0x3fb504f3, FF_NX, 0x40000000)   /* sqrt 2 */
  TEST_FR_RM(170, fsqrt.s, rtz, 0x3fb504f3, FF_NX, 0x40000000)   /* sqrt 2 */
  TEST_FR_RM(171, fsqrt.s, rdn, 0x3fb504f3, FF_NX, 0x40000000)   /* sqrt 2 */
  TEST_FR_RM(172, fsqrt.s, rup, 0x3fb504f4, FF_NX, 0x40000000)   /* sqrt 2 */
  TEST_FR_RM(173, fsqrt.s, rmm, 0x3fb504f3, FF_NX, 0x40000000)   /* sqrt 2 */
  TEST_FR_RM(174, fsqrt.s, rne, 0x3fddb3d7, FF_NX, 0x40400000)   /* sqrt 3 */
  TEST_FR_RM(175, fsqrt.s, rtz, 0x3fddb3d7, FF_NX, 0x40400000)   /* sqrt 3 */
  TEST_FR_RM(176, fsqrt.s, rdn, 0x3fddb3d7, FF_NX, 0x40400000)   /* sqrt 3 */
  TEST_FR_RM(177, fsqrt.s, rup, 0x3fddb3d8, FF_NX, 0x40400000)   /* sqrt 3 */
  TEST_FR_RM(178, fsqrt.s, rmm, 0x3fddb3d7, FF_NX, 0x40400000)   /* sqrt 3 */
  TEST_FR_RM(179, fsqrt.s, rne, 0x80000000, 0, 0x80000000)   /* sqrt -0 = -0 */
  TEST_FR_RM(180, fsqrt.s, rne, 0x00000000, 0, 0x00000000)   /* sqrt +0 */
  TEST_FR_RM(181, fsqrt.s, rne, 0x7f800000, 0, 0x7f800000)   /* sqrt inf */
  TEST_FR_RM(182, fsqrt.s, rne, 0x7fc00000, FF_NV, 0xbf800000)   /* sqrt -1: invalid */
  TEST_FR_RM(183, fsqrt.s, rne, 0x7fc00000, FF_NV, 0xff800000)   /* sqrt -inf: invalid */
  TEST_FR_RM(184, fsqrt.s, rne, 0x7fc00000, FF_NV, 0x80000001)   /* sqrt -min subnormal: invalid */
  TEST_FR_RM(185, fsqrt.s, rne, 0x7fc00000, 0, 0x7fc12345)   /* sqrt qNaN: canonical, no flag */
  TEST_FR_RM(186, fsqrt.s, rne, 0x7fc00000, FF_NV, 0x7f800001)   /* sqrt sNaN: NV */
  TEST_FR_RM(187, fsqrt.s, rne, 0x20000000, 0, 0x00800000)   /* sqrt 2^-126 = 2^-63 */
  TEST_FR_RM(188, fsqrt.s, rne, 0x1a3504f3, FF_NX, 0x00000001)   /* sqrt 2^-149 */
  TEST_FR_RM(189, fsqrt.s, rtz, 0x1a3504f3, FF_NX, 0x00000001)   /* sqrt 2^-149 */
  TEST_FR_RM(190, fsqrt.s, rdn, 0x1a3504f3, FF_NX, 0x00000001)   /* sqrt 2^-149 */
  TEST_FR_RM(191, fsqrt.s, rup, 0x1a3504f4, FF_NX, 0x00000001)   /* sqrt 2^-149 */
  TEST_FR_RM(192, fsqrt.s, rmm, 0x1a3504f3, FF_NX, 0x00000001)   /* sqrt 2^-149 */
  TEST_FR_RM(193, fsqrt.s, rne, 0x5f7fffff, FF_NX, 0x7f7fffff)   /* sqrt max */
  TEST_FR_RM(194, fsqrt.s, rtz, 0x5f7fffff, FF_NX, 0x7f7fffff)   /* sqrt max */
  TEST_FR_RM(195, fsqrt.s, rdn, 0x5f7fffff, FF_NX, 0x7f7fffff)   /* sqrt max */
  TEST_FR_RM(196, fsqrt.s, rup, 0x5f800000, FF_NX, 0x7f7fffff)   /* sqrt max */
  TEST_FR_RM(197, fsqrt.s, rmm, 0x5f7fffff, FF_NX, 0x7f7fffff)   /* sqrt max */
  /* rd == rs1 == rs2, and the default (dynamic) mode follows frm */
  li gp, 200; li a0, 0x3f800001; fmv.w.x fa0, a0; fmul.s fa0, fa0, fa0; CHECK_F(fa0, 0x3f800002)
  CHECK_FFLAGS(FF_NX)
  li gp, 201; fsrmi RM_RUP; li a0, 0x3f800001; fmv.w.x fa0, a0; fmul.s fa0, fa0, fa0
  CHECK_F(fa0, 0x3f800003); CHECK_FFLAGS(FF_NX); fsrmi RM_RNE
ISA_TEST_END
