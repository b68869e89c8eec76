/* zicsr: the Zicsr instructions (unprivileged spec 9.1) and the machine CSRs whose
   behaviour tessera and QEMU share (privileged spec 2 and 3.1).
   - csrrw/csrrs/csrrc and the immediate forms: old value to rd, new value written; the
     5-bit immediate is zero-extended; rd = x0 still writes; csrrs/csrrc with rs1 = x0 and
     csrrsi/csrrci with uimm = 0 do not write (so they are legal on read-only CSRs), while
     any write to a read-only CSR (number bits 11:10 = 3) is illegal even when rs1 holds
     0 (priv 2.1); a CSR that does not exist is illegal. (mtval for these CSR-access traps is
     checked in iss-csr.S only: QEMU 7.2 writes a stale value for them.)
   - misa = RV32 I M F; mhartid = 0; mscratch/mepc/mcause/mtval/mtvec hold what is written
     (aligned values: the WARL low bits differ and are in iss-csr.S); mstatus MIE/MPIE
     read/write; mstatush = 0; mie written 0 reads 0.
   - cycle/instret/mcycle/minstret (and the high halves) count up; writes to mcycle and
     minstret take effect (exact values, and what a write does to the writing
     instruction's own increment, are in iss-csr.S: QEMU counts host time unless -icount).
   Runs on the ISS and on QEMU. */
#include "isa_test.h"

#define TEST_CSR_ILLEGAL(n, ...) TEST_TRAP_ANY_TVAL(n, CAUSE_ILLEGAL_INSN, __VA_ARGS__)

