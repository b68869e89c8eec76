/* fp-cvt-from-int: fcvt.s.w and fcvt.s.wu (unprivileged spec 11.7) in every rounding mode
   (static, and dynamic through frm): integers above 2^24 round to 24 significant bits,
   ties to even under RNE and away from zero under RMM, with NX; exact conversions raise
   nothing; 0 converts to +0 in every mode. Expected values from an exact rational model
   of binary32. Runs on the ISS and on QEMU. */
#define ISA_TEST_FP 1
#include "isa_test.h"

ISA_TEST_BEGIN
  /* fcvt.s.w: every rounding mode */
  TEST_FX_RM(1, fcvt.s.w, rne, 0x4f000000, FF_NX, 0x7fffffff)   /* 2^31 - 1 */
  TEST_FX_RM(2, fcvt.s.w, rtz, 0x4effffff, FF_NX, 0x7fffffff)   /* 2^31 - 1 */
  TEST_FX_RM(3, fcvt.s.w, rdn, 0x4effffff, FF_NX, 0x7fffffff)   /* 2^31 - 1 */
  TEST_FX_RM(4, fcvt.s.w, rup, 0x4f000000, FF_NX, 0x7fffffff)   /* 2^31 - 1 */
  TEST_FX_RM(5, fcvt.s.w, rmm, 0x4f000000, FF_NX, 0x7fffffff)   /* 2^31 - 1 */
  TEST_FX_RM(6, fcvt.s.w, rne, 0x4b800000, FF_NX, 0x01000001)   /* 2^24 + 1 (tie) */
  TEST_FX_RM(7, fcvt.s.w, rtz, 0x4b800000, FF_NX, 0x01000001)   /* 2^24 + 1 (tie) */
  TEST_FX_RM(8, fcvt.s.w, rdn, 0x4b800000, FF_NX, 0x01000001)   /* 2^24 + 1 (tie) */
  TEST_FX_RM(9, fcvt.s.w, rup, 0x4b800001, FF_NX, 0x01000001)   /* 2^24 + 1 (tie) */
  TEST_FX_RM(10, fcvt.s.w, rmm, 0x4b800001, FF_NX, 0x01000001)   /* 2^24 + 1 (tie) */
  TEST_FX_RM(11, fcvt.s.w, rne, 0x4b800002, FF_NX, 0x01000003)   /* 2^24 + 3 (tie) */
  TEST_FX_RM(12, fcvt.s.w, rtz, 0x4b800001, FF_NX, 0x01000003)   /* 2^24 + 3 (tie) */
  TEST_FX_RM(13, fcvt.s.w, rdn, 0x4b800001, FF_NX, 0x01000003)   /* 2^24 + 3 (tie) */
  TEST_FX_RM(14, fcvt.s.w, rup, 0x4b800002, FF_NX, 0x01000003)   /* 2^24 + 3 (tie) */
  TEST_FX_RM(15, fcvt.s.w, rmm, 0x4b800002, FF_NX, 0x01000003)   /* 2^24 + 3 (tie) */
  TEST_FX_RM(16, fcvt.s.w, rne, 0xcb800000, FF_NX, 0xfeffffff)   /* -(2^24 + 1) */
  TEST_FX_RM(17, fcvt.s.w, rtz, 0xcb800000, FF_NX, 0xfeffffff)   /* -(2^24 + 1) */
  TEST_FX_RM(18, fcvt.s.w, rdn, 0xcb800001, FF_NX, 0xfeffffff)   /* -(2^24 + 1) */
  TEST_FX_RM(19, fcvt.s.w, rup, 0xcb800000, FF_NX, 0xfeffffff)   /* -(2^24 + 1) */
  TEST_FX_RM(20, fcvt.s.w, rmm, 0xcb800001, FF_NX, 0xfeffffff)   /* -(2^24 + 1) */
  TEST_FX_RM(21, fcvt.s.w, rne, 0xcb800002, FF_NX, 0xfefffffd)   /* -(2^24 + 3) */
  TEST_FX_RM(22, fcvt.s.w, rtz, 0xcb800001, FF_NX, 0xfefffffd)   /* -(2^24 + 3) */
  TEST_FX_RM(23, fcvt.s.w, rdn, 0xcb800002, FF_NX, 0xfefffffd)   /* -(2^24 + 3) */
  TEST_FX_RM(24, fcvt.s.w, rup, 0xcb800001, FF_NX, 0xfefffffd)   /* -(2^24 + 3) */
  TEST_FX_RM(25, fcvt.s.w, rmm, 0xcb800002, FF_NX, 0xfefffffd)   /* -(2^24 + 3) */
  TEST_FX_RM(26, fcvt.s.w, rne, 0x4effffff, FF_NX, 0x7fffffbf)   /* 2^31 - 65 */
  TEST_FX_RM(27, fcvt.s.w, rtz, 0x4effffff, FF_NX, 0x7fffffbf)   /* 2^31 - 65 */
  TEST_FX_RM(28, fcvt.s.w, rdn, 0x4effffff, FF_NX, 0x7fffffbf)   /* 2^31 - 65 */
  TEST_FX_RM(29, fcvt.s.w, rup, 0x4f000000, FF_NX, 0x7fffffbf)   /* 2^31 - 65 */
  TEST_FX_RM(30, fcvt.s.w, rmm, 0x4effffff, FF_NX, 0x7fffffbf)   /* 2^31 - 65 */
  TEST_FX_RM(31, fcvt.s.w, rne, 0xceffffff, FF_NX, 0x80000041)   /* -(2^31 - 65) */
  TEST_FX_RM(32, fcvt.s.w, rtz, 0xceffffff, FF_NX, 0x80000041)   /* -(2^31 - 65) */
  TEST_FX_RM(33, fcvt.s.w, rdn, 0xcf000000, FF_NX, 0x80000041)   /* -(2^31 - 65) */
  TEST_FX_RM(34, fcvt.s.w, rup, 0xceffffff, FF_NX, 0x80000041)   /* -(2^31 - 65) */
  TEST_FX_RM(35, fcvt.s.w, rmm, 0xceffffff, FF_NX, 0x80000041)   /* -(2^31 - 65) */
  TEST_FX_RM(36, fcvt.s.w, rne, 0x4b800002, FF_NX, 0x01000003)   /* 2^24 + 3 */
  TEST_FX_RM(37, fcvt.s.w, rtz, 0x4b800001, FF_NX, 0x01000003)   /* 2^24 + 3 */
  TEST_FX_RM(38, fcvt.s.w, rdn, 0x4b800001, FF_NX, 0x01000003)   /* 2^24 + 3 */
  TEST_FX_RM(39, fcvt.s.w, rup, 0x4b800002, FF_NX, 0x01000003)   /* 2^24 + 3 */
  TEST_FX_RM(40, fcvt.s.w, rmm, 0x4b800002, FF_NX, 0x01000003)   /* 2^24 + 3 */
  TEST_FX_RM(41, fcvt.s.w, rne, 0x4c000001, FF_NX, 0x02000003)   /* 2^25 + 3 */
  TEST_FX_RM(42, fcvt.s.w, rtz, 0x4c000000, FF_NX, 0x02000003)   /* 2^25 + 3 */
  TEST_FX_RM(43, fcvt.s.w, rdn, 0x4c000000, FF_NX, 0x02000003)   /* 2^25 + 3 */
  TEST_FX_RM(44, fcvt.s.w, rup, 0x4c000001, FF_NX, 0x02000003)   /* 2^25 + 3 */
  TEST_FX_RM(45, fcvt.s.w, rmm, 0x4c000001, FF_NX, 0x02000003)   /* 2^25 + 3 */
  /* fcvt.s.w: exact */
  TEST_FX_RM(46, fcvt.s.w, rne, 0x00000000, 0, 0x00000000)   /* 0 */
  TEST_FX_RM(47, fcvt.s.w, rne, 0x3f800000, 0, 0x00000001)   /* 1 */
  TEST_FX_RM(48, fcvt.s.w, rne, 0xbf800000, 0, 0xffffffff)   /* -1 */
  TEST_FX_RM(49, fcvt.s.w, rne, 0xcf000000, 0, 0x80000000)   /* -2^31 */
  TEST_FX_RM(50, fcvt.s.w, rne, 0x4effffff, 0, 0x7fffff80)   /* 2^31 - 128 */
  TEST_FX_RM(51, fcvt.s.w, rne, 0x4b800000, 0, 0x01000000)   /* 2^24 */
  TEST_FX_RM(52, fcvt.s.w, rne, 0xc0e00000, 0, 0xfffffff9)   /* -7 */
  /* fcvt.s.wu: every rounding mode */
  TEST_FX_RM(53, fcvt.s.wu, rne, 0x4f800000, FF_NX, 0xffffffff)   /* 2^32 - 1 */
  TEST_FX_RM(54, fcvt.s.wu, rtz, 0x4f7fffff, FF_NX, 0xffffffff)   /* 2^32 - 1 */
  TEST_FX_RM(55, fcvt.s.wu, rdn, 0x4f7fffff, FF_NX, 0xffffffff)   /* 2^32 - 1 */
  TEST_FX_RM(56, fcvt.s.wu, rup, 0x4f800000, FF_NX, 0xffffffff)   /* 2^32 - 1 */
  TEST_FX_RM(57, fcvt.s.wu, rmm, 0x4f800000, FF_NX, 0xffffffff)   /* 2^32 - 1 */
  TEST_FX_RM(58, fcvt.s.wu, rne, 0x4f000000, FF_NX, 0x80000001)   /* 2^31 + 1 */
  TEST_FX_RM(59, fcvt.s.wu, rtz, 0x4f000000, FF_NX, 0x80000001)   /* 2^31 + 1 */
  TEST_FX_RM(60, fcvt.s.wu, rdn, 0x4f000000, FF_NX, 0x80000001)   /* 2^31 + 1 */
  TEST_FX_RM(61, fcvt.s.wu, rup, 0x4f000001, FF_NX, 0x80000001)   /* 2^31 + 1 */
  TEST_FX_RM(62, fcvt.s.wu, rmm, 0x4f000000, FF_NX, 0x80000001)   /* 2^31 + 1 */
  TEST_FX_RM(63, fcvt.s.wu, rne, 0x4b800000, FF_NX, 0x01000001)   /* 2^24 + 1 (tie) */
  TEST_FX_RM(64, fcvt.s.wu, rtz, 0x4b800000, FF_NX, 0x01000001)   /* 2^24 + 1 (tie) */
  TEST_FX_RM(65, fcvt.s.wu, rdn, 0x4b800000, FF_NX, 0x01000001)   /* 2^24 + 1 (tie) */
  TEST_FX_RM(66, fcvt.s.wu, rup, 0x4b800001, FF_NX, 0x01000001)   /* 2^24 + 1 (tie) */
  TEST_FX_RM(67, fcvt.s.wu, rmm, 0x4b800001, FF_NX, 0x01000001)   /* 2^24 + 1 (tie) */
  TEST_FX_RM(68, fcvt.s.wu, rne, 0x4f7fffff, FF_NX, 0xffffff7f)   /* 2^32 - 129 */
  TEST_FX_RM(69, fcvt.s.wu, rtz, 0x4f7fffff, FF_NX, 0xffffff7f)   /* 2^32 - 129 */
  TEST_FX_RM(70, fcvt.s.wu, rdn, 0x4f7fffff, FF_NX, 0xffffff7f)   /* 2^32 - 129 */
  TEST_FX_RM(71, fcvt.s.wu, rup, 0x4f800000, FF_NX, 0xffffff7f)   /* 2^32 - 129 */
  TEST_FX_RM(72, fcvt.s.wu, rmm, 0x4f7fffff, FF_NX, 0xffffff7f)   /* 2^32 - 129 */
  TEST_FX_RM(73, fcvt.s.wu, rne, 0x4f800000, FF_NX, 0xffffff80)   /* 2^32 - 128 (tie) */
  TEST_FX_RM(74, fcvt.s.wu, rtz, 0x4f7fffff, FF_NX, 0xffffff80)   /* 2^32 - 128 (tie) */
  TEST_FX_RM(75, fcvt.s.wu, rdn, 0x4f7fffff, FF_NX, 0xffffff80)   /* 2^32 - 128 (tie) */
  TEST_FX_RM(76, fcvt.s.wu, rup, 0x4f800000, FF_NX, 0xffffff80)   /* 2^32 - 128 (tie) */
  TEST_FX_RM(77, fcvt.s.wu, rmm, 0x4f800000, FF_NX, 0xffffff80)   /* 2^32 - 128 (tie) */
  TEST_FX_RM(78, fcvt.s.wu, rne, 0x4f000000, FF_NX, 0x7fffffff)   /* 2^31 - 1 */
  TEST_FX_RM(79, fcvt.s.wu, rtz, 0x4effffff, FF_NX, 0x7fffffff)   /* 2^31 - 1 */
  TEST_FX_RM(80, fcvt.s.wu, rdn, 0x4effffff, FF_NX, 0x7fffffff)   /* 2^31 - 1 */
  TEST_FX_RM(81, fcvt.s.wu, rup, 0x4f000000, FF_NX, 0x7fffffff)   /* 2^31 - 1 */
  TEST_FX_RM(82, fcvt.s.wu, rmm, 0x4f000000, FF_NX, 0x7fffffff)   /* 2^31 - 1 */
  /* fcvt.s.wu: exact */
  TEST_FX_RM(83, fcvt.s.wu, rne, 0x00000000, 0, 0x00000000)   /* 0 */
  TEST_FX_RM(84, fcvt.s.wu, rne, 0x3f800000, 0, 0x00000001)   /* 1 */
  TEST_FX_RM(85, fcvt.s.wu, rne, 0x4f000000, 0, 0x80000000)   /* 2^31 */
  TEST_FX_RM(86, fcvt.s.wu, rne, 0x4f7fffff, 0, 0xffffff00)   /* 2^32 - 256 */
  /* the dynamic mode (frm): 2^24 + 1 in each mode */
  fsrmi 0; TEST_FX_RM(87, fcvt.s.w, dyn, 0x4b800000, FF_NX, 16777217)
  fsrmi 1; TEST_FX_RM(88, fcvt.s.w, dyn, 0x4b800000, FF_NX, 16777217)
  fsrmi 2; TEST_FX_RM(89, fcvt.s.w, dyn, 0x4b800000, FF_NX, 16777217)
  fsrmi 3; TEST_FX_RM(90, fcvt.s.w, dyn, 0x4b800001, FF_NX, 16777217)
  fsrmi 4; TEST_FX_RM(91, fcvt.s.w, dyn, 0x4b800001, FF_NX, 16777217)
  fsrmi RM_RNE
  /* zero is +0 even rounding down */
  TEST_FX_RM(92, fcvt.s.w, rdn, 0x00000000, 0, 0)
  TEST_FX_RM(93, fcvt.s.wu, rdn, 0x00000000, 0, 0)
  /* rs1 = x0 */
  li gp, 94; fcvt.s.w fa0, zero; CHECK_F(fa0, 0); CHECK_FFLAGS(0)
ISA_TEST_END
