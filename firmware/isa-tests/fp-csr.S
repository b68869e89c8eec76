/* fp-csr: the F extension's control state (unprivileged spec 11.2; privileged 3.1.6.6).
   - fflags (5 bits), frm (3 bits) and fcsr (frm << 5 | fflags, bits 31:8 read 0 and
     ignore writes) are three views of one register; the csrrw/s/c forms and the
     fsflags/fsrm/fscsr pseudo-instructions; flags are sticky (accrue until cleared).
   - rounding modes: a static rm of 5 or 6, or a dynamic rm (7) while frm holds 5, 6 or
     7, is an illegal instruction (also for ops whose result would be exact); frm itself
     accepts 5..7; ops without an rm field (fsgnj, fmin, fmv, compares) ignore frm.
   - reserved F encodings (other formats, D/Zfh/RV64 conversions, bad rs2 or funct3)
     are illegal with the FPU on.
   - mstatus.FS: with FS = Off every F instruction (loads/stores, moves, arithmetic,
     conversions, compares, fclass) and every access to fflags/frm/fcsr is illegal; mtval
     is the instruction for F instructions (for CSR accesses only mcause is checked here:
     QEMU 7.2 writes a stale mtval for them, see iss-csr.S). Writing f registers or fcsr
     moves FS from Initial or Clean to Dirty, and SD reads 1 exactly when FS is Dirty.
     The f registers keep their values while FS is Off.
   Runs on the ISS and on QEMU. */
#define ISA_TEST_FP 1
#include "isa_test.h"

#define ONE 0x3f800000
#define THIRD_RNE 0x3eaaaaab   /* 1/3 rounded to nearest */

/* mstatus.FS (and SD) into reg */
#define READ_FS(reg) csrr reg, mstatus; srli reg, reg, 13; andi reg, reg, 3
#define READ_SD(reg) csrr reg, mstatus; srli reg, reg, 31

