/* iss-csr: CSR behaviour of the Tessera tile core that QEMU 7.2 does not share, so this
   program runs on tessera-emu only. For each check, why QEMU is left out:
   - mvendorid 0, marchid 0, mimpid 0x00010000, mconfigptr 0: Tessera's own values (QEMU
     is only told them on its command line, so checking them there proves nothing).
   - mhpmcounter3..31(h) and mhpmevent3..31 exist, read 0 and ignore writes (privileged
     spec 3.1.10 lets them be hardwired to zero, but they must exist): QEMU with pmu-num=0
     makes them illegal, with its default pmu-num it implements counters.
   - mcountinhibit reads 0 and ignores writes (WARL; QEMU keeps the written bits).
   - mip reads 0 (no interrupt sources): QEMU's spike machine has a pending machine timer.
   - mie keeps only MSIE/MTIE/MEIE (bits 3, 7, 11): QEMU also keeps S-mode bits.
   - mstatus.MPP is hardwired to M (3) on an M-only hart (spec 3.1.6.1: MPP can only hold
     implemented modes), also after mret; writing all ones leaves only MIE, MPIE, MPP, FS
     and SD set. QEMU 7.2 resets MPP to 0 (U), sets it to U on mret and lets SIE, SPIE,
     SPP, VS, MPRV, SUM, MXR, TVM, TW, TSR be written with S and U disabled.
   - mepc[1:0] read 0 (IALIGN = 32, spec 3.1.14): QEMU 7.2 returns the written low bits.
   - mtvec is direct mode only (MODE reads 0): QEMU also supports vectored mode.
   - medeleg/mideleg do not exist on an M-only hart (spec 3.1.8): QEMU has them.
   - csrrs/csrrc with rs1 != x0 holding 0 still write, so on a read-only CSR they are
     illegal (unprivileged spec 9.1): QEMU 7.2 does not trap.
   - mtval = the instruction for an illegal CSR access (privileged spec 3.1.16: the
     instruction bits or 0): QEMU 7.2 writes the bits of an earlier trapping instruction
     (or 0 if none), as it does not record CSR instructions for mtval.
   - instret counts exactly one per retired instruction, and a CSR write to minstret/mcycle
     replaces that instruction's increment (unprivileged spec 9.1: the next instruction
     reads the written value); QEMU counts host time, or with -icount does not match
     this exactly.
   - FS becomes Dirty when an instruction only changes fflags (feq on a signaling NaN):
     QEMU 7.2 leaves FS Clean although the F state changed (spec 3.1.6.6). */
#define ISA_TEST_FP 1
#include "isa_test.h"

#define TEST_CSR_ILLEGAL_TVAL(n, ...) TEST_ILLEGAL(n, __VA_ARGS__)

