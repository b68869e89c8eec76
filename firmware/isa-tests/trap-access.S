/* trap-access: access-fault exceptions (privileged spec 3.6, 3.1.16) at addresses with no
   memory or device behind them on both machines (0x00000000 and 0x10000000): every load
   width raises cause 5 and every store width cause 7 with mtval = the address and rd not
   written; a fetch from there (after a jalr, which itself completes and links) raises
   cause 1 with mepc = mtval = the address. Addresses that only tessera lacks (just past
   the 64 KiB SRAM, the tile register block) are in iss-traps.S. Runs on the ISS and on
   QEMU. */
#include "isa_test.h"

#define BAD0 0x00000000
#define BAD1 0x10000000

/* Test n: the load/store (address `addr` in a1) faults with `cause`, mtval = addr, rd kept. */
#define TEST_ACCESS(n, cause, addr, ...) \
  li gp, n; li a1, addr; li a0, 0x5a5a; ARM_TRAP(9f); 8: __VA_ARGS__; FAIL; \
  9: la t2, 8b; CHECK_TRAP(cause, t2, addr); CHECK_EQ(a0, 0x5a5a)

ISA_TEST_BEGIN
  TEST_ACCESS(1, CAUSE_LOAD_ACCESS, BAD1, lw a0, 0(a1))
  TEST_ACCESS(2, CAUSE_LOAD_ACCESS, BAD1, lh a0, 0(a1))
  TEST_ACCESS(3, CAUSE_LOAD_ACCESS, BAD1, lhu a0, 0(a1))
  TEST_ACCESS(4, CAUSE_LOAD_ACCESS, BAD1, lb a0, 0(a1))
  TEST_ACCESS(5, CAUSE_LOAD_ACCESS, BAD1, lbu a0, 0(a1))
  TEST_ACCESS(6, CAUSE_LOAD_ACCESS, BAD0, lw a0, 0(a1))
  /* the fault address includes the offset */
  li gp, 7; li a1, BAD1 + 0x100; ARM_TRAP(9f); 8: lw a0, -0x100 + 8(a1); FAIL
  9: la t2, 8b; CHECK_TRAP(CAUSE_LOAD_ACCESS, t2, BAD1 + 8)
  TEST_ACCESS(10, CAUSE_STORE_ACCESS, BAD1, sw a0, 0(a1))
  TEST_ACCESS(11, CAUSE_STORE_ACCESS, BAD1, sh a0, 0(a1))
  TEST_ACCESS(12, CAUSE_STORE_ACCESS, BAD1, sb a0, 0(a1))
  TEST_ACCESS(13, CAUSE_STORE_ACCESS, BAD0, sw a0, 0(a1))
  li gp, 14; li a1, BAD1; ARM_TRAP(9f); 8: sw zero, 0x7fc(a1); FAIL
  9: la t2, 8b; CHECK_TRAP(CAUSE_STORE_ACCESS, t2, BAD1 + 0x7fc)

  /* fetch: the jalr completes (links to ra), the fetch at the target faults */
  li gp, 20; li a1, BAD1; li ra, 0; ARM_TRAP(9f); 8: jalr ra, 0(a1); FAIL
  9: li t2, BAD1; CHECK_TRAP(CAUSE_FETCH_ACCESS, t2, BAD1)
  la t2, 8b; addi t2, t2, 4; CHECK_EQ_REG(ra, t2)
  li gp, 21; li a1, BAD0 + 0x40; ARM_TRAP(9f); jr a1; FAIL
  9: li t2, BAD0 + 0x40; CHECK_TRAP(CAUSE_FETCH_ACCESS, t2, BAD0 + 0x40)
  /* mret to an address with nothing behind it faults there */
  li gp, 22; li a0, MSTATUS_MPP; csrs mstatus, a0; li a1, BAD1 + 0x10; csrw mepc, a1
  ARM_TRAP(9f); mret; FAIL
  9: li t2, BAD1 + 0x10; CHECK_TRAP(CAUSE_FETCH_ACCESS, t2, BAD1 + 0x10)

  /* memory is still fine afterwards */
  li gp, 30; la a1, access_word; lw a0, 0(a1); CHECK_EQ(a0, 0x13572468)
ISA_TEST_END

  .data
  .balign 4
access_word: .word 0x13572468
