/* jump: jal and jalr (unprivileged spec 2.5.1). Link value = address of the jump + 4;
   jal forward and backward, jal/jalr with rd = x0 (no link), jalr target = (rs1 + imm) with
   bit 0 cleared (odd sums and odd immediates), negative immediates, rd == rs1 (the target
   uses the old rs1), nested calls through ra and another link register. Misaligned
   targets are in traps-fetch.S. Runs on the ISS and on QEMU. */
#include "isa_test.h"

ISA_TEST_BEGIN
  /* jal: link = pc + 4, forward */
  li gp, 1; li ra, 0
  1: jal ra, 2f
  FAIL
  2: la a1, 1b; addi a1, a1, 4; CHECK_EQ_REG(ra, a1)

  /* jal with another rd, backward */
  li gp, 2; j 3f
  2: la a1, 4f; addi a1, a1, 4; CHECK_EQ_REG(a5, a1); j 5f
  3: nop
  4: jal a5, 2b
  FAIL
  5:

  /* j (jal x0): x0 stays 0 */
  li gp, 3; j 1f; FAIL; 1: CHECK_EQ(zero, 0)

  /* jalr: link = pc + 4, target = rs1 + imm */
  li gp, 10; la a1, 2f
  1: jalr ra, 0(a1)
  FAIL
  2: la a2, 1b; addi a2, a2, 4; CHECK_EQ_REG(ra, a2)

  /* jalr clears bit 0 of the sum: rs1 odd */
  li gp, 11; la a1, 2f; addi a1, a1, 1
  1: jalr ra, 0(a1)
  FAIL
  2: la a2, 1b; addi a2, a2, 4; CHECK_EQ_REG(ra, a2)

  /* ... and the immediate odd */
  li gp, 12; la a1, 2f
  jalr ra, 1(a1)
  FAIL
  2:

  /* ... and both odd: their sum is the (even) target itself */
  li gp, 13; la a1, 2f; addi a1, a1, -7
  jalr ra, 7(a1)
  FAIL
  2:

  /* negative immediate */
  li gp, 14; la a1, 2f; addi a1, a1, 2000
  jalr ra, -2000(a1)
  FAIL
  2:

  /* rd == rs1: the target comes from the old value, then rd gets the link */
  li gp, 15; la a1, 2f
  1: jalr a1, 0(a1)
  FAIL
  2: la a2, 1b; addi a2, a2, 4; CHECK_EQ_REG(a1, a2)

  /* jr / jalr x0: no link written */
  li gp, 16; la a1, 2f
  jalr zero, 0(a1)
  FAIL
  2: CHECK_EQ(zero, 0)

  /* call/ret: a function called twice returns to each caller */
  li gp, 20; li a0, 0
  call jump_add5
  call jump_add5
  CHECK_EQ(a0, 10)

  /* nested calls with ra saved in another register */
  li gp, 21; li a0, 0
  call jump_outer
  CHECK_EQ(a0, 15)

  /* a jump table: jalr through a computed address */
  li gp, 22; li a0, 2; la a1, jump_table; slli a2, a0, 2; add a1, a1, a2; lw a1, 0(a1)
  jalr ra, 0(a1)
  CHECK_EQ(a0, 0x222)
ISA_TEST_END

jump_add5:
  addi a0, a0, 5
  ret
jump_outer:
  mv s1, ra
  call jump_add5
  call jump_add5
  call jump_add5
  jr s1
jump_case0: li a0, 0x000; ret
jump_case1: li a0, 0x111; ret
jump_case2: li a0, 0x222; ret

  .data
  .balign 4
jump_table: .word jump_case0, jump_case1, jump_case2
