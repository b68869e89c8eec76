/* fence: FENCE (unprivileged spec 2.7) and Zifencei FENCE.I (spec 3).
   - fence in its usual forms (rw,rw / iorw,iorw / w,r / fence.tso) orders nothing visible
     on one hart but must execute; its reserved fields (rs1, rd, unknown fm) are ignored
     (no register is written).
   - fence.i makes stores to instruction memory visible to later fetches: self-modifying
     code writes an instruction sequence into a data buffer, fence.i, runs it; then
     rewrites one instruction in place, fence.i, runs it again and sees the new one; and
     copies a whole loop there. fence.i's reserved fields (imm, rs1, rd) are ignored.
   Runs on the ISS and on QEMU. */
#include "isa_test.h"

/* Encodings written at run time. */
#define ADDI_A0_ZERO(imm) (((imm) << 20) | (10 << 7) | 0x13)  /* addi a0, zero, imm */
#define ADDI_A0_A0(imm) (((imm) << 20) | (10 << 15) | (10 << 7) | 0x13)
#define RET 0x00008067                                        /* jalr zero, 0(ra) */

ISA_TEST_BEGIN
  /* ---- fence ---- */
  li gp, 1; la a1, fence_data; li a0, 0x1234; sw a0, 0(a1)
  fence rw, rw; lw a2, 0(a1); CHECK_EQ(a2, 0x1234)
  fence iorw, iorw; fence w, r; fence r, w; fence.tso; fence
  li gp, 2; li a0, 0x77; .word 0x0ff5850f   /* fence iorw,iorw with rd = a0, rs1 = a1 */
  CHECK_EQ(a0, 0x77)
  li gp, 3; .word 0x5ff0000f; .word 0x0000000f   /* fm = 0101 (reserved), and an empty fence */

  /* ---- fence.i: generate code, run it ---- */
  li gp, 10; la s0, fence_code
  li a0, ADDI_A0_ZERO(0x123); sw a0, 0(s0)
  li a0, RET; sw a0, 4(s0)
  fence.i
  li a0, 0; jalr ra, 0(s0); CHECK_EQ(a0, 0x123)
  /* rewrite the first instruction: the new one runs */
  li gp, 11; li a0, ADDI_A0_ZERO(0x456); sw a0, 0(s0)
  fence.i
  li a0, 0; jalr ra, 0(s0); CHECK_EQ(a0, 0x456)
  /* rewrite it with halfword stores (two halves of the new word) */
  li gp, 12; li a0, ADDI_A0_ZERO(0x789); sh a0, 0(s0); srli a0, a0, 16; sh a0, 2(s0)
  fence.i
  li a0, 0; jalr ra, 0(s0); CHECK_EQ(a0, 0x789)
  /* fence.i with its reserved fields set (imm = 1, rs1 = a1, rd = zero) works the same */
  li gp, 13; li a0, ADDI_A0_ZERO(0x321); sw a0, 0(s0)
  .word 0x0015900f
  li a0, 0; jalr ra, 0(s0); CHECK_EQ(a0, 0x321)

  /* copy a loop (fence_template .. fence_template_end) into the buffer and run it */
  li gp, 20; la a1, fence_template; la a2, fence_template_end; mv a3, s0
  1: lw a4, 0(a1); sw a4, 0(a3); addi a1, a1, 4; addi a3, a3, 4; bltu a1, a2, 1b
  fence.i
  li a0, 10; jalr ra, 0(s0); CHECK_EQ(a0, 55)   /* 10 + 9 + ... + 1 */
  /* patch the loop's add into a sub, run again */
  li gp, 21; la a1, fence_template; la a2, fence_patch; sub a2, a2, a1; add a2, a2, s0
  li a0, 0x40c585b3; sw a0, 0(a2)                 /* sub a1, a1, a2 */
  fence.i
  li a0, 10; jalr ra, 0(s0); CHECK_EQ(a0, -55)

  /* code that ran before is rewritten while it is still "hot" (executed in a loop) */
  li gp, 22; li s1, 0; li s2, 0
  li a0, ADDI_A0_A0(1); sw a0, 0(s0); li a0, RET; sw a0, 4(s0); fence.i
  2: li a0, 0; jalr ra, 0(s0); add s2, s2, a0; addi s1, s1, 1
  li a1, 5; bne s1, a1, 3f
  li a0, ADDI_A0_A0(100); sw a0, 0(s0); fence.i   /* from the 6th call on: + 100 */
  3: li a1, 8; bltu s1, a1, 2b
  CHECK_EQ(s2, 5 * 1 + 3 * 100)
ISA_TEST_END

  /* A position-independent routine: a0 = sum of a0 .. 1 (or its negation once patched). */
  .balign 4
fence_template:
  mv a2, a0
  li a1, 0
  1:
fence_patch:
  add a1, a1, a2
  addi a2, a2, -1
  bnez a2, 1b
  mv a0, a1
  ret
fence_template_end:

  .data
  .balign 4
fence_data: .word 0
fence_code: .space 64