ISA_TEST_BEGIN
  /* ---- the six instructions, on mscratch ---- */
  li gp, 1; li a0, 0x12345678; csrw mscratch, a0; csrr a1, mscratch; CHECK_EQ(a1, 0x12345678)
  li gp, 2; li a2, 0xcafebabe; csrrw a1, mscratch, a2; CHECK_EQ(a1, 0x12345678)
  csrr a1, mscratch; CHECK_EQ(a1, 0xcafebabe)
  li gp, 3; li a2, 0x0000ffff; csrrs a1, mscratch, a2; CHECK_EQ(a1, 0xcafebabe)
  csrr a1, mscratch; CHECK_EQ(a1, 0xcafeffff)
  li gp, 4; li a2, 0xff0000ff; csrrc a1, mscratch, a2; CHECK_EQ(a1, 0xcafeffff)
  csrr a1, mscratch; CHECK_EQ(a1, 0x00feff00)
  li gp, 5; csrrwi a1, mscratch, 0x1f; CHECK_EQ(a1, 0x00feff00)
  csrr a1, mscratch; CHECK_EQ(a1, 0x0000001f)    /* zero-extended, not sign-extended */
  li gp, 6; csrrci a1, mscratch, 0x15; CHECK_EQ(a1, 0x1f); csrr a1, mscratch; CHECK_EQ(a1, 0x0a)
  li gp, 7; csrrsi a1, mscratch, 0x11; CHECK_EQ(a1, 0x0a); csrr a1, mscratch; CHECK_EQ(a1, 0x1b)
  /* rd = x0 still writes (csrw/csrs/csrc/csrwi/csrsi/csrci pseudo-instructions) */
  li gp, 8; li a0, -1; csrw mscratch, a0; li a0, 0xf0; csrc mscratch, a0
  csrr a1, mscratch; CHECK_EQ(a1, 0xffffff0f)
  li gp, 9; csrwi mscratch, 0; csrsi mscratch, 0x10; csrsi mscratch, 1; csrci mscratch, 0x1
  csrr a1, mscratch; CHECK_EQ(a1, 0x10)
  /* rd == rs1: swap */
  li gp, 10; li a0, 0x11111111; csrw mscratch, a0; li a0, 0x22222222; csrrw a0, mscratch, a0
  CHECK_EQ(a0, 0x11111111); csrr a0, mscratch; CHECK_EQ(a0, 0x22222222)
  /* rs1 = x0 / uimm = 0: no write (value unchanged) */
  li gp, 11; csrrs a1, mscratch, zero; csrrc a1, mscratch, zero; csrrsi a1, mscratch, 0
  csrrci a1, mscratch, 0; CHECK_EQ(a1, 0x22222222); csrr a1, mscratch; CHECK_EQ(a1, 0x22222222)
  /* csrrw with rs1 = x0 does write (zero) */
  li gp, 12; csrrw a1, mscratch, zero; CHECK_EQ(a1, 0x22222222); csrr a1, mscratch; CHECK_EQ(a1, 0)

  /* ---- read-only CSRs: reading is fine, every write form is illegal ---- */
  li gp, 20; csrrs a0, mhartid, zero; CHECK_EQ(a0, 0)
  li gp, 21; csrrc a0, mhartid, zero; csrrsi a0, mhartid, 0; csrrci a0, mhartid, 0; CHECK_EQ(a0, 0)
  li gp, 22; csrr a0, mvendorid; csrr a0, marchid; csrr a0, mimpid; csrr a0, mconfigptr
  TEST_CSR_ILLEGAL(23, csrw mhartid, zero)
  /* (csrrs with rs1 != x0 holding 0 must trap too: iss-csr.S, QEMU 7.2 does not trap) */
  TEST_CSR_ILLEGAL(25, csrrwi a0, mhartid, 0)                 /* csrrwi always writes */
  TEST_CSR_ILLEGAL(26, csrrsi a0, mvendorid, 1)
  TEST_CSR_ILLEGAL(27, csrrci a0, marchid, 1)
  TEST_CSR_ILLEGAL(28, csrw mimpid, zero)
  TEST_CSR_ILLEGAL(29, csrw cycle, zero)                      /* the user counters are read-only */
  TEST_CSR_ILLEGAL(30, csrw instret, zero)
  TEST_CSR_ILLEGAL(31, csrw cycleh, zero)
  TEST_CSR_ILLEGAL(32, csrw instreth, zero)
  TEST_CSR_ILLEGAL(33, csrw mconfigptr, zero)
  /* a failed write leaves rd unwritten */
  li gp, 34; li a0, 0x5555; ARM_TRAP(1f); csrrw a0, mhartid, zero; FAIL; 1: CHECK_EQ(a0, 0x5555)

  /* ---- CSRs that do not exist on an M-only RV32IMF hart ---- */
  TEST_CSR_ILLEGAL(40, csrr a0, sstatus)       /* no S mode */
  TEST_CSR_ILLEGAL(41, csrr a0, satp)          /* no S mode, no MMU */
  TEST_CSR_ILLEGAL(42, csrr a0, scounteren)
  TEST_CSR_ILLEGAL(43, csrr a0, mcounteren)    /* no U mode (priv 3.1.11) */
  TEST_CSR_ILLEGAL(44, csrr a0, pmpcfg0)       /* no PMP */
  TEST_CSR_ILLEGAL(45, csrr a0, tselect)       /* no debug triggers */
  TEST_CSR_ILLEGAL(46, csrr a0, time)          /* no time CSR: the tile has no real-time clock */
  TEST_CSR_ILLEGAL(47, csrr a0, timeh)
  TEST_CSR_ILLEGAL(48, csrr a0, 0x7c0)         /* custom space: nothing there */
  TEST_CSR_ILLEGAL(49, csrr a0, menvcfg)       /* no U mode */
  TEST_CSR_ILLEGAL(50, csrr a0, hstatus)       /* no hypervisor */
  TEST_CSR_ILLEGAL(51, csrr a0, ustatus)       /* no N extension */

  /* ---- machine information and trap CSRs ---- */
  li gp, 60; csrr a0, misa; CHECK_EQ(a0, 0x40001120)   /* MXL=1 (RV32), I, M, F */
  li gp, 61; csrr a0, mhartid; CHECK_EQ(a0, 0)
  li gp, 62; la a0, 1f; csrw mepc, a0; csrr a1, mepc; CHECK_EQ_REG(a1, a0); 1:
  li gp, 63; li a0, CAUSE_ECALL_M; csrw mcause, a0; csrr a1, mcause; CHECK_EQ(a1, CAUSE_ECALL_M)
  li gp, 64; li a0, 0x80001234; csrw mtval, a0; csrr a1, mtval; CHECK_EQ(a1, 0x80001234)
  li gp, 65; csrw mtval, zero; csrr a1, mtval; CHECK_EQ(a1, 0)
  /* mtvec: a 4-byte-aligned direct-mode base reads back */
  li gp, 66; csrr s0, mtvec; la a0, 1f; csrw mtvec, a0; csrr a1, mtvec; csrw mtvec, s0
  CHECK_EQ_REG(a1, a0)
  .balign 4; 1:
  /* mstatus.MIE and MPIE: set, read, clear (mie = 0, so no interrupt can be taken) */
  li gp, 67; csrw mie, zero; csrr a0, mie; CHECK_EQ(a0, 0)
  li gp, 68; csrsi mstatus, MSTATUS_MIE; csrr a0, mstatus; andi a0, a0, MSTATUS_MIE
  CHECK_EQ(a0, MSTATUS_MIE)
  csrci mstatus, MSTATUS_MIE; csrr a0, mstatus; andi a0, a0, MSTATUS_MIE; CHECK_EQ(a0, 0)
  li gp, 69; li a1, MSTATUS_MPIE; csrs mstatus, a1; csrr a0, mstatus; and a0, a0, a1
  CHECK_EQ(a0, MSTATUS_MPIE)
  csrc mstatus, a1; csrr a0, mstatus; and a0, a0, a1; CHECK_EQ(a0, 0)
  li gp, 70; csrr a0, mstatush; CHECK_EQ(a0, 0)             /* little-endian M mode */
  /* (the read-only-zero mstatus fields of an M-only hart are in iss-csr.S: QEMU 7.2 lets
     SIE/SPIE/SPP/VS/MPRV/SUM/MXR/TVM/TW/TSR be set without S or U mode) */

  /* ---- counters ---- */
  /* each counter moves forward over a short loop */
  li gp, 80; csrr s0, cycle; csrr s1, instret; csrr s2, mcycle; csrr s3, minstret
  li a0, 100; 1: addi a0, a0, -1; bnez a0, 1b
  csrr a0, cycle; bleu a0, s0, isa_fail
  csrr a0, instret; bleu a0, s1, isa_fail
  csrr a0, mcycle; bleu a0, s2, isa_fail
  csrr a0, minstret; bleu a0, s3, isa_fail
  /* the high halves read consistently with the low halves (no carry soon after a write) */
  li gp, 81; csrw mcycleh, zero; csrw minstreth, zero; csrr a0, cycleh; CHECK_EQ(a0, 0)
  csrr a0, mcycleh; CHECK_EQ(a0, 0); csrr a0, instreth; CHECK_EQ(a0, 0)
  csrr a0, minstreth; CHECK_EQ(a0, 0)
  li gp, 82; li a1, 5; csrw mcycleh, a1; csrw minstreth, a1; csrr a0, cycleh; CHECK_EQ(a0, 5)
  csrr a0, instreth; CHECK_EQ(a0, 5); csrw mcycleh, zero; csrw minstreth, zero
  /* a write to the low half takes effect: the next reads are close above the value */
  li gp, 83; li a1, 0x10000000; csrw minstret, a1; csrr a0, minstret; csrr a2, instret
  bltu a0, a1, isa_fail; bltu a2, a0, isa_fail; li a3, 0x10100000; bgeu a2, a3, isa_fail
  li gp, 84; li a1, 0x20000000; csrw mcycle, a1; csrr a0, mcycle; csrr a2, cycle
  bltu a0, a1, isa_fail; bltu a2, a0, isa_fail; li a3, 0x20100000; bgeu a2, a3, isa_fail
ISA_TEST_END
