/* fp-cmp: feq.s flt.s fle.s and fmin.s fmax.s (unprivileged spec 11.8-11.9, 11.3).
   - feq is a quiet compare: a NaN operand gives 0 and raises NV only if it is signaling;
     flt/fle are signaling: any NaN gives 0 and raises NV. -0 == +0.
   - fmin/fmax (IEEE 754-2019 minimumNumber/maximumNumber): -0 < +0; one NaN operand gives
     the other operand; two NaNs give the canonical NaN 0x7fc00000 (payloads dropped);
     any signaling NaN raises NV.
   Expected values from an exact rational model of binary32. Runs on the ISS and on QEMU. */
#define ISA_TEST_FP 1
#include "isa_test.h"

ISA_TEST_BEGIN
  /* feq.s */
  TEST_XFF(1, feq.s, 1, 0, 0x3f800000, 0x3f800000)   /* equal */
  TEST_XFF(2, feq.s, 0, 0, 0x3f800000, 0x40000000)   /* less */
  TEST_XFF(3, feq.s, 0, 0, 0x40000000, 0x3f800000)   /* greater */
  TEST_XFF(4, feq.s, 0, 0, 0xbf800000, 0x3f800000)   /* -1 vs 1 */
  TEST_XFF(5, feq.s, 1, 0, 0x00000000, 0x80000000)   /* +0 vs -0 */
  TEST_XFF(6, feq.s, 1, 0, 0x80000000, 0x00000000)   /* -0 vs +0 */
  TEST_XFF(7, feq.s, 0, 0, 0xff800000, 0x7f800000)   /* -inf vs +inf */
  TEST_XFF(8, feq.s, 1, 0, 0x7f800000, 0x7f800000)   /* inf == inf */
  TEST_XFF(9, feq.s, 0, 0, 0x7f7fffff, 0x7f800000)   /* max vs inf */
  TEST_XFF(10, feq.s, 0, 0, 0x00000001, 0x00000000)   /* subnormal vs 0 */
  TEST_XFF(11, feq.s, 0, 0, 0x80000001, 0x00000001)   /* -sub vs +sub */
  TEST_XFF(12, feq.s, 0, 0, 0x00000001, 0x00800000)   /* subnormal vs min normal */
  TEST_XFF(13, feq.s, 0, 0, 0x7fc00000, 0x3f800000)   /* qNaN */
  TEST_XFF(14, feq.s, 0, 0, 0x3f800000, 0x7fc00000)   /* qNaN second */
  TEST_XFF(15, feq.s, 0, 0, 0x7fc00000, 0x7fc00000)   /* qNaN both */
  TEST_XFF(16, feq.s, 0, 0, 0xffc12345, 0xffc12345)   /* same NaN bits */
  TEST_XFF(17, feq.s, 0, FF_NV, 0x7f800001, 0x3f800000)   /* sNaN */
  TEST_XFF(18, feq.s, 0, FF_NV, 0x3f800000, 0xff800004)   /* -sNaN second */
  TEST_XFF(19, feq.s, 0, FF_NV, 0x7f800001, 0x7fc00000)   /* sNaN + qNaN */
  /* flt.s */
  TEST_XFF(20, flt.s, 0, 0, 0x3f800000, 0x3f800000)   /* equal */
  TEST_XFF(21, flt.s, 1, 0, 0x3f800000, 0x40000000)   /* less */
  TEST_XFF(22, flt.s, 0, 0, 0x40000000, 0x3f800000)   /* greater */
  TEST_XFF(23, flt.s, 1, 0, 0xbf800000, 0x3f800000)   /* -1 vs 1 */
  TEST_XFF(24, flt.s, 0, 0, 0x00000000, 0x80000000)   /* +0 vs -0 */
  TEST_XFF(25, flt.s, 0, 0, 0x80000000, 0x00000000)   /* -0 vs +0 */
  TEST_XFF(26, flt.s, 1, 0, 0xff800000, 0x7f800000)   /* -inf vs +inf */
  TEST_XFF(27, flt.s, 0, 0, 0x7f800000, 0x7f800000)   /* inf == inf */
  TEST_XFF(28, flt.s, 1, 0, 0x7f7fffff, 0x7f800000)   /* max vs inf */
  TEST_XFF(29, flt.s, 0, 0, 0x00000001, 0x00000000)   /* subnormal vs 0 */
  TEST_XFF(30, flt.s, 1, 0, 0x80000001, 0x00000001)   /* -sub vs +sub */
  TEST_XFF(31, flt.s, 1, 0, 0x00000001, 0x00800000)   /* subnormal vs min normal */
  TEST_XFF(32, flt.s, 0, FF_NV, 0x7fc00000, 0x3f800000)   /* qNaN */
  TEST_XFF(33, flt.s, 0, FF_NV, 0x3f800000, 0x7fc00000)   /* qNaN second */
  TEST_XFF(34, flt.s, 0, FF_NV, 0x7fc00000, 0x7fc00000)   /* qNaN both */
  TEST_XFF(35, flt.s, 0, FF_NV, 0xffc12345, 0xffc12345)   /* same NaN bits */
  TEST_XFF(36, flt.s, 0, FF_NV, 0x7f800001, 0x3f800000)   /* sNaN */
  TEST_XFF(37, flt.s, 0, FF_NV, 0x3f800000, 0xff800004)   /* -sNaN second */
  TEST_XFF(38, flt.s, 0, FF_NV, 0x7f800001, 0x7fc00000)   /* sNaN + qNaN */
  /* fle.s */
  TEST_XFF(40, fle.s, 1, 0, 0x3f800000, 0x3f800000)   /* equal */
  TEST_XFF(41, fle.s, 1, 0, 0x3f800000, 0x40000000)   /* less */
  TEST_XFF(42, fle.s, 0, 0, 0x40000000, 0x3f800000)   /* greater */
  TEST_XFF(43, fle.s, 1, 0, 0xbf800000, 0x3f800000)   /* -1 vs 1 */
  TEST_XFF(44, fle.s, 1, 0, 0x00000000, 0x80000000)   /* +0 vs -0 */
  TEST_XFF(45, fle.s, 1, 0, 0x80000000, 0x00000000)   /* -0 vs +0 */
  TEST_XFF(46, fle.s, 1, 0, 0xff800000, 0x7f800000)   /* -inf vs +inf */
  TEST_XFF(47, fle.s, 1, 0, 0x7f800000, 0x7f800000)   /* inf == inf */
  TEST_XFF(48, fle.s, 1, 0, 0x7f7fffff, 0x7f800000)   /* max vs inf */
  TEST_XFF(49, fle.s, 0, 0, 0x00000001, 0x00000000)   /* subnormal vs 0 */
  TEST_XFF(50, fle.s, 1, 0, 0x80000001, 0x00000001)   /* -sub vs +sub */
  TEST_XFF(51, fle.s, 1, 0, 0x00000001, 0x00800000)   /* subnormal vs min normal */
  TEST_XFF(52, fle.s, 0, FF_NV, 0x7fc00000, 0x3f800000)   /* qNaN */
  TEST_XFF(53, fle.s, 0, FF_NV, 0x3f800000, 0x7fc00000)   /* qNaN second */
  TEST_XFF(54, fle.s, 0, FF_NV, 0x7fc00000, 0x7fc00000)   /* qNaN both */
  TEST_XFF(55, fle.s, 0, FF_NV, 0xffc12345, 0xffc12345)   /* same NaN bits */
  TEST_XFF(56, fle.s, 0, FF_NV, 0x7f800001, 0x3f800000)   /* sNaN */
  TEST_XFF(57, fle.s, 0, FF_NV, 0x3f800000, 0xff800004)   /* -sNaN second */
  TEST_XFF(58, fle.s, 0, FF_NV, 0x7f800001, 0x7fc00000)   /* sNaN + qNaN */
  /* fmin.s */
  TEST_FRR(60, fmin.s, 0x3f800000, 0, 0x3f800000, 0x40000000)   /* 1, 2 */
  TEST_FRR(61, fmin.s, 0x3f800000, 0, 0x40000000, 0x3f800000)   /* 2, 1 */
  TEST_FRR(62, fmin.s, 0xbf800000, 0, 0xbf800000, 0x3f800000)   /* -1, 1 */
  TEST_FRR(63, fmin.s, 0x80000000, 0, 0x00000000, 0x80000000)   /* +0, -0 */
  TEST_FRR(64, fmin.s, 0x80000000, 0, 0x80000000, 0x00000000)   /* -0, +0 */
  TEST_FRR(65, fmin.s, 0x80000000, 0, 0x80000000, 0x80000000)   /* -0, -0 */
  TEST_FRR(66, fmin.s, 0xff800000, 0, 0xff800000, 0x7f7fffff)   /* -inf, max */
  TEST_FRR(67, fmin.s, 0x7f7fffff, 0, 0x7f800000, 0x7f7fffff)   /* +inf, max */
  TEST_FRR(68, fmin.s, 0x80000001, 0, 0x80000001, 0x00000001)   /* -sub, +sub */
  TEST_FRR(69, fmin.s, 0x3f800000, 0, 0x7fc00000, 0x3f800000)   /* qNaN, 1: the number */
  TEST_FRR(70, fmin.s, 0x3f800000, 0, 0x3f800000, 0x7fc00000)   /* 1, qNaN */
  TEST_FRR(71, fmin.s, 0xbf800000, 0, 0xffc12345, 0xbf800000)   /* NaN payload, -1 */
  TEST_FRR(72, fmin.s, 0x7fc00000, 0, 0x7fc00000, 0x7fc00000)   /* qNaN, qNaN: canonical */
  TEST_FRR(73, fmin.s, 0x7fc00000, 0, 0xffc12345, 0xffc00123)   /* two qNaNs with payloads: canonical */
  TEST_FRR(74, fmin.s, 0x3f800000, FF_NV, 0x7f800001, 0x3f800000)   /* sNaN, 1: the number, NV */
  TEST_FRR(75, fmin.s, 0x3f800000, FF_NV, 0x3f800000, 0xff800004)   /* 1, -sNaN */
  TEST_FRR(76, fmin.s, 0x7fc00000, FF_NV, 0x7f800001, 0x7fc00000)   /* sNaN, qNaN: canonical NaN, NV */
  TEST_FRR(77, fmin.s, 0x7fc00000, FF_NV, 0x7f800001, 0x7f800001)   /* sNaN, sNaN */
  TEST_FRR(78, fmin.s, 0x80000000, 0, 0x80000000, 0x7fc00000)   /* -0, qNaN */
  /* fmax.s */
  TEST_FRR(80, fmax.s, 0x40000000, 0, 0x3f800000, 0x40000000)   /* 1, 2 */
  TEST_FRR(81, fmax.s, 0x40000000, 0, 0x40000000, 0x3f800000)   /* 2, 1 */
  TEST_FRR(82, fmax.s, 0x3f800000, 0, 0xbf800000, 0x3f800000)   /* -1, 1 */
  TEST_FRR(83, fmax.s, 0x00000000, 0, 0x00000000, 0x80000000)   /* +0, -0 */
  TEST_FRR(84, fmax.s, 0x00000000, 0, 0x80000000, 0x00000000)   /* -0, +0 */
  TEST_FRR(85, fmax.s, 0x80000000, 0, 0x80000000, 0x80000000)   /* -0, -0 */
  TEST_FRR(86, fmax.s, 0x7f7fffff, 0, 0xff800000, 0x7f7fffff)   /* -inf, max */
  TEST_FRR(87, fmax.s, 0x7f800000, 0, 0x7f800000, 0x7f7fffff)   /* +inf, max */
  TEST_FRR(88, fmax.s, 0x00000001, 0, 0x80000001, 0x00000001)   /* -sub, +sub */
  TEST_FRR(89, fmax.s, 0x3f800000, 0, 0x7fc00000, 0x3f800000)   /* qNaN, 1: the number */
  TEST_FRR(90, fmax.s, 0x3f800000, 0, 0x3f800000, 0x7fc00000)   /* 1, qNaN */
  TEST_FRR(91, fmax.s, 0xbf800000, 0, 0xffc12345, 0xbf800000)   /* NaN payload, -1 */
  TEST_FRR(92, fmax.s, 0x7fc00000, 0, 0x7fc00000, 0x7fc00000)   /* qNaN, qNaN: canonical */
  TEST_FRR(93, fmax.s, 0x7fc00000, 0, 0xffc12345, 0xffc00123)   /* two qNaNs with payloads: canonical */
  TEST_FRR(94, fmax.s, 0x3f800000, FF_NV, 0x7f800001, 0x3f800000)   /* sNaN, 1: the number, NV */
  TEST_FRR(95, fmax.s, 0x3f800000, FF_NV, 0x3f800000, 0xff800004)   /* 1, -sNaN */
  TEST_FRR(96, fmax.s, 0x7fc00000, FF_NV, 0x7f800001, 0x7fc00000)   /* sNaN, qNaN: canonical NaN, NV */
  TEST_FRR(97, fmax.s, 0x7fc00000, FF_NV, 0x7f800001, 0x7f800001)   /* sNaN, sNaN */
  TEST_FRR(98, fmax.s, 0x80000000, 0, 0x80000000, 0x7fc00000)   /* -0, qNaN */
  /* x0 as the destination of a compare: nothing written, flags still raised */
  li gp, 100; csrwi fflags, 0; li a0, 0x7fc00000; fmv.w.x fa0, a0; flt.s zero, fa0, fa0
  CHECK_EQ(zero, 0); CHECK_FFLAGS(FF_NV)
  /* rd == rs1 == rs2 for fmin/fmax */
  li gp, 101; li a0, 0x80000000; fmv.w.x fa0, a0; fmax.s fa0, fa0, fa0; CHECK_F(fa0, 0x80000000)
  CHECK_FFLAGS(0)
ISA_TEST_END
