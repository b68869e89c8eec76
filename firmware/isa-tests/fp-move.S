/* fp-move: the F instructions that move bits without arithmetic (unprivileged spec 11.5,
   11.6, 11.8-11.9): flw/fsw, fmv.x.w/fmv.w.x, fsgnj/fsgnjn/fsgnjx (and the fmv.s, fneg.s,
   fabs.s pseudo-instructions), fclass.s. None of them looks at the value: NaN payloads
   and signaling NaNs pass through unchanged (no canonical NaN), no flag is ever raised.
   fclass is checked on every one of its 10 classes, with both ends of each range.
   Runs on the ISS and on QEMU. */
#define ISA_TEST_FP 1
#include "isa_test.h"

ISA_TEST_BEGIN
  /* ---- flw / fsw: bit-exact, negative offsets ---- */
  li gp, 1; la a1, fm_data; flw fa0, 0(a1); CHECK_F(fa0, 0x7f800001)     /* sNaN kept */
  flw fa1, 4(a1); CHECK_F(fa1, 0xffc12345)                               /* qNaN payload */
  flw fa2, 8(a1); CHECK_F(fa2, 0x80000001)                               /* subnormal */
  CHECK_FFLAGS(0)
  li gp, 2; la a2, fm_buf_end; fsw fa0, -12(a2); fsw fa1, -8(a2); fsw fa2, -4(a2)
  la a2, fm_buf; lw a0, 0(a2); CHECK_EQ(a0, 0x7f800001)
  lw a0, 4(a2); CHECK_EQ(a0, 0xffc12345); lw a0, 8(a2); CHECK_EQ(a0, 0x80000001)
  li gp, 3; flw fa3, 12(a1); fsw fa3, 0(a2); lw a0, 0(a2); CHECK_EQ(a0, 0xdeadbeef)
  CHECK_FFLAGS(0)
  /* every f register holds its own value (f0 and f31 included) */
  li gp, 4; li a0, 0x11111111; fmv.w.x f0, a0; li a0, 0x22222222; fmv.w.x f31, a0
  CHECK_F(f0, 0x11111111); CHECK_F(f31, 0x22222222)
  fsw f31, 0(a2); flw f0, 0(a2); CHECK_F(f0, 0x22222222)

  /* ---- fmv.x.w / fmv.w.x ---- */
  li gp, 10; li a0, 0x7f800001; fmv.w.x fa0, a0; fmv.x.w a1, fa0; CHECK_EQ(a1, 0x7f800001)
  li gp, 11; li a0, 0xffffffff; fmv.w.x fa0, a0; fmv.x.w a1, fa0; CHECK_EQ(a1, 0xffffffff)
  li gp, 12; fmv.w.x fa0, zero; fmv.x.w a1, fa0; CHECK_EQ(a1, 0)
  li gp, 13; li a0, 0x80000000; fmv.w.x fa0, a0; fmv.x.w zero, fa0; CHECK_EQ(zero, 0)
  CHECK_FFLAGS(0)

  /* ---- sign injection: sign from rs2 (fsgnj), its inverse (fsgnjn), xor (fsgnjx) ---- */
  TEST_FRR(20, fsgnj.s, 0x3f800000, 0, 0x3f800000, 0x40000000)
  TEST_FRR(21, fsgnj.s, 0xbf800000, 0, 0x3f800000, 0xc0000000)
  TEST_FRR(22, fsgnj.s, 0x3f800000, 0, 0xbf800000, 0x7fc00000)   /* sign of a NaN counts */
  TEST_FRR(23, fsgnj.s, 0xff800001, 0, 0x7f800001, 0x80000000)   /* sNaN: no NV, payload kept */
  TEST_FRR(24, fsgnjn.s, 0xbf800000, 0, 0x3f800000, 0x40000000)
  TEST_FRR(25, fsgnjn.s, 0x3f800000, 0, 0x3f800000, 0xc0000000)
  TEST_FRR(26, fsgnjn.s, 0x7fc12345, 0, 0xffc12345, 0xff800000)
  TEST_FRR(27, fsgnjn.s, 0x80000000, 0, 0x00000000, 0x00000000)
  TEST_FRR(28, fsgnjx.s, 0x3f800000, 0, 0x3f800000, 0x40000000)
  TEST_FRR(29, fsgnjx.s, 0xbf800000, 0, 0x3f800000, 0xc0000000)
  TEST_FRR(30, fsgnjx.s, 0x3f800000, 0, 0xbf800000, 0xc0000000)
  TEST_FRR(31, fsgnjx.s, 0x7f800001, 0, 0xff800001, 0xffffffff)
  /* the pseudo-instructions: rs1 == rs2 */
  li gp, 32; li a0, 0xc0490fdb; fmv.w.x fa1, a0
  fmv.s fa0, fa1; CHECK_F(fa0, 0xc0490fdb)                 /* fsgnj fa0, fa1, fa1 */
  fneg.s fa0, fa1; CHECK_F(fa0, 0x40490fdb)                /* fsgnjn */
  fabs.s fa0, fa1; CHECK_F(fa0, 0x40490fdb)                /* fsgnjx */
  fabs.s fa0, fa0; CHECK_F(fa0, 0x40490fdb)
  li gp, 33; li a0, 0x7fc00000; fmv.w.x fa1, a0; fneg.s fa0, fa1; CHECK_F(fa0, 0xffc00000)
  fabs.s fa1, fa0; CHECK_F(fa1, 0x7fc00000)
  /* rd == rs1 == rs2 */
  li gp, 34; li a0, 0x80000001; fmv.w.x fa1, a0; fsgnjn.s fa1, fa1, fa1; CHECK_F(fa1, 0x00000001)
  CHECK_FFLAGS(0)

  /* ---- fclass: one bit per class ---- */
  TEST_XF(60, fclass.s, 0x001, 0, 0xff800000)   /* -inf */
  TEST_XF(61, fclass.s, 0x002, 0, 0xff7fffff)   /* -max normal */
  TEST_XF(62, fclass.s, 0x002, 0, 0xbf800000)   /* -1.0 */
  TEST_XF(63, fclass.s, 0x002, 0, 0x80800000)   /* -min normal */
  TEST_XF(64, fclass.s, 0x004, 0, 0x807fffff)   /* -max subnormal */
  TEST_XF(65, fclass.s, 0x004, 0, 0x80000001)   /* -min subnormal */
  TEST_XF(66, fclass.s, 0x008, 0, 0x80000000)   /* -0 */
  TEST_XF(67, fclass.s, 0x010, 0, 0x00000000)   /* +0 */
  TEST_XF(68, fclass.s, 0x020, 0, 0x00000001)   /* +min subnormal */
  TEST_XF(69, fclass.s, 0x020, 0, 0x007fffff)   /* +max subnormal */
  TEST_XF(70, fclass.s, 0x040, 0, 0x00800000)   /* +min normal */
  TEST_XF(71, fclass.s, 0x040, 0, 0x3f800000)   /* +1.0 */
  TEST_XF(72, fclass.s, 0x040, 0, 0x7f7fffff)   /* +max normal */
  TEST_XF(73, fclass.s, 0x080, 0, 0x7f800000)   /* +inf */
  TEST_XF(74, fclass.s, 0x100, 0, 0x7f800001)   /* sNaN */
  TEST_XF(75, fclass.s, 0x100, 0, 0x7fbfffff)   /* sNaN, max payload */
  TEST_XF(76, fclass.s, 0x100, 0, 0xff800001)   /* -sNaN */
  TEST_XF(77, fclass.s, 0x200, 0, 0x7fc00000)   /* qNaN (canonical) */
  TEST_XF(78, fclass.s, 0x200, 0, 0x7fc00001)   /* qNaN with payload */
  TEST_XF(79, fclass.s, 0x200, 0, 0xffffffff)   /* -qNaN, all ones */
  li gp, 80; li a0, 0x7f800000; fmv.w.x fa0, a0; fclass.s zero, fa0; CHECK_EQ(zero, 0)
ISA_TEST_END

  .data
  .balign 4
fm_data: .word 0x7f800001, 0xffc12345, 0x80000001, 0xdeadbeef
fm_buf: .word 0, 0, 0
fm_buf_end:
