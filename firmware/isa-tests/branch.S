/* branch: beq bne blt bge bltu bgeu (unprivileged spec 2.5.2), each taken and not taken,
   signed vs unsigned at the sign boundary, rs1 == rs2, x0 operands (beqz/bnez/bltz/bgez/
   blez/bgtz), backward branches (a counted loop), and branches near the +-4 KiB reach of
   the 13-bit offset. Runs on the ISS and on QEMU. */
#include "isa_test.h"

/* The branch must be taken: falling through fails. */
#define TEST_TAKEN(n, op, v1, v2) \
  li gp, n; li a1, v1; li a2, v2; op a1, a2, 1f; FAIL; 1:
/* The branch must not be taken: arriving at its target fails. */
#define TEST_NOT_TAKEN(n, op, v1, v2) \
  li gp, n; li a1, v1; li a2, v2; op a1, a2, 1f; j 2f; 1: FAIL; 2:

ISA_TEST_BEGIN
  TEST_TAKEN(1, beq, 0, 0)
  TEST_TAKEN(2, beq, 0xffffffff, 0xffffffff)
  TEST_NOT_TAKEN(3, beq, 0, 1)
  TEST_NOT_TAKEN(4, beq, 0x80000000, 0x00000000)   /* differ in the top bit only */

  TEST_TAKEN(10, bne, 0, 1)
  TEST_TAKEN(11, bne, 0x80000000, 0x00000000)
  TEST_NOT_TAKEN(12, bne, 0, 0)
  TEST_NOT_TAKEN(13, bne, 0xffffffff, 0xffffffff)

  TEST_TAKEN(20, blt, 0xffffffff, 1)               /* -1 < 1 */
  TEST_TAKEN(21, blt, 0x80000000, 0x7fffffff)
  TEST_TAKEN(22, blt, 0xfffffffe, 0xffffffff)
  TEST_NOT_TAKEN(23, blt, 1, 0xffffffff)
  TEST_NOT_TAKEN(24, blt, 0x7fffffff, 0x80000000)
  TEST_NOT_TAKEN(25, blt, 5, 5)

  TEST_TAKEN(30, bge, 1, 0xffffffff)
  TEST_TAKEN(31, bge, 5, 5)
  TEST_TAKEN(32, bge, 0x7fffffff, 0x80000000)
  TEST_NOT_TAKEN(33, bge, 0xffffffff, 1)
  TEST_NOT_TAKEN(34, bge, 0x80000000, 0x7fffffff)

  TEST_TAKEN(40, bltu, 1, 0xffffffff)
  TEST_TAKEN(41, bltu, 0x7fffffff, 0x80000000)
  TEST_TAKEN(42, bltu, 0, 1)
  TEST_NOT_TAKEN(43, bltu, 0xffffffff, 1)
  TEST_NOT_TAKEN(44, bltu, 0x80000000, 0x7fffffff)
  TEST_NOT_TAKEN(45, bltu, 5, 5)

  TEST_TAKEN(50, bgeu, 0xffffffff, 1)
  TEST_TAKEN(51, bgeu, 0x80000000, 0x7fffffff)
  TEST_TAKEN(52, bgeu, 5, 5)
  TEST_NOT_TAKEN(53, bgeu, 1, 0xffffffff)
  TEST_NOT_TAKEN(54, bgeu, 0, 1)

  /* rs1 == rs2 (the same register) */
  li gp, 60; li a1, 0x80000000
  beq a1, a1, 1f; FAIL; 1:
  bge a1, a1, 1f; FAIL; 1:
  bgeu a1, a1, 1f; FAIL; 1:
  bne a1, a1, 1f; blt a1, a1, 1f; bltu a1, a1, 1f; j 2f; 1: FAIL; 2:

  /* x0 operands: the pseudo-instructions */
  li gp, 61; li a1, -3
  bltz a1, 1f; FAIL; 1:       /* blt a1, x0 */
  bnez a1, 1f; FAIL; 1:
  blez a1, 1f; FAIL; 1:       /* bge x0, a1 */
  beqz a1, 1f; bgez a1, 1f; bgtz a1, 1f; j 2f; 1: FAIL; 2:
  li gp, 62; li a1, 3
  bgtz a1, 1f; FAIL; 1:       /* blt x0, a1 */
  bgez a1, 1f; FAIL; 1:
  beqz zero, 1f; FAIL; 1:
  bltz a1, 1f; blez a1, 1f; bnez zero, 1f; bltu a1, zero, 1f; j 2f; 1: FAIL; 2:
  li gp, 63; bgeu a1, zero, 1f; FAIL; 1:   /* everything is >= 0 unsigned */

  /* backward branch: a counted loop runs exactly 10 times */
  li gp, 70; li a0, 0; li a1, 10; li a2, 0
  1: addi a0, a0, 1; addi a2, a2, 3; blt a0, a1, 1b
  CHECK_EQ(a0, 10); CHECK_EQ(a2, 30)
  /* a loop counting down with bnez, and one counting up unsigned across the sign bit */
  li gp, 71; li a0, 5; li a2, 0
  1: add a2, a2, a0; addi a0, a0, -1; bnez a0, 1b
  CHECK_EQ(a2, 15)
  li gp, 72; li a0, 0x7ffffffd; li a1, 0x80000002; li a2, 0
  1: addi a0, a0, 1; addi a2, a2, 1; bltu a0, a1, 1b
  CHECK_EQ(a2, 5)

  /* the branch writes no register and the fall-through sees unchanged operands */
  li gp, 73; li a1, 1; li a2, 2; beq a1, a2, 1f; CHECK_EQ(a1, 1); CHECK_EQ(a2, 2); 1:

  /* at the limits of the offset (checked in the disassembly: gas turns a branch that does
     not reach into a reversed branch over a jal, so these counts matter) */
  li gp, 80
  beq zero, zero, 2f          /* +4092: the largest word-aligned forward offset */
  .fill 1022, 4, 0x00100073   /* ebreak: executing any of these fails (unexpected trap) */
  2:
  li gp, 81; li a0, 0; j 2f
  1: li a0, 1; j 3f
  .fill 1022, 4, 0x00100073
  2: beq zero, zero, 1b       /* -4096: the most negative offset */
  3: CHECK_EQ(a0, 1)
ISA_TEST_END
