/* trap-latch.S: the first-trap latch keeps the first trap when a later trap is taken inside
   the handler (docs/isa.md "Traps"), and that nested trap vectors to mtvec with mepc,
   mcause and mtval overwritten. The ecall at first_trap enters the handler, whose second
   instruction (nested_trap: an illegal word) traps again; the handler's second entry
   returns past the ecall. The program checks every value against what the spec and
   docs/isa.md say and prints "latch ok" only if all match, else exits with the number of
   the first failing check. Offsets: arch/tile_map.toml. */
#define CONSOLE -1856
#define EXIT -1852
#define TRAP_VALID -1792
#define TRAP_CAUSE -1788
#define TRAP_PC -1784
#define TRAP_TVAL -1780

/* check n: reg must equal the value in t1 */
#define CHECK(n, reg) li a0, n; bne reg, t1, fail

  .section .text.init, "ax"
  .globl _start
_start:
  la t0, handler; csrw mtvec, t0
  li s0, 0
first_trap:
  ecall
  /* back from the second entry: the latch still holds the ecall */
  lw t0, TRAP_VALID(zero); li t1, 1; CHECK(1, t0)
  lw t0, TRAP_CAUSE(zero); li t1, 11; CHECK(2, t0)
  lw t0, TRAP_PC(zero); la t1, first_trap; CHECK(3, t0)
  lw t0, TRAP_TVAL(zero); li t1, 0; CHECK(4, t0)
  /* the handler ran twice; the CSRs it saw on the second entry are the nested trap's */
  li t1, 2; CHECK(5, s0)
  la t1, first_trap; CHECK(6, s1)
  la t1, nested_trap; CHECK(7, s2)
  li t1, 2; CHECK(8, s3)
  li t1, -1; CHECK(9, s4)
  li t0, 'l'; sw t0, CONSOLE(zero)
  li t0, 'a'; sw t0, CONSOLE(zero)
  li t0, 't'; sw t0, CONSOLE(zero)
  li t0, 'c'; sw t0, CONSOLE(zero)
  li t0, 'h'; sw t0, CONSOLE(zero)
  li t0, ' '; sw t0, CONSOLE(zero)
  li t0, 'o'; sw t0, CONSOLE(zero)
  li t0, 'k'; sw t0, CONSOLE(zero)
  li t0, '\n'; sw t0, CONSOLE(zero)
  sw zero, EXIT(zero)
1:j 1b
fail:
  sw a0, EXIT(zero)
1:j 1b

  .balign 4
handler:
  addi s0, s0, 1
  li t0, 1; bne s0, t0, 2f
  csrr s1, mepc
nested_trap:
  .word 0xffffffff
  li a0, 10; j fail            /* not reached */
2:csrr s2, mepc; csrr s3, mcause; csrr s4, mtval
  addi t1, s1, 4; csrw mepc, t1; mret
