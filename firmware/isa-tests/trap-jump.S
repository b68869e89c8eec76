/* trap-jump: instruction-address-misaligned exceptions (unprivileged spec 2.2 and 2.5;
   privileged 3.1.15-16). Without C, IALIGN = 32: a taken jal/jalr/branch whose target is
   not 4-byte aligned raises cause 0 on the jump itself: mepc = the jump, rd is not
   written, mtval = the target (checked here for jalr only: QEMU 7.2 writes the address
   of the jal/branch instead of its target; iss-traps.S checks those on the ISS). jalr clears only bit 0, so (rs1 + imm) = target + 1 is fine
   and target + 2 or + 3 traps. A branch that is not taken never traps. Runs on the ISS and
   on QEMU. */
#include "isa_test.h"

ISA_TEST_BEGIN
  la s0, jump_pad        /* an aligned address; s0 + 2 is the misaligned target */
  addi a4, s0, 2
  /* jal */
  li gp, 1; li a5, 0x5a5a; ARM_TRAP(9f); 8: jal a5, jump_pad + 2; FAIL
  9: la t2, 8b; la t5, isa_trap_rec; lw t3, TRAP_CAUSE(t5); CHECK_EQ(t3, CAUSE_MISALIGNED_FETCH)
  lw t3, TRAP_EPC(t5); CHECK_EQ_REG(t3, t2)
  CHECK_EQ(a5, 0x5a5a)
  /* jalr: rs1 + imm = target + 2, target + 3 (bit 0 cleared: still + 2) */
  li gp, 2; li a5, 0x5a5a; ARM_TRAP(9f); 8: jalr a5, 2(s0); FAIL
  9: la t2, 8b; la t5, isa_trap_rec; lw t3, TRAP_CAUSE(t5); CHECK_EQ(t3, CAUSE_MISALIGNED_FETCH)
  lw t3, TRAP_EPC(t5); CHECK_EQ_REG(t3, t2); lw t3, TRAP_TVAL(t5); CHECK_EQ_REG(t3, a4)
  CHECK_EQ(a5, 0x5a5a)
  li gp, 3; li a5, 0x5a5a; addi a1, s0, 3; ARM_TRAP(9f); 8: jalr a5, 0(a1); FAIL
  9: la t2, 8b; la t5, isa_trap_rec; lw t3, TRAP_CAUSE(t5); CHECK_EQ(t3, CAUSE_MISALIGNED_FETCH)
  lw t3, TRAP_EPC(t5); CHECK_EQ_REG(t3, t2); lw t3, TRAP_TVAL(t5); CHECK_EQ_REG(t3, a4)
  CHECK_EQ(a5, 0x5a5a)
  /* jalr to target + 1: bit 0 cleared, aligned, no trap */
  li gp, 4; addi a1, s0, 1; jalr a5, 0(a1); CHECK_EQ(a0, 0x7a7a)
  /* taken branches of every kind */
  li gp, 10; li a5, 0x5a5a; ARM_TRAP(9f); 8: beq zero, zero, jump_pad + 2; FAIL
  9: la t2, 8b; la t5, isa_trap_rec; lw t3, TRAP_CAUSE(t5); CHECK_EQ(t3, CAUSE_MISALIGNED_FETCH)
  lw t3, TRAP_EPC(t5); CHECK_EQ_REG(t3, t2)
  li gp, 11; li a1, 1; ARM_TRAP(9f); 8: bne a1, zero, jump_pad + 2; FAIL
  9: la t2, 8b; la t5, isa_trap_rec; lw t3, TRAP_EPC(t5); CHECK_EQ_REG(t3, t2)
  lw t3, TRAP_CAUSE(t5); CHECK_EQ(t3, CAUSE_MISALIGNED_FETCH)
  li gp, 12; li a1, -1; ARM_TRAP(9f); 8: blt a1, zero, jump_pad + 2; FAIL
  9: la t2, 8b; la t5, isa_trap_rec; lw t3, TRAP_EPC(t5); CHECK_EQ_REG(t3, t2)
  lw t3, TRAP_CAUSE(t5); CHECK_EQ(t3, CAUSE_MISALIGNED_FETCH)
  li gp, 13; ARM_TRAP(9f); 8: bge zero, zero, jump_pad + 2; FAIL
  9: la t2, 8b; la t5, isa_trap_rec; lw t3, TRAP_EPC(t5); CHECK_EQ_REG(t3, t2)
  lw t3, TRAP_CAUSE(t5); CHECK_EQ(t3, CAUSE_MISALIGNED_FETCH)
  li gp, 14; li a1, 1; ARM_TRAP(9f); 8: bltu zero, a1, jump_pad + 2; FAIL
  9: la t2, 8b; la t5, isa_trap_rec; lw t3, TRAP_EPC(t5); CHECK_EQ_REG(t3, t2)
  lw t3, TRAP_CAUSE(t5); CHECK_EQ(t3, CAUSE_MISALIGNED_FETCH)
  li gp, 15; ARM_TRAP(9f); 8: bgeu zero, zero, jump_pad + 2; FAIL
  9: la t2, 8b; la t5, isa_trap_rec; lw t3, TRAP_EPC(t5); CHECK_EQ_REG(t3, t2)
  lw t3, TRAP_CAUSE(t5); CHECK_EQ(t3, CAUSE_MISALIGNED_FETCH)
  /* a backward branch to a misaligned target */
  li gp, 16; ARM_TRAP(9f); j 8f
  7: nop; nop
  8: beq zero, zero, 7b + 2; FAIL
  9: la t2, 8b; la t5, isa_trap_rec; lw t3, TRAP_EPC(t5); CHECK_EQ_REG(t3, t2)
  lw t3, TRAP_CAUSE(t5); CHECK_EQ(t3, CAUSE_MISALIGNED_FETCH)

  /* not-taken branches with misaligned targets do not trap (an armed handler would
     resume at 9: and the CHECK below would see the trap count move) */
  li gp, 20; la t5, isa_trap_rec; lw s1, TRAP_COUNT(t5)
  li a1, 1
  bne zero, zero, jump_pad + 2
  beq a1, zero, jump_pad + 2
  blt zero, zero, jump_pad + 2
  bge zero, a1, jump_pad + 2
  bltu a1, zero, jump_pad + 2
  bgeu zero, a1, jump_pad + 2
  la t5, isa_trap_rec; lw a0, TRAP_COUNT(t5); CHECK_EQ_REG(a0, s1)
ISA_TEST_END

  /* The aligned function jalr lands on in test 4: a0 = 0x7a7a, return via a5. */
  .balign 4
jump_pad:
  li a0, 0x7a7a
  jr a5
