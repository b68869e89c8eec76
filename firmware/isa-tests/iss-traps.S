/* iss-traps: trap behaviour of the Tessera tile core that QEMU 7.2 does not share, so this
   program runs on tessera-emu only. For each check, why QEMU is left out:
   - Misaligned loads and stores (integer and flw/fsw) trap: cause 4 (load) or 6 (store),
     mtval = the address, rd and memory unchanged. The unprivileged spec (2.6) lets an
     execution environment either perform them or trap; Tessera traps, QEMU performs them.
   - mtval of a misaligned jal/branch target is the target (privileged 3.1.16: the
     faulting address); QEMU 7.2 writes the address of the jal/branch itself (jalr is
     right there, and is checked in trap-jump.S).
   - ebreak writes mtval = its own address (the spec allows pc or 0; QEMU writes 0).
   - Access faults at addresses that exist on QEMU's spike machine but not on a tile: the
     first byte past the 64 KiB SRAM (QEMU has 128 MiB of RAM there), and the tile
     register block at 0xFFFFF800, which takes word accesses only (byte and halfword
     accesses fault, as do words the block does not define). */
#define ISA_TEST_FP 1
#include "isa_test.h"

#define SRAM_END 0x80010000   /* tessera-emu's default target (tiny): 64 KiB */
#define REGS 0xfffff800

/* Test n: the access `insn` (address in a1) traps with `cause`, mtval = a1; a0 unchanged. */
#define TEST_MEM_TRAP(n, cause, ...) \
  li a0, 0x5a5a; li gp, n; ARM_TRAP(9f); 8: __VA_ARGS__; FAIL; \
  9: la t2, 8b; la t5, isa_trap_rec; lw t3, TRAP_CAUSE(t5); CHECK_EQ(t3, cause); \
  lw t3, TRAP_EPC(t5); CHECK_EQ_REG(t3, t2); lw t3, TRAP_TVAL(t5); CHECK_EQ_REG(t3, a1); \
  CHECK_EQ(a0, 0x5a5a)

