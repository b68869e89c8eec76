/* The firmware's trap handler: any trap is fatal. Report it as EXIT = kExitTrap | mcause
   (control.h) and stop; the machine reads the pc, tval and superstep of the first trap
   from the hardware's first-trap latch (TRAP_* registers). It needs no stack and saves
   nothing. Its only access is the EXIT store, which cannot trap: a trap here would vector
   back to this handler (docs/isa.md "Traps"), and its first instruction, a CSR read, never
   traps. */
#include "tessera/arch/tile_map.h"

  .section .text
  .align 2
  .globl tessera_trap_entry
tessera_trap_entry:
  csrr t0, mcause
  li t1, 0x80000000            /* kExitTrap */
  or t0, t0, t1
  sw t0, (TESS_REG_EXIT_OFFSET - 0x800)(zero)   /* EXIT: one sw off x0 */
1:wfi                          /* EXIT halts the core: not reached */
  j 1b
