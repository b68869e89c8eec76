/* Start-up of the Tessera firmware (tessera-firmware.elf): the loader has placed the image,
   filled `tessera_tile_header` and released the core at _start. Set up gp and sp (the
   fixed 4 KiB stack of link.ld), install the trap handler, clear .bss (the RunState among
   it: the program starts at its first op), turn the FPU on with fcsr = 0 (round to
   nearest even, no flags: what both builds of the codelets assume), then run
   tessera_main (runtime/main.cpp), which never returns. */
#include "tessera/arch/tile_map.h"

  .section .text.init, "ax"
  .globl _start
_start:
  .option push
  .option norelax
  la gp, __global_pointer$
  .option pop
  la sp, __stack_top
  la t0, tessera_trap_entry
  csrw mtvec, t0
  la t0, __bss_start
  la t1, __bss_end
1:bgeu t0, t1, 2f
  sw zero, 0(t0)
  addi t0, t0, 4
  j 1b
2:li t0, (1 << 13)             /* mstatus.FS = Initial: F instructions allowed */
  csrs mstatus, t0
  fscsr zero                   /* frm = RNE, fflags clear */
  call tessera_main
  /* not reached; a return would be a bug: report it as a breakpoint trap */
  ebreak