ISA_TEST_BEGIN
  /* ---- misaligned loads and stores ---- */
  la s0, iss_word            /* 0x11223344, then 0x55667788 */
  addi a1, s0, 1; TEST_MEM_TRAP(1, CAUSE_MISALIGNED_LOAD, lw a0, 0(a1))
  addi a1, s0, 2; TEST_MEM_TRAP(2, CAUSE_MISALIGNED_LOAD, lw a0, 0(a1))
  addi a1, s0, 3; TEST_MEM_TRAP(3, CAUSE_MISALIGNED_LOAD, lw a0, 0(a1))
  addi a1, s0, 1; TEST_MEM_TRAP(4, CAUSE_MISALIGNED_LOAD, lh a0, 0(a1))
  addi a1, s0, 3; TEST_MEM_TRAP(5, CAUSE_MISALIGNED_LOAD, lhu a0, 0(a1))
  addi a1, s0, 2; TEST_MEM_TRAP(6, CAUSE_MISALIGNED_LOAD, flw fa0, 0(a1))
  addi a1, s0, 1; TEST_MEM_TRAP(10, CAUSE_MISALIGNED_STORE, sw a0, 0(a1))
  addi a1, s0, 2; TEST_MEM_TRAP(11, CAUSE_MISALIGNED_STORE, sw a0, 0(a1))
  addi a1, s0, 3; TEST_MEM_TRAP(12, CAUSE_MISALIGNED_STORE, sh a0, 0(a1))
  addi a1, s0, 3; TEST_MEM_TRAP(13, CAUSE_MISALIGNED_STORE, fsw fa0, 0(a1))
  /* mtval is the effective address (base + offset) */
  li gp, 14; addi a1, s0, 5; ARM_TRAP(9f); 8: sh a0, -4(a1); FAIL
  9: la t5, isa_trap_rec; lw t3, TRAP_CAUSE(t5); CHECK_EQ(t3, CAUSE_MISALIGNED_STORE)
  lw t3, TRAP_TVAL(t5); addi t2, s0, 1; CHECK_EQ_REG(t3, t2)
  /* the stores above wrote nothing */
  li gp, 15; lw a0, 0(s0); CHECK_EQ(a0, 0x11223344); lw a0, 4(s0); CHECK_EQ(a0, 0x55667788)
  /* misaligned is checked before the address range: outside SRAM it is still cause 4/6 */
  li a1, 0x10000001; TEST_MEM_TRAP(16, CAUSE_MISALIGNED_LOAD, lh a0, 0(a1))
  li a1, 0x10000002; TEST_MEM_TRAP(17, CAUSE_MISALIGNED_STORE, sw a0, 0(a1))
  /* aligned byte and halfword accesses at every legal offset are fine */
  li gp, 18; lh a0, 2(s0); CHECK_EQ(a0, 0x1122); lb a0, 3(s0); CHECK_EQ(a0, 0x11)

  /* ---- mtval of misaligned jal / branch targets ---- */
  li gp, 20; la a4, iss_pad; addi a4, a4, 2; ARM_TRAP(9f); 8: jal a5, iss_pad + 2; FAIL
  9: la t5, isa_trap_rec; lw t3, TRAP_TVAL(t5); CHECK_EQ_REG(t3, a4)
  li gp, 21; ARM_TRAP(9f); 8: beq zero, zero, iss_pad + 2; FAIL
  9: la t5, isa_trap_rec; lw t3, TRAP_TVAL(t5); CHECK_EQ_REG(t3, a4)
  li gp, 22; li a1, 1; ARM_TRAP(9f); 8: bgeu a1, zero, iss_pad + 2; FAIL
  9: la t5, isa_trap_rec; lw t3, TRAP_TVAL(t5); CHECK_EQ_REG(t3, a4)

  /* ---- ebreak: mtval = pc ---- */
  li gp, 30; ARM_TRAP(9f); 8: ebreak; FAIL
  9: la t2, 8b; la t5, isa_trap_rec; lw t3, TRAP_TVAL(t5); CHECK_EQ_REG(t3, t2)

  /* ---- past the end of SRAM ---- */
  li gp, 40; li a1, SRAM_END - 4; lw a0, 0(a1)            /* the last word is fine */
  li a1, SRAM_END; TEST_MEM_TRAP(41, CAUSE_LOAD_ACCESS, lw a0, 0(a1))
  li a1, SRAM_END; TEST_MEM_TRAP(42, CAUSE_LOAD_ACCESS, lbu a0, 0(a1))
  li a1, SRAM_END; TEST_MEM_TRAP(43, CAUSE_STORE_ACCESS, sb a0, 0(a1))
  li a1, SRAM_END + 0x1000; TEST_MEM_TRAP(44, CAUSE_STORE_ACCESS, sw a0, 0(a1))
  li a1, 0x7ffffffc; TEST_MEM_TRAP(45, CAUSE_LOAD_ACCESS, lw a0, 0(a1))   /* just below */
  /* fetch past the end: jump to the first address after SRAM */
  li gp, 46; li a1, SRAM_END; ARM_TRAP(9f); jr a1; FAIL
  9: li t2, SRAM_END; CHECK_TRAP(CAUSE_FETCH_ACCESS, t2, SRAM_END)

  /* ---- the tile register block: words only ---- */
  li gp, 50; li a1, REGS; lw a0, 0(a1); CHECK_EQ(a0, 0)            /* TILE_ID */
  lw a0, 4(a1); CHECK_EQ(a0, 1)                                      /* TILE_COUNT */
  li a1, REGS; TEST_MEM_TRAP(51, CAUSE_LOAD_ACCESS, lb a0, 0(a1))
  li a1, REGS + 4; TEST_MEM_TRAP(52, CAUSE_LOAD_ACCESS, lhu a0, 0(a1))
  li a1, REGS; TEST_MEM_TRAP(53, CAUSE_STORE_ACCESS, sb a0, 0(a1))
  li a1, REGS; TEST_MEM_TRAP(54, CAUSE_STORE_ACCESS, sw a0, 0(a1))  /* TILE_ID is read-only */
  li a1, REGS + 0x7fc; TEST_MEM_TRAP(55, CAUSE_LOAD_ACCESS, lw a0, 0(a1))  /* undefined */
ISA_TEST_END

  .balign 4
iss_pad:
  nop
  nop

  .data
  .balign 4
iss_word: .word 0x11223344, 0x55667788
