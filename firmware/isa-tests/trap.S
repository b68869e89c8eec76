/* trap: synchronous exceptions and mret (privileged spec 3.1.6.1, 3.1.14-16, 3.3.1-2, 3.6).
   - ecall: mcause 11, mepc = its address, mtval 0; ebreak: mcause 3, mepc = its address
     (its mtval, pc or 0 by the spec, is checked in iss-csr.S: QEMU writes 0).
   - illegal instructions, mtval = the instruction bits: all zeros, all ones, a 16-bit
     (compressed) encoding without C, custom-0, reserved funct7 values (shamt[5] = 1 in an
     RV32 shift, add with a bad funct7), A instructions, RV64-only loads/stores/ops,
     reserved funct3 values, sret/uret (no S or U mode). (D/Zfh encodings are checked with
     the FPU on in fp-csr.S: here FS is Off and any F opcode traps anyway.)
   - mcause has the interrupt bit clear; traps are precise (rd of the trapping instruction
     and all other registers except the handler's t5/t6 are unchanged).
   - trap entry copies MIE to MPIE and clears MIE; mret sets MIE from MPIE, then MPIE = 1,
     and jumps to mepc (also when mepc was written by software).
   - wfi is legal in M mode and returns (mie.MTIE set: QEMU's timer is pending, the
     global MIE is 0 so no interrupt is taken).
   - a new mtvec value takes effect for the next trap.
   Runs on the ISS and on QEMU. */
#include "isa_test.h"

/* Reads the recorded mstatus into reg, masked to MIE|MPIE */
#define TRAP_MSTATUS_MIE(reg) \
  la t5, isa_trap_rec; lw reg, TRAP_MSTATUS(t5); andi reg, reg, MSTATUS_MIE | MSTATUS_MPIE

