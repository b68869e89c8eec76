/* fp-cvt-to-int: fcvt.w.s and fcvt.wu.s (unprivileged spec 11.7) in every rounding mode
   (static rm field, and the dynamic mode through frm). Ties (x.5) go to even under RNE
   and away from zero under RMM; inexact results raise NX. Out-of-range inputs saturate
   and raise NV only (no NX): > max or +inf or NaN -> 2^31-1 (w) / 2^32-1 (wu);
   < min or -inf -> -2^31 (w) / 0 (wu). For wu, a negative input that rounds to 0 is
   just inexact (-0.5 RTZ -> 0, NX), one that rounds to -1 is invalid. Expected values
   from an exact rational model of binary32. Runs on the ISS and on QEMU. */
#define ISA_TEST_FP 1
#include "isa_test.h"

ISA_TEST_BEGIN
  /* fcvt.w.s: every rounding mode */
  TEST_XF_RM(1, fcvt.w.s, rne, 0x00000002, FF_NX, 0x3fc00000)   /* 1.5 */
  TEST_XF_RM(2, fcvt.w.s, rtz, 0x00000001, FF_NX, 0x3fc00000)   /* 1.5 */
  TEST_XF_RM(3, fcvt.w.s, rdn, 0x00000001, FF_NX, 0x3fc00000)   /* 1.5 */
  TEST_XF_RM(4, fcvt.w.s, rup, 0x00000002, FF_NX, 0x3fc00000)   /* 1.5 */
  TEST_XF_RM(5, fcvt.w.s, rmm, 0x00000002, FF_NX, 0x3fc00000)   /* 1.5 */
  TEST_XF_RM(6, fcvt.w.s, rne, 0x00000002, FF_NX, 0x40200000)   /* 2.5 */
  TEST_XF_RM(7, fcvt.w.s, rtz, 0x00000002, FF_NX, 0x40200000)   /* 2.5 */
  TEST_XF_RM(8, fcvt.w.s, rdn, 0x00000002, FF_NX, 0x40200000)   /* 2.5 */
  TEST_XF_RM(9, fcvt.w.s, rup, 0x00000003, FF_NX, 0x40200000)   /* 2.5 */
  TEST_XF_RM(10, fcvt.w.s, rmm, 0x00000003, FF_NX, 0x40200000)   /* 2.5 */
  TEST_XF_RM(11, fcvt.w.s, rne, 0xfffffffe, FF_NX, 0xbfc00000)   /* -1.5 */
  TEST_XF_RM(12, fcvt.w.s, rtz, 0xffffffff, FF_NX, 0xbfc00000)   /* -1.5 */
  TEST_XF_RM(13, fcvt.w.s, rdn, 0xfffffffe, FF_NX, 0xbfc00000)   /* -1.5 */
  TEST_XF_RM(14, fcvt.w.s, rup, 0xffffffff, FF_NX, 0xbfc00000)   /* -1.5 */
  TEST_XF_RM(15, fcvt.w.s, rmm, 0xfffffffe, FF_NX, 0xbfc00000)   /* -1.5 */
  TEST_XF_RM(16, fcvt.w.s, rne, 0xfffffffe, FF_NX, 0xc0200000)   /* -2.5 */
  TEST_XF_RM(17, fcvt.w.s, rtz, 0xfffffffe, FF_NX, 0xc0200000)   /* -2.5 */
  TEST_XF_RM(18, fcvt.w.s, rdn, 0xfffffffd, FF_NX, 0xc0200000)   /* -2.5 */
  TEST_XF_RM(19, fcvt.w.s, rup, 0xfffffffe, FF_NX, 0xc0200000)   /* -2.5 */
  TEST_XF_RM(20, fcvt.w.s, rmm, 0xfffffffd, FF_NX, 0xc0200000)   /* -2.5 */
  TEST_XF_RM(21, fcvt.w.s, rne, 0x00000000, FF_NX, 0x3f000000)   /* 0.5 */
  TEST_XF_RM(22, fcvt.w.s, rtz, 0x00000000, FF_NX, 0x3f000000)   /* 0.5 */
  TEST_XF_RM(23, fcvt.w.s, rdn, 0x00000000, FF_NX, 0x3f000000)   /* 0.5 */
  TEST_XF_RM(24, fcvt.w.s, rup, 0x00000001, FF_NX, 0x3f000000)   /* 0.5 */
  TEST_XF_RM(25, fcvt.w.s, rmm, 0x00000001, FF_NX, 0x3f000000)   /* 0.5 */
  TEST_XF_RM(26, fcvt.w.s, rne, 0x00000000, FF_NX, 0xbf000000)   /* -0.5 */
  TEST_XF_RM(27, fcvt.w.s, rtz, 0x00000000, FF_NX, 0xbf000000)   /* -0.5 */
  TEST_XF_RM(28, fcvt.w.s, rdn, 0xffffffff, FF_NX, 0xbf000000)   /* -0.5 */
  TEST_XF_RM(29, fcvt.w.s, rup, 0x00000000, FF_NX, 0xbf000000)   /* -0.5 */
  TEST_XF_RM(30, fcvt.w.s, rmm, 0xffffffff, FF_NX, 0xbf000000)   /* -0.5 */
  TEST_XF_RM(31, fcvt.w.s, rne, 0xffffffff, FF_NX, 0xbf666666)   /* -0.9 */
  TEST_XF_RM(32, fcvt.w.s, rtz, 0x00000000, FF_NX, 0xbf666666)   /* -0.9 */
  TEST_XF_RM(33, fcvt.w.s, rdn, 0xffffffff, FF_NX, 0xbf666666)   /* -0.9 */
  TEST_XF_RM(34, fcvt.w.s, rup, 0x00000000, FF_NX, 0xbf666666)   /* -0.9 */
  TEST_XF_RM(35, fcvt.w.s, rmm, 0xffffffff, FF_NX, 0xbf666666)   /* -0.9 */
  TEST_XF_RM(36, fcvt.w.s, rne, 0x00000000, FF_NX, 0x3ecccccd)   /* 0.4 */
  TEST_XF_RM(37, fcvt.w.s, rtz, 0x00000000, FF_NX, 0x3ecccccd)   /* 0.4 */
  TEST_XF_RM(38, fcvt.w.s, rdn, 0x00000000, FF_NX, 0x3ecccccd)   /* 0.4 */
  TEST_XF_RM(39, fcvt.w.s, rup, 0x00000001, FF_NX, 0x3ecccccd)   /* 0.4 */
  TEST_XF_RM(40, fcvt.w.s, rmm, 0x00000000, FF_NX, 0x3ecccccd)   /* 0.4 */
  TEST_XF_RM(41, fcvt.w.s, rne, 0x00000000, FF_NX, 0x00000001)   /* +min subnormal */
  TEST_XF_RM(42, fcvt.w.s, rtz, 0x00000000, FF_NX, 0x00000001)   /* +min subnormal */
  TEST_XF_RM(43, fcvt.w.s, rdn, 0x00000000, FF_NX, 0x00000001)   /* +min subnormal */
  TEST_XF_RM(44, fcvt.w.s, rup, 0x00000001, FF_NX, 0x00000001)   /* +min subnormal */
  TEST_XF_RM(45, fcvt.w.s, rmm, 0x00000000, FF_NX, 0x00000001)   /* +min subnormal */
  TEST_XF_RM(46, fcvt.w.s, rne, 0x00000000, FF_NX, 0x80000001)   /* -min subnormal */
  TEST_XF_RM(47, fcvt.w.s, rtz, 0x00000000, FF_NX, 0x80000001)   /* -min subnormal */
  TEST_XF_RM(48, fcvt.w.s, rdn, 0xffffffff, FF_NX, 0x80000001)   /* -min subnormal */
  TEST_XF_RM(49, fcvt.w.s, rup, 0x00000000, FF_NX, 0x80000001)   /* -min subnormal */
  TEST_XF_RM(50, fcvt.w.s, rmm, 0x00000000, FF_NX, 0x80000001)   /* -min subnormal */
  /* fcvt.w.s: exact values, limits, infinities, NaNs (RNE and RTZ) */
  TEST_XF_RM(51, fcvt.w.s, rne, 0x00000001, 0, 0x3f800000)   /* 1.0 */
  TEST_XF_RM(52, fcvt.w.s, rtz, 0x00000001, 0, 0x3f800000)   /* 1.0 */
  TEST_XF_RM(53, fcvt.w.s, rne, 0xffffffff, 0, 0xbf800000)   /* -1.0 */
  TEST_XF_RM(54, fcvt.w.s, rtz, 0xffffffff, 0, 0xbf800000)   /* -1.0 */
  TEST_XF_RM(55, fcvt.w.s, rne, 0x00000000, 0, 0x80000000)   /* -0 */
  TEST_XF_RM(56, fcvt.w.s, rtz, 0x00000000, 0, 0x80000000)   /* -0 */
  TEST_XF_RM(57, fcvt.w.s, rne, 0x7fffffff, FF_NV, 0x4f000000)   /* 2^31 */
  TEST_XF_RM(58, fcvt.w.s, rtz, 0x7fffffff, FF_NV, 0x4f000000)   /* 2^31 */
  TEST_XF_RM(59, fcvt.w.s, rne, 0x7fffff80, 0, 0x4effffff)   /* 2^31 - 128 */
  TEST_XF_RM(60, fcvt.w.s, rtz, 0x7fffff80, 0, 0x4effffff)   /* 2^31 - 128 */
  TEST_XF_RM(61, fcvt.w.s, rne, 0x80000000, 0, 0xcf000000)   /* -2^31 */
  TEST_XF_RM(62, fcvt.w.s, rtz, 0x80000000, 0, 0xcf000000)   /* -2^31 */
  TEST_XF_RM(63, fcvt.w.s, rne, 0x80000000, FF_NV, 0xcf000001)   /* -2^31 - 256 */
  TEST_XF_RM(64, fcvt.w.s, rtz, 0x80000000, FF_NV, 0xcf000001)   /* -2^31 - 256 */
  TEST_XF_RM(65, fcvt.w.s, rne, 0x7fffffff, FF_NV, 0x4f800000)   /* 2^32 */
  TEST_XF_RM(66, fcvt.w.s, rtz, 0x7fffffff, FF_NV, 0x4f800000)   /* 2^32 */
  TEST_XF_RM(67, fcvt.w.s, rne, 0x7fffffff, FF_NV, 0x4f7fffff)   /* 2^32 - 256 */
  TEST_XF_RM(68, fcvt.w.s, rtz, 0x7fffffff, FF_NV, 0x4f7fffff)   /* 2^32 - 256 */
  TEST_XF_RM(69, fcvt.w.s, rne, 0x7fffffff, FF_NV, 0x7f800000)   /* +inf */
  TEST_XF_RM(70, fcvt.w.s, rtz, 0x7fffffff, FF_NV, 0x7f800000)   /* +inf */
  TEST_XF_RM(71, fcvt.w.s, rne, 0x80000000, FF_NV, 0xff800000)   /* -inf */
  TEST_XF_RM(72, fcvt.w.s, rtz, 0x80000000, FF_NV, 0xff800000)   /* -inf */
  TEST_XF_RM(73, fcvt.w.s, rne, 0x7fffffff, FF_NV, 0x7fc00000)   /* qNaN */
  TEST_XF_RM(74, fcvt.w.s, rtz, 0x7fffffff, FF_NV, 0x7fc00000)   /* qNaN */
  TEST_XF_RM(75, fcvt.w.s, rne, 0x7fffffff, FF_NV, 0x7f800001)   /* sNaN */
  TEST_XF_RM(76, fcvt.w.s, rtz, 0x7fffffff, FF_NV, 0x7f800001)   /* sNaN */
  TEST_XF_RM(77, fcvt.w.s, rne, 0x7fffffff, FF_NV, 0xffc00000)   /* -qNaN */
  TEST_XF_RM(78, fcvt.w.s, rtz, 0x7fffffff, FF_NV, 0xffc00000)   /* -qNaN */
  TEST_XF_RM(79, fcvt.w.s, rne, 0x7fffffff, FF_NV, 0x7f7fffff)   /* max */
  TEST_XF_RM(80, fcvt.w.s, rtz, 0x7fffffff, FF_NV, 0x7f7fffff)   /* max */
  TEST_XF_RM(81, fcvt.w.s, rne, 0x0001e241, FF_NX, 0x47f12060)   /* 123456.75 */
  TEST_XF_RM(82, fcvt.w.s, rtz, 0x0001e240, FF_NX, 0x47f12060)   /* 123456.75 */
  /* fcvt.wu.s: every rounding mode */
  TEST_XF_RM(83, fcvt.wu.s, rne, 0x00000002, FF_NX, 0x3fc00000)   /* 1.5 */
  TEST_XF_RM(84, fcvt.wu.s, rtz, 0x00000001, FF_NX, 0x3fc00000)   /* 1.5 */
  TEST_XF_RM(85, fcvt.wu.s, rdn, 0x00000001, FF_NX, 0x3fc00000)   /* 1.5 */
  TEST_XF_RM(86, fcvt.wu.s, rup, 0x00000002, FF_NX, 0x3fc00000)   /* 1.5 */
  TEST_XF_RM(87, fcvt.wu.s, rmm, 0x00000002, FF_NX, 0x3fc00000)   /* 1.5 */
  TEST_XF_RM(88, fcvt.wu.s, rne, 0x00000002, FF_NX, 0x40200000)   /* 2.5 */
  TEST_XF_RM(89, fcvt.wu.s, rtz, 0x00000002, FF_NX, 0x40200000)   /* 2.5 */
  TEST_XF_RM(90, fcvt.wu.s, rdn, 0x00000002, FF_NX, 0x40200000)   /* 2.5 */
  TEST_XF_RM(91, fcvt.wu.s, rup, 0x00000003, FF_NX, 0x40200000)   /* 2.5 */
  TEST_XF_RM(92, fcvt.wu.s, rmm, 0x00000003, FF_NX, 0x40200000)   /* 2.5 */
  TEST_XF_RM(93, fcvt.wu.s, rne, 0x00000000, FF_NV, 0xbfc00000)   /* -1.5 */
  TEST_XF_RM(94, fcvt.wu.s, rtz, 0x00000000, FF_NV, 0xbfc00000)   /* -1.5 */
  TEST_XF_RM(95, fcvt.wu.s, rdn, 0x00000000, FF_NV, 0xbfc00000)   /* -1.5 */
  TEST_XF_RM(96, fcvt.wu.s, rup, 0x00000000, FF_NV, 0xbfc00000)   /* -1.5 */
  TEST_XF_RM(97, fcvt.wu.s, rmm, 0x00000000, FF_NV, 0xbfc00000)   /* -1.5 */
  TEST_XF_RM(98, fcvt.wu.s, rne, 0x00000000, FF_NV, 0xc0200000)   /* -2.5 */
  TEST_XF_RM(99, fcvt.wu.s, rtz, 0x00000000, FF_NV, 0xc0200000)   /* -2.5 */
  TEST_XF_RM(100, fcvt.wu.s, rdn, 0x00000000, FF_NV, 0xc0200000)   /* -2.5 */
  TEST_XF_RM(101, fcvt.wu.s, rup, 0x00000000, FF_NV, 0xc0200000)   /* -2.5 */
  TEST_XF_RM(102, fcvt.wu.s, rmm, 0x00000000, FF_NV, 0xc0200000)   /* -2.5 */
  TEST_XF_RM(103, fcvt.wu.s, rne, 0x00000000, FF_NX, 0x3f000000)   /* 0.5 */
  TEST_XF_RM(104, fcvt.wu.s, rtz, 0x00000000, FF_NX, 0x3f000000)   /* 0.5 */
  TEST_XF_RM(105, fcvt.wu.s, rdn, 0x00000000, FF_NX, 0x3f000000)   /* 0.5 */
  TEST_XF_RM(106, fcvt.wu.s, rup, 0x00000001, FF_NX, 0x3f000000)   /* 0.5 */
  TEST_XF_RM(107, fcvt.wu.s, rmm, 0x00000001, FF_NX, 0x3f000000)   /* 0.5 */
  TEST_XF_RM(108, fcvt.wu.s, rne, 0x00000000, FF_NX, 0xbf000000)   /* -0.5 */
  TEST_XF_RM(109, fcvt.wu.s, rtz, 0x00000000, FF_NX, 0xbf000000)   /* -0.5 */
  TEST_XF_RM(110, fcvt.wu.s, rdn, 0x00000000, FF_NV, 0xbf000000)   /* -0.5 */
  TEST_XF_RM(111, fcvt.wu.s, rup, 0x00000000, FF_NX, 0xbf000000)   /* -0.5 */
  TEST_XF_RM(112, fcvt.wu.s, rmm, 0x00000000, FF_NV, 0xbf000000)   /* -0.5 */
  TEST_XF_RM(113, fcvt.wu.s, rne, 0x00000000, FF_NV, 0xbf666666)   /* -0.9 */
  TEST_XF_RM(114, fcvt.wu.s, rtz, 0x00000000, FF_NX, 0xbf666666)   /* -0.9 */
  TEST_XF_RM(115, fcvt.wu.s, rdn, 0x00000000, FF_NV, 0xbf666666)   /* -0.9 */
  TEST_XF_RM(116, fcvt.wu.s, rup, 0x00000000, FF_NX, 0xbf666666)   /* -0.9 */
  TEST_XF_RM(117, fcvt.wu.s, rmm, 0x00000000, FF_NV, 0xbf666666)   /* -0.9 */
  TEST_XF_RM(118, fcvt.wu.s, rne, 0x00000000, FF_NX, 0x3ecccccd)   /* 0.4 */
  TEST_XF_RM(119, fcvt.wu.s, rtz, 0x00000000, FF_NX, 0x3ecccccd)   /* 0.4 */
  TEST_XF_RM(120, fcvt.wu.s, rdn, 0x00000000, FF_NX, 0x3ecccccd)   /* 0.4 */
  TEST_XF_RM(121, fcvt.wu.s, rup, 0x00000001, FF_NX, 0x3ecccccd)   /* 0.4 */
  TEST_XF_RM(122, fcvt.wu.s, rmm, 0x00000000, FF_NX, 0x3ecccccd)   /* 0.4 */
  TEST_XF_RM(123, fcvt.wu.s, rne, 0x00000000, FF_NX, 0x00000001)   /* +min subnormal */
  TEST_XF_RM(124, fcvt.wu.s, rtz, 0x00000000, FF_NX, 0x00000001)   /* +min subnormal */
  TEST_XF_RM(125, fcvt.wu.s, rdn, 0x00000000, FF_NX, 0x00000001)   /* +min subnormal */
  TEST_XF_RM(126, fcvt.wu.s, rup, 0x00000001, FF_NX, 0x00000001)   /* +min subnormal */
  TEST_XF_RM(127, fcvt.wu.s, rmm, 0x00000000, FF_NX, 0x00000001)   /* +min subnormal */
  TEST_XF_RM(128, fcvt.wu.s, rne, 0x00000000, FF_NX, 0x80000001)   /* -min subnormal */
  TEST_XF_RM(129, fcvt.wu.s, rtz, 0x00000000, FF_NX, 0x80000001)   /* -min subnormal */
  TEST_XF_RM(130, fcvt.wu.s, rdn, 0x00000000, FF_NV, 0x80000001)   /* -min subnormal */
  TEST_XF_RM(131, fcvt.wu.s, rup, 0x00000000, FF_NX, 0x80000001)   /* -min subnormal */
  TEST_XF_RM(132, fcvt.wu.s, rmm, 0x00000000, FF_NX, 0x80000001)   /* -min subnormal */
  /* fcvt.wu.s: exact values, limits, infinities, NaNs (RNE and RTZ) */
  TEST_XF_RM(133, fcvt.wu.s, rne, 0x00000001, 0, 0x3f800000)   /* 1.0 */
  TEST_XF_RM(134, fcvt.wu.s, rtz, 0x00000001, 0, 0x3f800000)   /* 1.0 */
  TEST_XF_RM(135, fcvt.wu.s, rne, 0x00000000, FF_NV, 0xbf800000)   /* -1.0 */
  TEST_XF_RM(136, fcvt.wu.s, rtz, 0x00000000, FF_NV, 0xbf800000)   /* -1.0 */
  TEST_XF_RM(137, fcvt.wu.s, rne, 0x00000000, 0, 0x80000000)   /* -0 */
  TEST_XF_RM(138, fcvt.wu.s, rtz, 0x00000000, 0, 0x80000000)   /* -0 */
  TEST_XF_RM(139, fcvt.wu.s, rne, 0x80000000, 0, 0x4f000000)   /* 2^31 */
  TEST_XF_RM(140, fcvt.wu.s, rtz, 0x80000000, 0, 0x4f000000)   /* 2^31 */
  TEST_XF_RM(141, fcvt.wu.s, rne, 0x7fffff80, 0, 0x4effffff)   /* 2^31 - 128 */
  TEST_XF_RM(142, fcvt.wu.s, rtz, 0x7fffff80, 0, 0x4effffff)   /* 2^31 - 128 */
  TEST_XF_RM(143, fcvt.wu.s, rne, 0x00000000, FF_NV, 0xcf000000)   /* -2^31 */
  TEST_XF_RM(144, fcvt.wu.s, rtz, 0x00000000, FF_NV, 0xcf000000)   /* -2^31 */
  TEST_XF_RM(145, fcvt.wu.s, rne, 0x00000000, FF_NV, 0xcf000001)   /* -2^31 - 256 */
  TEST_XF_RM(146, fcvt.wu.s, rtz, 0x00000000, FF_NV, 0xcf000001)   /* -2^31 - 256 */
  TEST_XF_RM(147, fcvt.wu.s, rne, 0xffffffff, FF_NV, 0x4f800000)   /* 2^32 */
  TEST_XF_RM(148, fcvt.wu.s, rtz, 0xffffffff, FF_NV, 0x4f800000)   /* 2^32 */
  TEST_XF_RM(149, fcvt.wu.s, rne, 0xffffff00, 0, 0x4f7fffff)   /* 2^32 - 256 */
  TEST_XF_RM(150, fcvt.wu.s, rtz, 0xffffff00, 0, 0x4f7fffff)   /* 2^32 - 256 */
  TEST_XF_RM(151, fcvt.wu.s, rne, 0xffffffff, FF_NV, 0x7f800000)   /* +inf */
  TEST_XF_RM(152, fcvt.wu.s, rtz, 0xffffffff, FF_NV, 0x7f800000)   /* +inf */
  TEST_XF_RM(153, fcvt.wu.s, rne, 0x00000000, FF_NV, 0xff800000)   /* -inf */
  TEST_XF_RM(154, fcvt.wu.s, rtz, 0x00000000, FF_NV, 0xff800000)   /* -inf */
  TEST_XF_RM(155, fcvt.wu.s, rne, 0xffffffff, FF_NV, 0x7fc00000)   /* qNaN */
  TEST_XF_RM(156, fcvt.wu.s, rtz, 0xffffffff, FF_NV, 0x7fc00000)   /* qNaN */
  TEST_XF_RM(157, fcvt.wu.s, rne, 0xffffffff, FF_NV, 0x7f800001)   /* sNaN */
  TEST_XF_RM(158, fcvt.wu.s, rtz, 0xffffffff, FF_NV, 0x7f800001)   /* sNaN */
  TEST_XF_RM(159, fcvt.wu.s, rne, 0xffffffff, FF_NV, 0xffc00000)   /* -qNaN */
  TEST_XF_RM(160, fcvt.wu.s, rtz, 0xffffffff, FF_NV, 0xffc00000)   /* -qNaN */
  TEST_XF_RM(161, fcvt.wu.s, rne, 0xffffffff, FF_NV, 0x7f7fffff)   /* max */
  TEST_XF_RM(162, fcvt.wu.s, rtz, 0xffffffff, FF_NV, 0x7f7fffff)   /* max */
  TEST_XF_RM(163, fcvt.wu.s, rne, 0x0001e241, FF_NX, 0x47f12060)   /* 123456.75 */
  TEST_XF_RM(164, fcvt.wu.s, rtz, 0x0001e240, FF_NX, 0x47f12060)   /* 123456.75 */
  /* the dynamic mode (frm): -2.5 in each mode */
  fsrmi 0; TEST_XF_RM(165, fcvt.w.s, dyn, 0xfffffffe, FF_NX, 0xc0200000)
  fsrmi 1; TEST_XF_RM(166, fcvt.w.s, dyn, 0xfffffffe, FF_NX, 0xc0200000)
  fsrmi 2; TEST_XF_RM(167, fcvt.w.s, dyn, 0xfffffffd, FF_NX, 0xc0200000)
  fsrmi 3; TEST_XF_RM(168, fcvt.w.s, dyn, 0xfffffffe, FF_NX, 0xc0200000)
  fsrmi 4; TEST_XF_RM(169, fcvt.w.s, dyn, 0xfffffffd, FF_NX, 0xc0200000)
  fsrmi RM_RNE
  /* rd = x0 */
  li gp, 170; li a0, 0x7f800000; fmv.w.x fa0, a0; fcvt.w.s zero, fa0; CHECK_EQ(zero, 0)
  CHECK_FFLAGS(FF_NV)
ISA_TEST_END
