/* trap-halt-entry: a trap at the trap handler's own first instruction halts the tile
   (docs/isa.md "Traps"): taking it would vector to the same instruction forever. The ecall
   at first_trap vectors to handler, whose first instruction loads from address 0 (no
   memory there): the tile must halt on that load access fault (pc = handler, mtval 0), with
   the ecall still in the first-trap latch. tests/isa/expect_trap_halt.sh checks what each simulator
   reports against these symbols' addresses. */
  .section .text.init, "ax"
  .globl _start
_start:
  la t0, handler
  csrw mtvec, t0
  li a0, 1
first_trap:
  ecall
1:j 1b

  .balign 4
handler:
halt_here:
  lw t0, 0(zero)
  csrr t1, mepc; addi t1, t1, 4; csrw mepc, t1; mret