ISA_TEST_BEGIN
  /* ---- ecall / ebreak ---- */
  TEST_TRAP(1, CAUSE_ECALL_M, 0, ecall)
  li gp, 2; ARM_TRAP(8f); 7: ebreak; FAIL
  8: la t2, 7b; la t5, isa_trap_rec; lw t3, TRAP_CAUSE(t5); CHECK_EQ(t3, CAUSE_BREAKPOINT)
  lw t3, TRAP_EPC(t5); CHECK_EQ_REG(t3, t2)
  /* the trap count went up by one per trap */
  li gp, 3; la t5, isa_trap_rec; lw s0, TRAP_COUNT(t5)
  ARM_TRAP(1f); ecall; 1: ARM_TRAP(1f); ecall; 1:
  la t5, isa_trap_rec; lw a0, TRAP_COUNT(t5); sub a0, a0, s0; CHECK_EQ(a0, 2)
  /* mcause read after the handler returned: interrupt bit clear; mepc is what the
     handler wrote before its mret (the resume address) */
  li gp, 4; ARM_TRAP(1f); ecall; 1: csrr a0, mcause; CHECK_EQ(a0, CAUSE_ECALL_M)
  csrr a0, mepc; la a1, 1b; CHECK_EQ_REG(a0, a1)

  /* ---- illegal instructions ---- */
  TEST_ILLEGAL_WORD(10, 0x00000000)   /* defined illegal */
  TEST_ILLEGAL_WORD(11, 0xffffffff)
  TEST_ILLEGAL_WORD(12, 0x00000001)   /* c.nop: no C extension */
  TEST_ILLEGAL_WORD(13, 0x0000000b)   /* custom-0 */
  TEST_ILLEGAL_WORD(14, 0x02051513)   /* slli a0, a0, 32: shamt[5] = 1 is reserved on RV32 */
  TEST_ILLEGAL_WORD(15, 0x02055513)   /* srli a0, a0, 32 */
  TEST_ILLEGAL_WORD(16, 0x42055513)   /* srai a0, a0, 32 */
  TEST_ILLEGAL_WORD(17, 0x04c58533)   /* add with funct7 = 0000010 */
  TEST_ILLEGAL_WORD(18, 0x20c58533)   /* add with funct7 = 0010000 */
  TEST_ILLEGAL_WORD(19, 0x1005252f)   /* lr.w a0, (a0): no A extension */
  TEST_ILLEGAL_WORD(20, 0x00c5a52f)   /* amoadd.w a0, a2, (a1) */
  TEST_ILLEGAL_WORD(21, 0x02b57553)   /* fadd.d fa0, fa0, fa1: no D extension */
  TEST_ILLEGAL_WORD(22, 0x00b53507)   /* fld fa0, 0(a0)... (funct3 = 3) */
  TEST_ILLEGAL_WORD(23, 0x04b57553)   /* fadd.h: no Zfh */
  TEST_ILLEGAL_WORD(24, 0x10200073)   /* sret: no S mode */
  TEST_ILLEGAL_WORD(25, 0x00200073)   /* uret: no N extension */
  TEST_ILLEGAL_WORD(26, 0x0000302f)   /* opcode AMO, funct3 = 3 (amo*.d) */
  TEST_ILLEGAL_WORD(27, 0x00003003)   /* ld: RV64 only */
  TEST_ILLEGAL_WORD(28, 0x00006003)   /* lwu: RV64 only */
  TEST_ILLEGAL_WORD(29, 0x00003023)   /* sd: RV64 only */
  TEST_ILLEGAL_WORD(30, 0x0000001b)   /* addiw: RV64 only */
  TEST_ILLEGAL_WORD(31, 0x00003063)   /* branch funct3 = 3 */
  TEST_ILLEGAL_WORD(32, 0x00001067)   /* jalr funct3 = 1 */
  TEST_ILLEGAL_WORD(33, 0x00007003)   /* load funct3 = 7 */
  TEST_ILLEGAL_WORD(34, 0x00004023)   /* store funct3 = 4 */
  TEST_ILLEGAL_WORD(35, 0x40051513)   /* slli with funct7 = 0100000 */
  TEST_ILLEGAL_WORD(36, 0x0000200f)   /* MISC-MEM funct3 = 2 (no Zicbom) */
  TEST_ILLEGAL_WORD(37, 0x00004073)   /* SYSTEM funct3 = 4 */
  TEST_ILLEGAL_WORD(38, 0x0000003b)   /* addw: RV64 only */
  TEST_ILLEGAL_WORD(39, 0x0000707f)   /* opcode 0x7f: a >= 80-bit instruction prefix */

  /* ---- precise traps: nothing else changes ---- */
  li gp, 40; li a0, 0x1111; li a1, 0x2222; li s0, 0x3333; li ra, 0x4444
  ARM_TRAP(1f); .word 0x00000000; FAIL
  1: CHECK_EQ(a0, 0x1111); CHECK_EQ(a1, 0x2222); CHECK_EQ(s0, 0x3333); CHECK_EQ(ra, 0x4444)
  /* the illegal slli must not have written rd */
  li gp, 41; li a0, 7; ARM_TRAP(1f); .word 0x02051513; FAIL; 1: CHECK_EQ(a0, 7)

  /* ---- MIE/MPIE through a trap and mret ---- */
  li gp, 50; csrw mie, zero; csrsi mstatus, MSTATUS_MIE
  ARM_TRAP(1f); ecall; 1:
  TRAP_MSTATUS_MIE(a0); CHECK_EQ(a0, MSTATUS_MPIE)       /* in the handler: MIE 0, MPIE 1 */
  csrr a0, mstatus; andi a0, a0, MSTATUS_MIE | MSTATUS_MPIE
  CHECK_EQ(a0, MSTATUS_MIE | MSTATUS_MPIE)               /* after mret: MIE 1, MPIE 1 */
  li gp, 51; csrci mstatus, MSTATUS_MIE
  ARM_TRAP(1f); ecall; 1:
  TRAP_MSTATUS_MIE(a0); CHECK_EQ(a0, 0)                  /* in the handler: MIE 0, MPIE 0 */
  csrr a0, mstatus; andi a0, a0, MSTATUS_MIE | MSTATUS_MPIE
  CHECK_EQ(a0, MSTATUS_MPIE)                             /* after mret: MIE 0, MPIE 1 */

  /* ---- mret on its own: to mepc, MIE <- MPIE, MPIE <- 1 ----
     MPP is set to M before each mret: it is hardwired to M on tessera, but QEMU 7.2 sets
     MPP to U on mret even with U mode disabled, and its next mret would drop to U mode
     (iss-csr.S checks that MPP stays M). */
  li gp, 52; li a1, MSTATUS_MPIE | MSTATUS_MPP; csrs mstatus, a1; csrci mstatus, MSTATUS_MIE
  la a0, 1f; csrw mepc, a0; mret; FAIL
  1: csrr a0, mstatus; andi a0, a0, MSTATUS_MIE | MSTATUS_MPIE
  CHECK_EQ(a0, MSTATUS_MIE | MSTATUS_MPIE)
  li gp, 53; li a1, MSTATUS_MPP; csrs mstatus, a1
  li a1, MSTATUS_MPIE; csrc mstatus, a1; csrsi mstatus, MSTATUS_MIE
  la a0, 1f; csrw mepc, a0; mret; FAIL
  1: csrr a0, mstatus; andi a0, a0, MSTATUS_MIE | MSTATUS_MPIE
  CHECK_EQ(a0, MSTATUS_MPIE)
  /* mret does not change mepc */
  li gp, 54; li a1, MSTATUS_MPP; csrs mstatus, a1; la a0, 1f; csrw mepc, a0; mret; 1: csrr a1, mepc; CHECK_EQ_REG(a1, a0)
  csrci mstatus, MSTATUS_MIE

  /* ---- wfi: a no-op here ---- */
  li gp, 60; li a0, 0x80; csrs mie, a0; wfi; csrc mie, a0; li a0, 1; CHECK_EQ(a0, 1)

  /* ---- a new mtvec takes effect ---- */
  li gp, 70; csrr s0, mtvec; la a0, trap_alt_handler; csrw mtvec, a0; li s1, 0
  ecall
  csrw mtvec, s0; CHECK_EQ(s1, 0x600d)
  /* and back: the standard handler sees the next trap */
  TEST_TRAP(71, CAUSE_ECALL_M, 0, ecall)
ISA_TEST_END

  /* A second handler: marks s1 and resumes after the trapping instruction. */
  .balign 4
trap_alt_handler:
  li s1, 0x600d
  csrr t5, mepc; addi t5, t5, 4; csrw mepc, t5
  mret
