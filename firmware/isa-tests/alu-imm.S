/* alu-imm: the RV32I register-immediate instructions (unprivileged spec 2.4.1): addi slti
   sltiu xori ori andi slli srli srai lui auipc. Edge cases: the 12-bit immediate is
   sign-extended (-2048, 2047, 0x800 in logic ops), sltiu compares against the
   sign-extended immediate as unsigned, shifts by 0 and 31, lui fills the low 12 bits with
   zeros, auipc adds to its own address (wrapping), x0 as a destination. Runs on the ISS
   and on QEMU. */
#include "isa_test.h"

ISA_TEST_BEGIN
  /* addi */
  TEST_RI(1, addi, 0x00000000, 0x00000000, 0)
  TEST_RI(2, addi, 0x00000800, 0x00000001, 2047)
  TEST_RI(3, addi, 0xfffff801, 0x00000001, -2048)
  TEST_RI(4, addi, 0x80000000, 0x7fffffff, 1)
  TEST_RI(5, addi, 0x7fffffff, 0x80000000, -1)
  TEST_RI(6, addi, 0x00000000, 0xffffffff, 1)
  li gp, 7; li a1, 5; addi zero, a1, 1; CHECK_EQ(zero, 0)
  li gp, 8; li a1, 5; addi a1, a1, 3; CHECK_EQ(a1, 8)             /* rd == rs1 */
  li gp, 9; addi a0, zero, -1; CHECK_EQ(a0, 0xffffffff)          /* li */
  li gp, 10; li a1, 0x1234; mv a0, a1; CHECK_EQ(a0, 0x1234)       /* mv = addi rd, rs, 0 */
  li gp, 11; li a0, 0x55; nop; CHECK_EQ(a0, 0x55)                 /* nop = addi x0, x0, 0 */

  /* slti: signed compare with the sign-extended immediate */
  TEST_RI(20, slti, 0, 0x00000000, 0)
  TEST_RI(21, slti, 1, 0xffffffff, 0)
  TEST_RI(22, slti, 0, 0x00000000, -1)
  TEST_RI(23, slti, 1, 0x80000000, -2048)
  TEST_RI(24, slti, 0, 0x7fffffff, 2047)
  TEST_RI(25, slti, 1, 0x000007fe, 2047)
  TEST_RI(26, slti, 0, 0xfffff800, -2048)

  /* sltiu: the immediate is sign-extended, then compared unsigned */
  TEST_RI(30, sltiu, 1, 0x00000000, 1)          /* seqz */
  TEST_RI(31, sltiu, 0, 0x00000005, 1)
  TEST_RI(32, sltiu, 1, 0xfffffffe, -1)         /* -1 is 0xffffffff: almost everything is below */
  TEST_RI(33, sltiu, 0, 0xffffffff, -1)
  TEST_RI(34, sltiu, 1, 0x7fffffff, -2048)      /* 0xfffff800 */
  TEST_RI(35, sltiu, 0, 0xfffff800, -2048)
  TEST_RI(36, sltiu, 0, 0x00000800, 2047)

  /* logic with sign-extended immediates */
  TEST_RI(40, xori, 0xff00f00f, 0x00ff0ff0, -1)          /* not */
  TEST_RI(41, xori, 0x00ff0f0f, 0x00ff0ff0, 0x0ff)
  TEST_RI(42, xori, 0xff00f70f, 0x00ff0ff0, -2048 + 0x0ff)   /* 0xfffff8ff */
  TEST_RI(43, ori,  0xfffff8f0, 0x000000f0, -2048)
  TEST_RI(44, ori,  0x123457ff, 0x12345000, 0x7ff)
  TEST_RI(45, andi, 0x12345800, 0x12345f0f, -2048)
  TEST_RI(46, andi, 0x0000070f, 0x12345f0f, 0x7ff)
  TEST_RI(47, andi, 0x000000ff, 0xffffffff, 0xff)        /* zext.b */
  li gp, 48; li a1, 7; xori zero, a1, 1; ori zero, a1, 1; andi zero, a1, 1; CHECK_EQ(zero, 0)

  /* shifts by immediate */
  TEST_RI(50, slli, 0x00000001, 0x00000001, 0)
  TEST_RI(51, slli, 0x80000000, 0x00000001, 31)
  TEST_RI(52, slli, 0x48484000, 0x21212121, 14)
  TEST_RI(53, slli, 0xfffffffe, 0xffffffff, 1)
  TEST_RI(54, srli, 0x81818181, 0x81818181, 0)
  TEST_RI(55, srli, 0x00000001, 0x81818181, 31)
  TEST_RI(56, srli, 0x01030303, 0x81818181, 7)
  TEST_RI(57, srli, 0x7fffffff, 0xffffffff, 1)
  TEST_RI(58, srai, 0x81818181, 0x81818181, 0)
  TEST_RI(59, srai, 0xffffffff, 0x81818181, 31)
  TEST_RI(60, srai, 0xff030303, 0x81818181, 7)
  TEST_RI(61, srai, 0x00000000, 0x7fffffff, 31)
  TEST_RI(62, srai, 0x00810204, 0x01020408, 1)
  li gp, 63; li a1, 3; slli zero, a1, 1; srli zero, a1, 1; srai zero, a1, 1; CHECK_EQ(zero, 0)

  /* lui: imm20 << 12, low bits zero */
  li gp, 70; lui a0, 0x00000; CHECK_EQ(a0, 0)
  li gp, 71; lui a0, 0xfffff; CHECK_EQ(a0, 0xfffff000)
  li gp, 72; lui a0, 0x80000; CHECK_EQ(a0, 0x80000000)
  li gp, 73; lui a0, 0x7ffff; CHECK_EQ(a0, 0x7ffff000)
  li gp, 74; li a0, -1; lui a0, 0x12345; CHECK_EQ(a0, 0x12345000)   /* replaces all bits */
  li gp, 75; lui zero, 0x12345; CHECK_EQ(zero, 0)
  li gp, 76; lui a0, 0x12345; addi a0, a0, 0x678; CHECK_EQ(a0, 0x12345678)
  li gp, 77; lui a0, 0x12346; addi a0, a0, -0x788; CHECK_EQ(a0, 0x12345878)   /* hi/lo pair */

  /* auipc: pc of the auipc itself + imm20 << 12 */
  li gp, 80; 1: auipc a0, 0; la a1, 1b; CHECK_EQ_REG(a0, a1)
  li gp, 81; 1: auipc a0, 1; la a1, 1b; li a2, 0x1000; add a1, a1, a2; CHECK_EQ_REG(a0, a1)
  li gp, 82; 1: auipc a0, 0xfffff; la a1, 1b; li a2, 0xfffff000; add a1, a1, a2; CHECK_EQ_REG(a0, a1)
  li gp, 83; 1: auipc a0, 0x80000; la a1, 1b; li a2, 0x80000000; add a1, a1, a2   /* wraps */
  CHECK_EQ_REG(a0, a1)
  li gp, 84; auipc zero, 1; CHECK_EQ(zero, 0)
  /* auipc + addi reaches a symbol (what `la` expands to) */
  li gp, 85; 1: auipc a0, %pcrel_hi(alu_imm_word); addi a0, a0, %pcrel_lo(1b); lw a0, 0(a0)
  CHECK_EQ(a0, 0xcafef00d)
ISA_TEST_END

  .data
  .balign 4
alu_imm_word: .word 0xcafef00d
