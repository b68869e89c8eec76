/* Start-up for stand-alone tile programs (benchmarks, examples): stack, bss, FPU on, a
   trap handler that reports and exits, then main(); main's return value is the exit
   status, reported through HTIF tohost (0 = pass). */
#include "tessera/arch/tile_map.h"

  .section .text.init, "ax"
  .globl _start
_start:
  .option push
  .option norelax
  la gp, __global_pointer$
  .option pop
  la sp, __stack_top
  la t0, __bss_start
  la t1, __bss_end
1:bgeu t0, t1, 2f
  sw zero, 0(t0)
  addi t0, t0, 4
  j 1b
2:la t0, trap_entry
  csrw mtvec, t0
  li t0, (1 << 13)             /* mstatus.FS = Initial: FP instructions allowed */
  csrs mstatus, t0
  fscsr zero
  call main
  tail tile_exit

/* Any trap in a stand-alone program is a bug: exit with status 0x400 | mcause. */
  .align 2
trap_entry:
  csrr a0, mcause
  ori a0, a0, 0x400
  tail tile_exit

/* void tile_exit(int status): HTIF exit; never returns. */
  .globl tile_exit
tile_exit:
  slli a0, a0, 1
  ori a0, a0, 1
  la t0, tohost
  sw a0, 0(t0)
  sw zero, 4(t0)
1:j 1b

/* void tile_putchar(int c): HTIF console (device 1, command 1); waits for the ack. */
  .globl tile_putchar
tile_putchar:
  la t0, tohost
  andi a0, a0, 0xff
  sw a0, 0(t0)
  li t1, 0x01010000
  sw t1, 4(t0)
1:lw t1, 0(t0)
  lw t2, 4(t0)
  or t1, t1, t2
  bnez t1, 1b
  ret

  .section .tohost, "aw", @progbits
  .align 6
  .globl tohost
  .type tohost, @object
  .size tohost, 8               /* QEMU's HTIF insists on 8-byte symbols */
tohost: .dword 0
  .align 6
  .globl fromhost
  .type fromhost, @object
  .size fromhost, 8
fromhost: .dword 0
