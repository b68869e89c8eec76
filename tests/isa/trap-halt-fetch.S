/* trap-halt-fetch: mtvec pointing where there is no memory. The ecall at first_trap vectors
   there, the fetch at mtvec faults, and that trap's pc is mtvec itself: the tile must halt
   on the instruction access fault (pc = mtval = the bad mtvec, 0x10000000), with the ecall
   still in the first-trap latch. tests/isa/expect_trap_halt.sh checks what each simulator reports. */
  .section .text.init, "ax"
  .globl _start
_start:
  li t0, 0x10000000
  csrw mtvec, t0
first_trap:
  ecall
1:j 1b
  .globl halt_here
  .set halt_here, 0x10000000
