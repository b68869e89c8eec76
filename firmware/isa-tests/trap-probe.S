/* trap-probe: a standard M-mode start-up that probes optional CSRs, and traps taken inside
   a trap handler (privileged spec 3.1.6.1, 3.1.14-16, 3.3.1).
   - The start-up idiom of riscv-tests and of many boot loaders: point mtvec at the
     instruction after a CSR access that may not exist, then do the access; if the CSR is
     missing, the illegal-instruction trap lands on that next instruction and start-up goes
     on without ever returning (no mret). Every probe after the first therefore traps while
     the previous trap is still "being handled": such a trap vectors to mtvec like any other
     (mepc, mcause overwritten). Probed: satp and the PMP CSRs (no S mode, no PMP: both
     traps), mnstatus (0x744, Smrnmi: not implemented), medeleg/mideleg (no S mode: Tessera
     traps, QEMU has them, so either outcome is accepted), mcounteren and menvcfg (no U
     mode: both trap), and CSRs that exist (mscratch, mhartid: no trap). mtval of these
     CSR-access traps is not checked here (QEMU 7.2 writes a stale value; iss-csr.S checks it).
   - A trap inside a real handler (between trap entry and mret, not at the handler's first
     instruction) vectors to mtvec again: mepc, mcause and mtval are those of the second
     trap, and the handler can still return to the first trap's resume point.
   - Then the program runs normally with the usual handler (a trap through it, arithmetic)
     and exits with pass.
   Runs on the ISS, on QEMU and in lock-step on the RTL. */
#include "isa_test.h"

/* PROBE(n, insns...): clears mcause and mepc, points mtvec at the instruction after the
   probed ones (label 9998) and runs them (the first at label 9997). */
#define PROBE(n, ...) \
  li gp, n; csrw mcause, zero; csrw mepc, zero; la t0, 9998f; csrw mtvec, t0; \
  9997: __VA_ARGS__; 9998:
/* The probe trapped: mcause = illegal instruction, mepc = the probe's first instruction. */
#define PROBE_TRAPPED \
  csrr t3, mcause; CHECK_EQ(t3, CAUSE_ILLEGAL_INSN); \
  csrr t3, mepc; la t2, 9997b; CHECK_EQ_REG(t3, t2)
/* The probe ran without a trap: mcause and mepc still 0. */
#define PROBE_NO_TRAP \
  csrr t3, mcause; CHECK_EQ(t3, 0); csrr t3, mepc; CHECK_EQ(t3, 0)
/* Either outcome, but a consistent one (a1 = 1 if it trapped). */
#define PROBE_EITHER \
  li a1, 0; csrr t3, mcause; beqz t3, 9996f; li a1, 1; PROBE_TRAPPED; j 9995f; \
  9996: csrr t3, mepc; CHECK_EQ(t3, 0); 9995:

ISA_TEST_BEGIN
  /* ---- start-up: probe optional CSRs, trapping past the missing ones ---- */
  PROBE(1, csrwi satp, 0)
  PROBE_TRAPPED
  PROBE(2, csrr a0, satp)
  PROBE_TRAPPED
  /* as riscv-tests do: a missing pmpaddr0 skips the pmpcfg0 write too */
  li a2, 0
  PROBE(3, li t1, -1; csrw pmpaddr0, t1; li t1, 0x1f; csrw pmpcfg0, t1; li a2, 1)
  csrr t3, mcause; CHECK_EQ(t3, CAUSE_ILLEGAL_INSN)
  csrr t3, mepc; la t2, 9997b; addi t2, t2, 4; CHECK_EQ_REG(t3, t2)   /* the csrw, after the li */
  CHECK_EQ(a2, 0)                                                    /* nothing after it ran */
  PROBE(4, csrr a0, 0x744)                     /* mnstatus */
  PROBE_TRAPPED
  PROBE(5, csrwi 0x744, 8)                     /* mnstatus.NMIE */
  PROBE_TRAPPED
  PROBE(6, csrwi medeleg, 0)
  PROBE_EITHER
  PROBE(7, csrwi mideleg, 0)
  PROBE_EITHER
  PROBE(8, csrwi mcounteren, 0)
  PROBE_TRAPPED
  PROBE(9, csrwi 0x30a, 0)                     /* menvcfg */
  PROBE_TRAPPED
  /* CSRs that exist: no trap, and they hold what start-up writes */
  PROBE(10, li a0, 0x5a5a; csrw mscratch, a0)
  PROBE_NO_TRAP
  csrr a0, mscratch; CHECK_EQ(a0, 0x5a5a)
  PROBE(11, csrr a0, mhartid)
  PROBE_NO_TRAP
  CHECK_EQ(a0, 0)
  /* several probes back to back with one landing point: the first trap skips the rest */
  PROBE(12, csrwi satp, 0; csrwi pmpcfg0, 0; csrwi 0x744, 0)
  PROBE_TRAPPED
  /* the probe traps ended in no handler: mstatus.MIE is still 0, MPP still M */
  li gp, 13; csrr a0, mstatus; andi a0, a0, MSTATUS_MIE; CHECK_EQ(a0, 0)
  csrr a0, mstatus; li t0, MSTATUS_MPP; and a0, a0, t0; CHECK_EQ(a0, MSTATUS_MPP)

  /* ---- a trap inside a handler vectors to mtvec again ---- */
  li gp, 20; la t0, nest_handler; csrw mtvec, t0; li s1, 0; li s2, 0; li s3, 0
  nest_outer: ecall                            /* first trap: mcause 11, mtval 0 */
  1:
  CHECK_EQ(s1, 2)                              /* the handler was entered twice */
  la t2, nest_outer; CHECK_EQ_REG(s2, t2)      /* first entry: mepc = the ecall */
  li gp, 21; la t2, nest_inner; CHECK_EQ_REG(s3, t2)  /* second: mepc = the trap in the handler */
  CHECK_EQ(s4, CAUSE_ILLEGAL_INSN)             /* mcause overwritten */
  CHECK_EQ(s5, 0xffffffff)                     /* mtval overwritten: the illegal word */
  li gp, 22; csrr a0, mepc; la t2, 1b; CHECK_EQ_REG(a0, t2)  /* what the handler wrote */

  /* ---- normal running: the usual handler, a trap through it, and some arithmetic ---- */
  li gp, 30; la t0, isa_trap_handler; csrw mtvec, t0
  TEST_TRAP(31, CAUSE_ECALL_M, 0, ecall)
  TEST_ILLEGAL_WORD(32, 0xffffffff)
  TEST_RR(33, add, 0x579b, 0x1234, 0x4567)
  TEST_RR(34, mul, 0x0ff0f00f, 0xffff, 0x0ff1)
  TEST_RI(35, xori, 0xffff000f, 0xffff00f0, 0xff)
  li gp, 36; la t5, isa_trap_rec; lw a0, TRAP_COUNT(t5); CHECK_EQ(a0, 2)  /* only those two */
ISA_TEST_END

/* The handler for the nested test. Its first instruction never traps (a trap there would
   halt the tile: nothing could recover). First entry: record mepc, then trap inside the
   handler. Second entry: record mepc/mcause/mtval of that trap, and return past the first
   trap's ecall. */
  .balign 4
nest_handler:
  addi s1, s1, 1
  li t0, 1; bne s1, t0, 2f
  csrr s2, mepc
nest_inner: .word 0xffffffff                   /* an illegal instruction inside the handler */
  j isa_fail                                   /* not reached */
2:csrr s3, mepc; csrr s4, mcause; csrr s5, mtval
  addi t0, s2, 4; csrw mepc, t0; mret
