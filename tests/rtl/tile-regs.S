/* tile-regs.S: the tile register block in lock-step (tests/rtl). Reads TILE_ID, TILE_COUNT,
   SRAM_BYTES and the cycle counters (timing values), passes two one-tile barriers (SYNC
   write, then the blocking SYNC read and SUPERSTEP; two writes back to back), prints on CONSOLE, takes a trap and
   reads the first-trap latch, and halts by writing 0 to EXIT. Offsets: arch/tile_map.toml. */
#define TILE_ID -2048          /* 0xFFFFF800 + 0x000, as an offset from x0 */
#define TILE_COUNT -2044
#define CYCLE_LO -2040
#define CYCLE_HI -2036
#define SUPERSTEP -2032
#define SRAM_BYTES -2028
#define SYNC -2016
#define CONSOLE -1856
#define EXIT -1852
#define TRAP_VALID -1792
#define TRAP_CAUSE -1788
#define TRAP_PC -1784

  .section .text.init, "ax"
  .globl _start
_start:
  la t0, handler; csrw mtvec, t0
  lw a0, TILE_ID(zero)
  lw a1, TILE_COUNT(zero)
  lw a2, SRAM_BYTES(zero)
  lw a3, CYCLE_LO(zero)
  lw a4, CYCLE_HI(zero)
  csrr a5, mcycle
  csrr a6, minstret
  rdcycle a7
  lw s0, SUPERSTEP(zero)
  sw zero, SYNC(zero)          /* arrive */
  lw s1, SYNC(zero)            /* blocks until released: the new superstep */
  lw s2, SUPERSTEP(zero)
  li t0, 1
  sw t0, SYNC(zero)
  nop
  nop
  lw s3, SYNC(zero)
  lw s4, SUPERSTEP(zero)
  sw zero, SYNC(zero)          /* two arrivals back to back: the second commits in the */
  sw zero, SYNC(zero)          /* cycle the first is released, and is a new arrival */
  lw s9, SYNC(zero)
  lw s10, SUPERSTEP(zero)
  li t0, 'o'; sw t0, CONSOLE(zero)
  li t0, 'k'; sw t0, CONSOLE(zero)
  li t0, '\n'; sw t0, CONSOLE(zero)
  ecall                         /* a trap: the latch records it */
  lw s5, TRAP_VALID(zero)
  lw s6, TRAP_CAUSE(zero)
  lw s7, TRAP_PC(zero)
  add s8, s1, s3
  sw zero, EXIT(zero)
1: j 1b

  .balign 4
handler:
  csrr t1, mepc; addi t1, t1, 4; csrw mepc, t1; mret
