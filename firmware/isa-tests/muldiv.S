/* muldiv: the M extension (unprivileged spec 7): mul mulh mulhsu mulhu div divu rem remu.
   Signed x signed, signed x unsigned and unsigned x unsigned high words; division rounds
   toward zero and the remainder takes the dividend's sign; division by zero gives
   quotient -1 (all ones) and remainder = dividend; INT_MIN / -1 overflows to quotient
   INT_MIN and remainder 0; none of these trap. Also rd == rs1 == rs2 and rd = x0.
   Expected values computed with Python's exact integers. Runs on the ISS and on QEMU. */
#include "isa_test.h"

ISA_TEST_BEGIN
  /* mul */
  TEST_RR(1, mul, 0x00000000, 0x00000000, 0x00000000)
  TEST_RR(2, mul, 0x00000001, 0x00000001, 0x00000001)
  TEST_RR(3, mul, 0x00000015, 0x00000003, 0x00000007)
  TEST_RR(4, mul, 0x40000000, 0xffff8000, 0xffff8000)
  TEST_RR(5, mul, 0x00000001, 0xffffffff, 0xffffffff)
  TEST_RR(6, mul, 0x80000000, 0x80000000, 0xffffffff)
  TEST_RR(7, mul, 0x00000001, 0x7fffffff, 0x7fffffff)
  TEST_RR(8, mul, 0x242d2080, 0x12345678, 0x9abcdef0)
  TEST_RR(9, mul, 0x00000000, 0x80000000, 0x80000000)
  /* mulh */
  TEST_RR(10, mulh, 0x00000000, 0x00000000, 0x00000000)
  TEST_RR(11, mulh, 0x00000000, 0x00000001, 0x00000001)
  TEST_RR(12, mulh, 0x00000000, 0x00000003, 0x00000007)
  TEST_RR(13, mulh, 0x00000000, 0xffff8000, 0xffff8000)
  TEST_RR(14, mulh, 0x00000000, 0xffffffff, 0xffffffff)
  TEST_RR(15, mulh, 0x00000000, 0x80000000, 0xffffffff)
  TEST_RR(16, mulh, 0x3fffffff, 0x7fffffff, 0x7fffffff)
  TEST_RR(17, mulh, 0xf8cc93d6, 0x12345678, 0x9abcdef0)
  TEST_RR(18, mulh, 0x40000000, 0x80000000, 0x80000000)
  TEST_RR(19, mulh, 0xffffffff, 0xffffffff, 0x00000001)
  TEST_RR(20, mulh, 0xffffffff, 0x80000000, 0x00000001)
  /* mulhsu */
  TEST_RR(30, mulhsu, 0x00000000, 0x00000000, 0x00000000)
  TEST_RR(31, mulhsu, 0x00000000, 0x00000001, 0x00000001)
  TEST_RR(32, mulhsu, 0xffffffff, 0xffffffff, 0xffffffff)
  TEST_RR(33, mulhsu, 0x80000000, 0x80000000, 0xffffffff)
  TEST_RR(34, mulhsu, 0x7ffffffe, 0x7fffffff, 0xffffffff)
  TEST_RR(35, mulhsu, 0x0b00ea4e, 0x12345678, 0x9abcdef0)
  TEST_RR(36, mulhsu, 0xc0000000, 0x80000000, 0x80000000)
  TEST_RR(37, mulhsu, 0xffffffff, 0xffffffff, 0x00000001)
  TEST_RR(38, mulhsu, 0x00000000, 0x00000001, 0xffffffff)
  /* mulhu */
  TEST_RR(40, mulhu, 0x00000000, 0x00000000, 0x00000000)
  TEST_RR(41, mulhu, 0x00000000, 0x00000001, 0x00000001)
  TEST_RR(42, mulhu, 0xfffffffe, 0xffffffff, 0xffffffff)
  TEST_RR(43, mulhu, 0x7fffffff, 0x80000000, 0xffffffff)
  TEST_RR(44, mulhu, 0x3fffffff, 0x7fffffff, 0x7fffffff)
  TEST_RR(45, mulhu, 0x0b00ea4e, 0x12345678, 0x9abcdef0)
  TEST_RR(46, mulhu, 0x40000000, 0x80000000, 0x80000000)
  TEST_RR(47, mulhu, 0x00000000, 0xffffffff, 0x00000001)
  /* div: round toward zero; /0 -> -1; INT_MIN/-1 -> INT_MIN */
  TEST_RR(50, div, 0x00000003, 0x00000014, 0x00000006)
  TEST_RR(51, div, 0xfffffffd, 0xffffffec, 0x00000006)
  TEST_RR(52, div, 0xfffffffd, 0x00000014, 0xfffffffa)
  TEST_RR(53, div, 0x00000003, 0xffffffec, 0xfffffffa)
  TEST_RR(54, div, 0x80000000, 0x80000000, 0x00000001)
  TEST_RR(55, div, 0x80000000, 0x80000000, 0xffffffff)
  TEST_RR(56, div, 0xffffffff, 0x00000014, 0x00000000)
  TEST_RR(57, div, 0xffffffff, 0x00000000, 0x00000000)
  TEST_RR(58, div, 0xffffffff, 0x80000000, 0x00000000)
  TEST_RR(59, div, 0x00000000, 0xffffffff, 0x00000002)
  TEST_RR(60, div, 0x80000001, 0x7fffffff, 0xffffffff)
  /* divu */
  TEST_RR(70, divu, 0x00000003, 0x00000014, 0x00000006)
  TEST_RR(71, divu, 0x2aaaaaa7, 0xffffffec, 0x00000006)
  TEST_RR(72, divu, 0x00000000, 0x00000014, 0xfffffffa)
  TEST_RR(73, divu, 0x80000000, 0x80000000, 0x00000001)
  TEST_RR(74, divu, 0x00000000, 0x80000000, 0xffffffff)
  TEST_RR(75, divu, 0xffffffff, 0x00000014, 0x00000000)
  TEST_RR(76, divu, 0xffffffff, 0x00000000, 0x00000000)
  TEST_RR(77, divu, 0xffffffff, 0xffffffff, 0x00000001)
  TEST_RR(78, divu, 0x24924924, 0xffffffff, 0x00000007)
  /* rem: sign of the dividend; %0 -> dividend; INT_MIN%-1 -> 0 */
  TEST_RR(80, rem, 0x00000002, 0x00000014, 0x00000006)
  TEST_RR(81, rem, 0xfffffffe, 0xffffffec, 0x00000006)
  TEST_RR(82, rem, 0x00000002, 0x00000014, 0xfffffffa)
  TEST_RR(83, rem, 0xfffffffe, 0xffffffec, 0xfffffffa)
  TEST_RR(84, rem, 0x00000000, 0x80000000, 0x00000001)
  TEST_RR(85, rem, 0x00000000, 0x80000000, 0xffffffff)
  TEST_RR(86, rem, 0x00000014, 0x00000014, 0x00000000)
  TEST_RR(87, rem, 0x00000000, 0x00000000, 0x00000000)
  TEST_RR(88, rem, 0xfffffff9, 0xfffffff9, 0x00000000)
  TEST_RR(89, rem, 0xffffffff, 0x80000000, 0x7fffffff)
  /* remu */
  TEST_RR(90, remu, 0x00000002, 0x00000014, 0x00000006)
  TEST_RR(91, remu, 0x00000002, 0xffffffec, 0x00000006)
  TEST_RR(92, remu, 0x00000014, 0x00000014, 0xfffffffa)
  TEST_RR(93, remu, 0x00000000, 0x80000000, 0x00000001)
  TEST_RR(94, remu, 0x80000000, 0x80000000, 0xffffffff)
  TEST_RR(95, remu, 0x00000014, 0x00000014, 0x00000000)
  TEST_RR(96, remu, 0x00000000, 0x00000000, 0x00000000)
  TEST_RR(97, remu, 0x00000003, 0xffffffff, 0x00000007)
  TEST_RR(98, remu, 0xffffffff, 0xffffffff, 0x00000000)
  /* rd == rs1 == rs2 and rd = x0 */
  TEST_RR_SAME(100, mul, 0x00000009, 3)
  TEST_RR_SAME(101, mulh, 0x40000000, 0x80000000)
  TEST_RR_SAME(102, mulhsu, 0xffffffff, 0xffffffff)
  TEST_RR_SAME(103, mulhu, 0xfffffffe, 0xffffffff)
  TEST_RR_SAME(104, div, 1, 0xfffffff9)
  TEST_RR_SAME(105, divu, 1, 0xfffffff9)
  TEST_RR_SAME(106, rem, 0, 0xfffffff9)
  TEST_RR_SAME(107, remu, 0, 0xfffffff9)
  TEST_RR_SAME(108, div, 0xffffffff, 0)     /* 0 / 0 */
  TEST_RR_X0(110, mul, 3, 4)
  TEST_RR_X0(111, mulh, 3, 4)
  TEST_RR_X0(112, mulhsu, 3, 4)
  TEST_RR_X0(113, mulhu, 3, 4)
  TEST_RR_X0(114, div, 3, 0)
  TEST_RR_X0(115, divu, 3, 0)
  TEST_RR_X0(116, rem, 3, 0)
  TEST_RR_X0(117, remu, 3, 0)
  /* the recommended fused sequences (spec 7.1/7.2) give the same answers */
  li gp, 120; li a1, 0x9abcdef0; li a2, 0x12345678; mulh a3, a1, a2; mul a4, a1, a2
  CHECK_EQ(a3, 0xf8cc93d6); CHECK_EQ(a4, 0x242d2080)
  li gp, 121; li a1, -1000; li a2, 7; div a3, a1, a2; rem a4, a1, a2
  CHECK_EQ(a3, -142); CHECK_EQ(a4, -6)
ISA_TEST_END