ISA_TEST_BEGIN
  /* ---- fflags / frm / fcsr ---- */
  li gp, 1; csrr a0, fcsr; CHECK_EQ(a0, 0)                        /* set by _start */
  li gp, 2; li a1, 0xffffffff; csrw fcsr, a1; csrr a0, fcsr; CHECK_EQ(a0, 0xff)
  csrr a0, fflags; CHECK_EQ(a0, 0x1f); csrr a0, frm; CHECK_EQ(a0, 7)
  li gp, 3; csrw fflags, a1; csrw frm, zero; csrr a0, fcsr; CHECK_EQ(a0, 0x1f)
  li gp, 4; li a1, 0x15; csrw fcsr, a1; csrr a0, fflags; CHECK_EQ(a0, 0x15)
  csrr a0, frm; CHECK_EQ(a0, 0)
  li gp, 5; li a1, 0xe3; csrw fcsr, a1; csrr a0, frm; CHECK_EQ(a0, 7); csrr a0, fflags; CHECK_EQ(a0, 3)
  li gp, 6; li a1, 0xfffffffa; csrw frm, a1; csrr a0, frm; CHECK_EQ(a0, 2)   /* frm: 3 bits */
  csrr a0, fcsr; CHECK_EQ(a0, 0x43)
  li gp, 7; li a1, 0xffffffe4; csrw fflags, a1; csrr a0, fflags; CHECK_EQ(a0, 4)
  csrr a0, fcsr; CHECK_EQ(a0, 0x44)
  /* the set/clear/swap forms and the pseudo-instructions */
  li gp, 8; csrwi fcsr, 0; csrsi fflags, FF_NV; csrsi fflags, FF_NX; csrr a0, fflags; CHECK_EQ(a0, 0x11)
  csrci fflags, FF_NV; csrr a0, fflags; CHECK_EQ(a0, FF_NX)
  li gp, 9; li a1, RM_RUP; fsrm a0, a1; CHECK_EQ(a0, 0); frrm a0; CHECK_EQ(a0, RM_RUP)
  li gp, 10; li a1, FF_OF; fsflags a0, a1; CHECK_EQ(a0, FF_NX); frflags a0; CHECK_EQ(a0, FF_OF)
  li gp, 11; li a1, 0x2a; fscsr a0, a1; CHECK_EQ(a0, 0x64); frcsr a0; CHECK_EQ(a0, 0x2a)
  li gp, 12; fsrmi a0, RM_RMM; CHECK_EQ(a0, 1); fsflagsi a0, 0; CHECK_EQ(a0, 0xa)
  frcsr a0; CHECK_EQ(a0, 0x80)
  csrwi fcsr, 0

  /* flags accrue: inexact from one op, then divide-by-zero from another, both remain */
  li gp, 13; li a1, ONE; fmv.w.x fa1, a1; li a1, 0x40400000; fmv.w.x fa2, a1  /* 1.0, 3.0 */
  fdiv.s fa0, fa1, fa2; csrr a0, fflags; CHECK_EQ(a0, FF_NX); CHECK_F(fa0, THIRD_RNE)
  fmv.w.x fa3, zero; fdiv.s fa0, fa1, fa3; csrr a0, fflags; CHECK_EQ(a0, FF_NX | FF_DZ)
  li gp, 14; fadd.s fa0, fa1, fa1; csrr a0, fflags; CHECK_EQ(a0, FF_NX | FF_DZ)  /* exact: no change */
  csrwi fflags, 0

  /* the dynamic rounding mode is frm: 1/3 rounds up under RUP, down under RDN/RTZ */
  li gp, 15; fsrmi RM_RUP; fdiv.s fa0, fa1, fa2; CHECK_F(fa0, 0x3eaaaaab)
  fsrmi RM_RDN; fdiv.s fa0, fa1, fa2; CHECK_F(fa0, 0x3eaaaaaa)
  fsrmi RM_RTZ; fdiv.s fa0, fa1, fa2, dyn; CHECK_F(fa0, 0x3eaaaaaa)
  fsrmi RM_RNE; fdiv.s fa0, fa1, fa2, rup; CHECK_F(fa0, 0x3eaaaaab)   /* static wins */
  csrwi fflags, 0

  /* ---- reserved rounding modes ---- */
  TEST_ILLEGAL(20, .word 0x00c5d553)     /* fadd.s fa0,fa1,fa2 rm=5 */
  TEST_ILLEGAL(21, .word 0x00c5e553)     /* fadd.s rm=6 */
  TEST_ILLEGAL(22, .word 0xd005d553)     /* fcvt.s.w fa0, a1 rm=5 */
  TEST_ILLEGAL(23, .word 0xc005e553)     /* fcvt.w.s a0, fa1 rm=6 */
  TEST_ILLEGAL(24, .word 0x5805d553)     /* fsqrt.s fa0, fa1 rm=5 */
  TEST_ILLEGAL(25, .word 0x60c5d543)     /* fmadd.s fa0,fa1,fa2,fa2 rm=5 */
  /* dynamic with frm = 5, 6, 7: frm accepts them, the op is illegal (even on exact values) */
  li gp, 26; fsrmi 5; frrm a0; CHECK_EQ(a0, 5)
  TEST_ILLEGAL(27, fadd.s fa0, fa1, fa1, dyn)
  fsrmi 6
  TEST_ILLEGAL(28, fmul.s fa0, fa1, fa1, dyn)
  fsrmi 7
  TEST_ILLEGAL(29, fcvt.s.w fa0, zero, dyn)
  TEST_ILLEGAL(30, fnmsub.s fa0, fa1, fa1, fa1, dyn)
  /* ops without an rm field work whatever frm holds (frm still 7) */
  li gp, 31; fsgnjn.s fa0, fa1, fa1; CHECK_F(fa0, 0xbf800000)
  fmin.s fa0, fa1, fa2; CHECK_F(fa0, ONE); feq.s a0, fa1, fa1; CHECK_EQ(a0, 1)
  fmv.x.w a0, fa1; CHECK_EQ(a0, ONE); fclass.s a0, fa1; CHECK_EQ(a0, 0x40)
  /* and an explicit valid static rm works too */
  li gp, 32; fadd.s fa0, fa1, fa1, rne; CHECK_F(fa0, 0x40000000)
  csrwi fcsr, 0

  /* ---- mstatus.FS ---- */
  li gp, 40; li a1, MSTATUS_FS; csrc mstatus, a1; READ_FS(a0); CHECK_EQ(a0, 0)
  READ_SD(a0); CHECK_EQ(a0, 0)
  /* FS = Off: every kind of F instruction is illegal */
  TEST_ILLEGAL(41, flw fa0, 0(sp))
  TEST_ILLEGAL(42, fsw fa0, -4(sp))
  TEST_ILLEGAL(43, fmv.w.x fa0, zero)
  TEST_ILLEGAL(44, fmv.x.w a0, fa0)
  TEST_ILLEGAL(45, fadd.s fa0, fa1, fa2)
  TEST_ILLEGAL(46, fmadd.s fa0, fa1, fa2, fa3)
  TEST_ILLEGAL(47, fcvt.w.s a0, fa0)
  TEST_ILLEGAL(48, fcvt.s.wu fa0, a0)
  TEST_ILLEGAL(49, feq.s a0, fa0, fa1)
  TEST_ILLEGAL(50, fclass.s a0, fa0)
  TEST_ILLEGAL(51, fsgnj.s fa0, fa1, fa2)
  TEST_ILLEGAL(52, fmax.s fa0, fa1, fa2)
  TEST_ILLEGAL(53, fsqrt.s fa0, fa1)
  TEST_ILLEGAL(54, fdiv.s fa0, fa1, fa2)
  TEST_TRAP_ANY_TVAL(55, CAUSE_ILLEGAL_INSN, csrr a0, fflags)
  TEST_TRAP_ANY_TVAL(56, CAUSE_ILLEGAL_INSN, csrr a0, frm)
  TEST_TRAP_ANY_TVAL(57, CAUSE_ILLEGAL_INSN, csrr a0, fcsr)
  TEST_TRAP_ANY_TVAL(58, CAUSE_ILLEGAL_INSN, csrwi fflags, 0)
  TEST_TRAP_ANY_TVAL(59, CAUSE_ILLEGAL_INSN, csrw fcsr, zero)
  /* an illegal F instruction did not write its destination */
  li gp, 60; li a0, 0x1234; ARM_TRAP(1f); fmv.x.w a0, fa1; FAIL; 1: CHECK_EQ(a0, 0x1234)
  /* FS = Initial: legal again; the f registers kept their values while Off */
  li gp, 61; li a1, MSTATUS_FS_INITIAL; csrs mstatus, a1; READ_FS(a0); CHECK_EQ(a0, 1)
  READ_SD(a0); CHECK_EQ(a0, 0); CHECK_F(fa1, ONE)
  /* writing an f register makes it Dirty, with SD */
  li gp, 62; fadd.s fa0, fa1, fa1; READ_FS(a0); CHECK_EQ(a0, 3); READ_SD(a0); CHECK_EQ(a0, 1)
  /* Clean -> Dirty through fmv.w.x, flw and a write of fflags */
  li gp, 63; li a1, MSTATUS_FS; csrc mstatus, a1; li a1, MSTATUS_FS_CLEAN; csrs mstatus, a1
  READ_FS(a0); CHECK_EQ(a0, 2); READ_SD(a0); CHECK_EQ(a0, 0)
  fmv.w.x fa0, zero; READ_FS(a0); CHECK_EQ(a0, 3)
  li gp, 64; li a1, MSTATUS_FS; csrc mstatus, a1; li a1, MSTATUS_FS_CLEAN; csrs mstatus, a1
  la a2, fp_csr_word; flw fa0, 0(a2); READ_FS(a0); CHECK_EQ(a0, 3); CHECK_F(fa0, 0x40490fdb)
  li gp, 65; li a1, MSTATUS_FS; csrc mstatus, a1; li a1, MSTATUS_FS_CLEAN; csrs mstatus, a1
  csrwi fflags, FF_NX; READ_FS(a0); CHECK_EQ(a0, 3)
  /* (an op that only raises a flag, like feq on a signaling NaN, must dirty the state
     too: that is in iss-csr.S, QEMU 7.2 leaves FS Clean) */
  /* FS = Dirty written directly: SD follows */
  li gp, 67; li a1, MSTATUS_FS; csrc mstatus, a1; READ_SD(a0); CHECK_EQ(a0, 0)
  csrs mstatus, a1; READ_SD(a0); CHECK_EQ(a0, 1); READ_FS(a0); CHECK_EQ(a0, 3)

  /* ---- reserved and other-extension F encodings stay illegal with the FPU on ---- */
  la a0, fp_csr_word      /* (a valid address, should a load/store wrongly execute) */
  TEST_ILLEGAL_WORD(70, 0x02a57553)   /* fadd.d: no D */
  TEST_ILLEGAL_WORD(71, 0x00053507)   /* fld */
  TEST_ILLEGAL_WORD(72, 0x00a53027)   /* fsd */
  TEST_ILLEGAL_WORD(73, 0x52a57543)   /* fmadd with fmt = D */
  TEST_ILLEGAL_WORD(74, 0x04a57553)   /* fadd.h: no Zfh */
  TEST_ILLEGAL_WORD(75, 0x00051507)   /* flh: no Zfh */
  TEST_ILLEGAL_WORD(76, 0x40157553)   /* fcvt.s.d */
  TEST_ILLEGAL_WORD(77, 0xc0257553)   /* fcvt.l.s: RV64 only */
  TEST_ILLEGAL_WORD(78, 0xd0257553)   /* fcvt.s.l: RV64 only */
  TEST_ILLEGAL_WORD(79, 0xe0150553)   /* fmv.x.w with rs2 = 1 */
  TEST_ILLEGAL_WORD(80, 0x58157553)   /* fsqrt.s with rs2 = 1 */
  TEST_ILLEGAL_WORD(81, 0x20a53553)   /* fsgnj funct3 = 3 */
  TEST_ILLEGAL_WORD(82, 0x28a52553)   /* fmin/fmax funct3 = 2 */
  TEST_ILLEGAL_WORD(83, 0xa0a53553)   /* feq/flt/fle funct3 = 3 */
  TEST_ILLEGAL_WORD(84, 0xe0052553)   /* fmv.x.w/fclass funct3 = 2 */
  TEST_ILLEGAL_WORD(85, 0xf0051553)   /* fmv.w.x funct3 = 1 */
  TEST_ILLEGAL_WORD(86, 0x00a51027)   /* fsh funct3 = 1 */
  /* and the legal neighbours of those encodings work */
  li gp, 87; flw fa0, 0(a0); fmv.x.w a1, fa0; CHECK_EQ(a1, 0x40490fdb)
ISA_TEST_END

  .data
  .balign 4
fp_csr_word: .word 0x40490fdb   /* pi */
