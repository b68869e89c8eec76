/* trap-halt-mtvec0: a trap while mtvec holds its reset value 0 halts the tile (docs/isa.md
   "Traps"). The program first takes one trap through a handler and returns (the first-trap
   latch records that one), then sets mtvec back to 0 and executes an illegal instruction
   at halt_here: the tile must halt on it (illegal instruction, mtval = the word), with the
   first trap (ecall at first_trap) still reported. tests/isa/expect_trap_halt.sh checks what each
   simulator reports against these symbols' addresses. */
  .section .text.init, "ax"
  .globl _start
_start:
  la t0, handler
  csrw mtvec, t0
first_trap:
  ecall
  csrw mtvec, zero
  li a0, 1
halt_here:
  .word 0xffffffff
1:j 1b

  .balign 4
handler:
  csrr t1, mepc; addi t1, t1, 4; csrw mepc, t1; mret