ISA_TEST_BEGIN
  /* ---- identification ---- */
  li gp, 1; csrr a0, mvendorid; CHECK_EQ(a0, 0)
  li gp, 2; csrr a0, marchid; CHECK_EQ(a0, 0)
  li gp, 3; csrr a0, mimpid; CHECK_EQ(a0, 0x00010000)
  li gp, 4; csrr a0, mconfigptr; CHECK_EQ(a0, 0)
  li gp, 5; csrr a0, misa; CHECK_EQ(a0, 0x40001120)
  li gp, 6; li a1, -1; csrw misa, a1; csrr a0, misa; CHECK_EQ(a0, 0x40001120)   /* WARL: fixed */
  csrw misa, zero; csrr a0, misa; CHECK_EQ(a0, 0x40001120)

  /* ---- hardwired-zero performance counters ---- */
  li gp, 10; li a1, -1
  csrw mhpmcounter3, a1; csrr a0, mhpmcounter3; CHECK_EQ(a0, 0)
  csrw mhpmcounter17, a1; csrr a0, mhpmcounter17; CHECK_EQ(a0, 0)
  csrw mhpmcounter31, a1; csrr a0, mhpmcounter31; CHECK_EQ(a0, 0)
  li gp, 11; csrw mhpmcounter3h, a1; csrr a0, mhpmcounter3h; CHECK_EQ(a0, 0)
  csrw mhpmcounter31h, a1; csrr a0, mhpmcounter31h; CHECK_EQ(a0, 0)
  li gp, 12; csrw mhpmevent3, a1; csrr a0, mhpmevent3; CHECK_EQ(a0, 0)
  csrw mhpmevent31, a1; csrr a0, mhpmevent31; CHECK_EQ(a0, 0)
  li gp, 13; csrw mcountinhibit, a1; csrr a0, mcountinhibit; CHECK_EQ(a0, 0)
  /* (counting goes on: mcountinhibit does not stop the counters) */
  csrr s0, minstret; nop; csrr s1, minstret; sub a0, s1, s0; CHECK_EQ(a0, 2)
  /* the user-level hpmcounters (0xc03...) are not implemented (no U mode to read them) */
  TEST_ILLEGAL(14, csrr a0, hpmcounter3)

  /* ---- interrupts: nothing pending, three enables ---- */
  li gp, 20; csrr a0, mip; CHECK_EQ(a0, 0)
  li gp, 21; li a1, -1; csrw mip, a1; csrr a0, mip; CHECK_EQ(a0, 0)
  li gp, 22; csrw mie, a1; csrr a0, mie; CHECK_EQ(a0, 0x888); csrw mie, zero

  /* ---- mstatus ---- */
  li gp, 30; csrr a0, mstatus; li a1, MSTATUS_MPP; and a0, a0, a1; CHECK_EQ(a0, MSTATUS_MPP)
  li gp, 31; csrr s0, mstatus; li a1, -1; csrw mstatus, a1; csrr a0, mstatus; csrw mstatus, s0
  CHECK_EQ(a0, MSTATUS_SD | MSTATUS_FS | MSTATUS_MPP | MSTATUS_MPIE | MSTATUS_MIE)
  li gp, 32; li a1, MSTATUS_MPP; csrc mstatus, a1; csrr a0, mstatus; and a0, a0, a1
  CHECK_EQ(a0, MSTATUS_MPP)                                 /* MPP stays M */
  li gp, 33; csrr a0, mstatush; CHECK_EQ(a0, 0); li a1, -1; csrw mstatush, a1
  csrr a0, mstatush; CHECK_EQ(a0, 0)
  /* after a trap and mret, MPP is still M */
  li gp, 34; ARM_TRAP(1f); ecall; 1: csrr a0, mstatus; li a1, MSTATUS_MPP; and a0, a0, a1
  CHECK_EQ(a0, MSTATUS_MPP)
  la t5, isa_trap_rec; lw a0, TRAP_MSTATUS(t5); and a0, a0, a1; CHECK_EQ(a0, MSTATUS_MPP)

  /* ---- mepc, mtvec WARL ---- */
  li gp, 40; la a1, 1f; addi a2, a1, 3; csrw mepc, a2; csrr a0, mepc; CHECK_EQ_REG(a0, a1)
  li gp, 41; addi a2, a1, 2; csrw mepc, a2; csrr a0, mepc; CHECK_EQ_REG(a0, a1)
  /* an mret to a (written) misaligned address lands on the aligned one */
  li gp, 42; li a3, MSTATUS_MPP; csrs mstatus, a3; csrw mepc, a2; mret; FAIL
  .balign 4; 1:
  li gp, 43; csrr s0, mtvec; ori a1, s0, 1; csrw mtvec, a1; csrr a0, mtvec; csrw mtvec, s0
  CHECK_EQ_REG(a0, s0)                                      /* vectored mode not kept */
  li gp, 44; ori a1, s0, 3; csrw mtvec, a1; csrr a0, mtvec; csrw mtvec, s0; CHECK_EQ_REG(a0, s0)
  li gp, 45; csrw mcause, a1; li a1, 0x8000000b; csrw mcause, a1; csrr a0, mcause
  CHECK_EQ(a0, 0x8000000b)

  /* ---- CSRs that do not exist ---- */
  TEST_ILLEGAL(50, csrr a0, medeleg)
  TEST_ILLEGAL(51, csrr a0, mideleg)
  TEST_ILLEGAL(52, csrr a0, 0x30a)          /* menvcfg */
  TEST_ILLEGAL(53, csrr a0, 0x31a)          /* menvcfgh */
  TEST_ILLEGAL(54, csrr a0, 0x747)          /* mseccfg */
  TEST_ILLEGAL(55, csrr a0, 0x7b0)          /* dcsr: debug mode only */
  TEST_ILLEGAL(56, csrr a0, 0x3a0)          /* pmpcfg0 */
  TEST_ILLEGAL(57, csrr a0, 0x3b0)          /* pmpaddr0 */
  TEST_ILLEGAL(58, csrr a0, 0x180)          /* satp */
  TEST_ILLEGAL(59, csrr a0, 0xc01)          /* time */
  TEST_ILLEGAL(60, csrr a0, 0xc81)          /* timeh */

  /* ---- writes to read-only CSRs: every write form, mtval = the instruction ---- */
  li a1, 0
  TEST_CSR_ILLEGAL_TVAL(70, csrrs a0, mhartid, a1)     /* rs1 != x0 holding 0: a write */
  TEST_CSR_ILLEGAL_TVAL(71, csrrc a0, mvendorid, a1)
  TEST_CSR_ILLEGAL_TVAL(72, csrrwi a0, mimpid, 0)
  TEST_CSR_ILLEGAL_TVAL(73, csrw cycle, zero)
  TEST_CSR_ILLEGAL_TVAL(74, csrrsi a0, instret, 1)
  TEST_CSR_ILLEGAL_TVAL(75, csrw mconfigptr, zero)
  TEST_CSR_ILLEGAL_TVAL(76, csrr a0, 0x7c0)

  /* ---- exact counting ---- */
  /* instret: one per instruction, the high half carries */
  li gp, 80; csrr a0, instret; csrr a1, instret; sub a2, a1, a0; CHECK_EQ(a2, 1)
  li gp, 81; csrr a0, minstret; nop; nop; nop; csrr a1, minstret; sub a2, a1, a0; CHECK_EQ(a2, 4)
  /* a write to minstret is what the next instruction reads */
  /* (CHECK_EQ is 2 instructions: li t4 and beq) */
  li gp, 82; li a1, 1000; csrw minstret, a1; csrr a0, minstret; CHECK_EQ(a0, 1000)
  csrr a0, instret; CHECK_EQ(a0, 1003)
  /* the carry into the high half: 0xffffffff, then the nop retires */
  li gp, 83; csrw minstreth, zero; li a1, -1; csrw minstret, a1; nop; csrr a0, minstreth
  CHECK_EQ(a0, 1); csrr a0, instreth; CHECK_EQ(a0, 1); csrr a0, minstret; CHECK_EQ(a0, 6)
  li gp, 84; li a1, 7; csrw minstreth, a1; csrr a0, minstreth; CHECK_EQ(a0, 7); csrw minstreth, zero
  /* mcycle: the write is what the next instruction reads; it moves on from there */
  li gp, 85; li a1, 5000; csrw mcycle, a1; csrr a0, mcycle; CHECK_EQ(a0, 5000)
  csrr a0, cycle; li a2, 5000; bleu a0, a2, isa_fail
  li gp, 86; csrw mcycleh, zero; li a1, -1; csrw mcycle, a1; nop; csrr a0, mcycleh; CHECK_EQ(a0, 1)
  csrr a0, cycleh; CHECK_EQ(a0, 1); csrw mcycleh, zero
  /* a trapping instruction does not retire: ecall + handler + resume */
  li gp, 87; csrr s0, minstret; ARM_TRAP(1f); ecall; 1: csrr s1, minstret
  /* retired: the csrr, the 5 instructions of ARM_TRAP (la: 2, la: 2, sw) and the
     handler's straight-line path up to and including its mret; not the ecall */
  sub a0, s1, s0; addi a0, a0, -6
  la a1, isa_trap_handler_end; la a2, isa_trap_handler; sub a1, a1, a2; srli a1, a1, 2
  CHECK_EQ_REG(a0, a1)

  /* ---- FS: a flag-only change dirties the F state ---- */
  li gp, 90; li a1, 0x7f800001; fmv.w.x fa4, a1; csrwi fflags, 0
  li a1, MSTATUS_FS; csrc mstatus, a1; li a1, MSTATUS_FS_CLEAN; csrs mstatus, a1
  feq.s a0, fa4, fa4; CHECK_EQ(a0, 0)
  csrr a0, mstatus; srli a0, a0, 13; andi a0, a0, 3; CHECK_EQ(a0, 3); CHECK_FFLAGS(FF_NV)
  /* ... and instructions that change no F state (fmv.x.w, fsw) leave it Clean */
  li gp, 91; li a1, MSTATUS_FS; csrc mstatus, a1; li a1, MSTATUS_FS_CLEAN; csrs mstatus, a1
  li a1, 0x3f800000; fmv.x.w a0, fa4; fsw fa4, -4(sp); csrr a0, mstatus; srli a0, a0, 13; andi a0, a0, 3
  CHECK_EQ(a0, 2)
ISA_TEST_END
