/* alu-rr: the RV32I register-register ALU instructions (unprivileged spec 2.4.2):
   add sub sll slt sltu xor srl sra or and. Edge cases: signed overflow wraps, shifts by 0
   and 31, shift amounts taken from rs2[4:0] only, signed vs unsigned compares, rd == rs1 ==
   rs2, x0 as a source, x0 as a destination (discarded). Runs on the ISS and on QEMU. */
#include "isa_test.h"

ISA_TEST_BEGIN
  /* add: wraps modulo 2^32, no overflow trap */
  TEST_RR(1, add, 0x00000000, 0x00000000, 0x00000000)
  TEST_RR(2, add, 0x0000000a, 0x00000003, 0x00000007)
  TEST_RR(3, add, 0x80000000, 0x7fffffff, 0x00000001)
  TEST_RR(4, add, 0x00000000, 0xffffffff, 0x00000001)
  TEST_RR(5, add, 0x7fff8000, 0x80000000, 0xffff8000)
  TEST_RR(6, add, 0xfffffffe, 0xffffffff, 0xffffffff)
  TEST_RR_SAME(7, add, 0x0000001a, 13)
  TEST_RR_X0(8, add, 5, 6)

  /* sub */
  TEST_RR(10, sub, 0x00000000, 0x00000000, 0x00000000)
  TEST_RR(11, sub, 0xfffffffc, 0x00000003, 0x00000007)
  TEST_RR(12, sub, 0x7fffffff, 0x80000000, 0x00000001)
  TEST_RR(13, sub, 0x80000000, 0x00000000, 0x80000000)
  TEST_RR(14, sub, 0x00000001, 0x00000000, 0xffffffff)
  TEST_RR_SAME(15, sub, 0, 0x12345678)
  TEST_RR_X0(16, sub, 5, 6)

  /* sll: only rs2[4:0] counts */
  TEST_RR(20, sll, 0x00000001, 0x00000001, 0)
  TEST_RR(21, sll, 0x00000080, 0x00000001, 7)
  TEST_RR(22, sll, 0x80000000, 0x00000001, 31)
  TEST_RR(23, sll, 0x80000000, 0xffffffff, 31)
  TEST_RR(24, sll, 0x48484000, 0x21212121, 14)
  TEST_RR(25, sll, 0x21212121, 0x21212121, 32)          /* 32 & 31 = 0 */
  TEST_RR(26, sll, 0x42424242, 0x21212121, 0xffffffe1)  /* -31 & 31 = 1 */
  TEST_RR(27, sll, 0x80000000, 0x00000001, 0xffffffff)  /* 31 */
  TEST_RR_X0(28, sll, 1, 3)

  /* srl: zero-filling */
  TEST_RR(30, srl, 0x40000000, 0x80000000, 1)
  TEST_RR(31, srl, 0x00000001, 0x80000000, 31)
  TEST_RR(32, srl, 0x00000001, 0xffffffff, 31)
  TEST_RR(33, srl, 0x01030303, 0x81818181, 7)
  TEST_RR(34, srl, 0x81818181, 0x81818181, 0xffffffc0)  /* 0 */
  TEST_RR(35, srl, 0x00000001, 0x81818181, 0xffffffff)  /* 31 */
  TEST_RR_X0(36, srl, 8, 1)

  /* sra: sign-filling */
  TEST_RR(40, sra, 0xc0000000, 0x80000000, 1)
  TEST_RR(41, sra, 0xffffffff, 0x80000000, 31)
  TEST_RR(42, sra, 0x00000000, 0x7fffffff, 31)
  TEST_RR(43, sra, 0xff030303, 0x81818181, 7)
  TEST_RR(44, sra, 0x3fffffff, 0x7fffffff, 1)
  TEST_RR(45, sra, 0x81818181, 0x81818181, 0xffffffe0)  /* 0 */
  TEST_RR(46, sra, 0xc0c0c0c0, 0x81818181, 0x00000021)  /* 1 */
  TEST_RR_X0(47, sra, 8, 1)

  /* slt: signed */
  TEST_RR(50, slt, 0, 0, 0)
  TEST_RR(51, slt, 1, 0xffffffff, 1)
  TEST_RR(52, slt, 0, 1, 0xffffffff)
  TEST_RR(53, slt, 1, 0x80000000, 0x7fffffff)
  TEST_RR(54, slt, 0, 0x7fffffff, 0x80000000)
  TEST_RR(55, slt, 0, 0x80000000, 0x80000000)
  TEST_RR_SAME(56, slt, 0, 0xfffffff0)
  TEST_RR_X0(57, slt, 0, 1)

  /* sltu: unsigned */
  TEST_RR(60, sltu, 0, 0xffffffff, 1)
  TEST_RR(61, sltu, 1, 1, 0xffffffff)
  TEST_RR(62, sltu, 0, 0x80000000, 0x7fffffff)
  TEST_RR(63, sltu, 1, 0x7fffffff, 0x80000000)
  TEST_RR(64, sltu, 0, 0xfffffffe, 0xfffffffe)
  TEST_RR(65, sltu, 1, 0xfffffffe, 0xffffffff)
  /* snez rd, rs: sltu rd, x0, rs */
  li gp, 66; li a2, 0x100; sltu a0, zero, a2; CHECK_EQ(a0, 1)
  li gp, 67; sltu a0, zero, zero; CHECK_EQ(a0, 0)
  TEST_RR_X0(68, sltu, 0, 1)

  /* logic */
  TEST_RR(70, xor, 0xf00ff00f, 0xff00ff00, 0x0f0f0f0f)
  TEST_RR(71, or,  0xff0fff0f, 0xff00ff00, 0x0f0f0f0f)
  TEST_RR(72, and, 0x0f000f00, 0xff00ff00, 0x0f0f0f0f)
  TEST_RR(73, xor, 0xffffffff, 0x00000000, 0xffffffff)
  TEST_RR(74, or,  0xffffffff, 0x80000000, 0x7fffffff)
  TEST_RR(75, and, 0x00000000, 0x80000000, 0x7fffffff)
  TEST_RR_SAME(76, xor, 0, 0xdeadbeef)
  TEST_RR_SAME(77, or, 0xdeadbeef, 0xdeadbeef)
  TEST_RR_SAME(78, and, 0xdeadbeef, 0xdeadbeef)
  TEST_RR_X0(79, xor, 1, 2)
  TEST_RR_X0(80, or, 1, 2)
  TEST_RR_X0(81, and, 3, 3)

  /* x0 as a source reads zero; every register is usable (x31 as rd and rs) */
  li gp, 90; li a2, 42; add a0, zero, a2; CHECK_EQ(a0, 42)
  li gp, 91; li a1, 42; sub a0, zero, a1; CHECK_EQ(a0, -42)
  li gp, 92; li x31, 7; li x30, 5; add x31, x31, x30; CHECK_EQ(x31, 12)
  li gp, 93; li x1, 1; sll x1, x1, x1; CHECK_EQ(x1, 2)
  /* back-to-back dependency chain (no forwarding hazards in a correct model) */
  li gp, 94; li a0, 1; add a1, a0, a0; add a2, a1, a1; add a3, a2, a2; sub a4, a3, a0
  CHECK_EQ(a4, 7)
ISA_TEST_END
