/* htif-console.S: HTIF console output in lock-step (tests/rtl). Prints a line through
   isa_test.h's isa_putc, which stores the command to tohost and polls tohost + 4 until the
   host clears it: the RTL harness's clearing write must reach the emulator's memory at the
   same point of the instruction stream (sim/cosim, ext_skew). */
#include "isa_test.h"
ISA_TEST_BEGIN
  la a0, htif_msg; jal isa_puts
  TEST_RR(1, add, 3, 1, 2)
ISA_TEST_END
  .section .rodata
htif_msg: .string "htif console ok\n"
