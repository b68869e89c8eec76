/* isa_test.h: the frame of every self-checking ISA test program in this folder.
 *
 * A test file is:
 *     #define ISA_TEST_FP 1        (optional: start with mstatus.FS = Initial, fcsr = 0)
 *     #include "isa_test.h"
 *     ISA_TEST_BEGIN
 *       TEST_RR(1, add, 3, 1, 2)   ... numbered checks, any code ...
 *     ISA_TEST_END
 *
 * Conventions (the same on tessera-emu and on QEMU's spike machine):
 *  - gp (x3) holds the number of the test being run. The first failing check prints
 *    "isa-test FAIL: test N" on the HTIF console and exits with status N (tohost = N<<1|1),
 *    so both runners exit with the failing test number. Passing exits with status 0.
 *    Test numbers are 1..254 (exit statuses are 8 bits); 255 means "failed outside a test".
 *  - t3/t4 (x28/x29) are scratch of the CHECK macros, t1/t2 also of the TEST_TRAP family;
 *    t5/t6 (x30/x31) are clobbered by ARM_TRAP and by the trap handler. Everything else
 *    is the test's (a0..a3 are the operands and results of the TEST_* macros).
 *  - The macros' own local labels are 9996..9999: a test's 1: .. 9: labels reach across.
 *  - Traps: a test that expects one arms the handler with a resume address (ARM_TRAP); the
 *    handler records mcause/mepc/mtval/mstatus in isa_trap_rec, disarms and mret's to the
 *    resume address. A trap while disarmed fails the current test (and prints mcause/mepc).
 *    The handler itself never traps (a trap inside it would vector to it again and, once
 *    disarmed, report an unexpected trap).
 */
#ifndef TESSERA_ISA_TEST_H
#define TESSERA_ISA_TEST_H

/* gp holds the test number, so the linker must not relax `la` into gp-relative addressing
   (it does once __global_pointer$ is defined). */
.option norelax

/* Trap causes (privileged spec table 3.6). */
#define CAUSE_MISALIGNED_FETCH 0
#define CAUSE_FETCH_ACCESS 1
#define CAUSE_ILLEGAL_INSN 2
#define CAUSE_BREAKPOINT 3
#define CAUSE_MISALIGNED_LOAD 4
#define CAUSE_LOAD_ACCESS 5
#define CAUSE_MISALIGNED_STORE 6
#define CAUSE_STORE_ACCESS 7
#define CAUSE_ECALL_M 11

/* mstatus fields. */
#define MSTATUS_MIE 0x00000008
#define MSTATUS_MPIE 0x00000080
#define MSTATUS_MPP 0x00001800
#define MSTATUS_FS 0x00006000
#define MSTATUS_FS_INITIAL 0x00002000
#define MSTATUS_FS_CLEAN 0x00004000
#define MSTATUS_FS_DIRTY 0x00006000
#define MSTATUS_SD 0x80000000

/* fflags bits and rounding modes (unprivileged spec 11.2). */
#define FF_NX 0x01
#define FF_UF 0x02
#define FF_OF 0x04
#define FF_DZ 0x08
#define FF_NV 0x10
#define RM_RNE 0
#define RM_RTZ 1
#define RM_RDN 2
#define RM_RUP 3
#define RM_RMM 4

/* Offsets in isa_trap_rec. */
#define TRAP_CAUSE 0
#define TRAP_EPC 4
#define TRAP_TVAL 8
#define TRAP_COUNT 12
#define TRAP_RESUME 16
#define TRAP_MSTATUS 20

/* ---- checks: jump to isa_fail (test number in gp) unless the value matches ------------ */
/* (jal, not a branch, reaches isa_fail from anywhere in a large file) */
#define CHECK_EQ(reg, expected) \
  li t4, expected; beq reg, t4, 9999f; jal zero, isa_fail; 9999:
#define CHECK_EQ_REG(reg, reg2) \
  beq reg, reg2, 9999f; jal zero, isa_fail; 9999:
/* Raw bits of an f register. */
#define CHECK_F(freg, bits) \
  fmv.x.w t3, freg; CHECK_EQ(t3, bits)
/* Reads and clears fflags. */
#define CHECK_FFLAGS(expected) \
  csrrci t3, fflags, 0x1f; CHECK_EQ(t3, expected)
#define CHECK_CSR(csr, expected) \
  csrr t3, csr; CHECK_EQ(t3, expected)
#define FAIL jal zero, isa_fail

/* ---- integer tests ------------------------------------------------------------------- */
/* rd = op(rs1, rs2) with a0 <- op(a1, a2) */
#define TEST_RR(n, op, expected, v1, v2) \
  li gp, n; li a1, v1; li a2, v2; op a0, a1, a2; CHECK_EQ(a0, expected)
/* rd = op(rs1, imm) */
#define TEST_RI(n, op, expected, v1, imm) \
  li gp, n; li a1, v1; op a0, a1, imm; CHECK_EQ(a0, expected)
/* rd == rs1 == rs2: the operands are read before the result is written */
#define TEST_RR_SAME(n, op, expected, v1) \
  li gp, n; li a1, v1; op a1, a1, a1; CHECK_EQ(a1, expected)
/* rd = x0: nothing is written (x0 still reads 0) */
#define TEST_RR_X0(n, op, v1, v2) \
  li gp, n; li a1, v1; li a2, v2; op zero, a1, a2; CHECK_EQ(zero, 0)

/* ---- float tests (operands and results as raw bits) ---------------------------------- */
/* fd = op(fs1, fs2), then check the bits and the fflags it raised */
#define TEST_FRR(n, op, expected, flags, b1, b2) \
  li gp, n; csrwi fflags, 0; li a1, b1; li a2, b2; fmv.w.x fa1, a1; fmv.w.x fa2, a2; \
  op fa0, fa1, fa2; CHECK_F(fa0, expected); CHECK_FFLAGS(flags)
/* fd = op(fs1, fs2, fs3) */
#define TEST_FRRR(n, op, expected, flags, b1, b2, b3) \
  li gp, n; csrwi fflags, 0; li a1, b1; li a2, b2; li a3, b3; \
  fmv.w.x fa1, a1; fmv.w.x fa2, a2; fmv.w.x fa3, a3; \
  op fa0, fa1, fa2, fa3; CHECK_F(fa0, expected); CHECK_FFLAGS(flags)
/* fd = op(fs1) */
#define TEST_FR(n, op, expected, flags, b1) \
  li gp, n; csrwi fflags, 0; li a1, b1; fmv.w.x fa1, a1; op fa0, fa1; \
  CHECK_F(fa0, expected); CHECK_FFLAGS(flags)
/* the same with an explicit rounding-mode operand (rne rtz rdn rup rmm dyn) */
#define TEST_FRR_RM(n, op, rm, expected, flags, b1, b2) \
  li gp, n; csrwi fflags, 0; li a1, b1; li a2, b2; fmv.w.x fa1, a1; fmv.w.x fa2, a2; \
  op fa0, fa1, fa2, rm; CHECK_F(fa0, expected); CHECK_FFLAGS(flags)
#define TEST_FRRR_RM(n, op, rm, expected, flags, b1, b2, b3) \
  li gp, n; csrwi fflags, 0; li a1, b1; li a2, b2; li a3, b3; \
  fmv.w.x fa1, a1; fmv.w.x fa2, a2; fmv.w.x fa3, a3; \
  op fa0, fa1, fa2, fa3, rm; CHECK_F(fa0, expected); CHECK_FFLAGS(flags)
#define TEST_FR_RM(n, op, rm, expected, flags, b1) \
  li gp, n; csrwi fflags, 0; li a1, b1; fmv.w.x fa1, a1; op fa0, fa1, rm; \
  CHECK_F(fa0, expected); CHECK_FFLAGS(flags)
/* xd = op(fs1, fs2) (compares) */
#define TEST_XFF(n, op, expected, flags, b1, b2) \
  li gp, n; csrwi fflags, 0; li a1, b1; li a2, b2; fmv.w.x fa1, a1; fmv.w.x fa2, a2; \
  op a0, fa1, fa2; CHECK_EQ(a0, expected); CHECK_FFLAGS(flags)
/* xd = op(fs1) (fclass, fmv.x.w, fcvt.w[u].s with the op's own rm operand) */
#define TEST_XF(n, op, expected, flags, b1) \
  li gp, n; csrwi fflags, 0; li a1, b1; fmv.w.x fa1, a1; op a0, fa1; \
  CHECK_EQ(a0, expected); CHECK_FFLAGS(flags)
/* xd = op(fs1, rm) */
#define TEST_XF_RM(n, op, rm, expected, flags, b1) \
  li gp, n; csrwi fflags, 0; li a1, b1; fmv.w.x fa1, a1; op a0, fa1, rm; \
  CHECK_EQ(a0, expected); CHECK_FFLAGS(flags)
/* fd = op(xs1, rm) */
#define TEST_FX_RM(n, op, rm, expected, flags, v1) \
  li gp, n; csrwi fflags, 0; li a1, v1; op fa0, a1, rm; CHECK_F(fa0, expected); \
  CHECK_FFLAGS(flags)

/* ---- traps ---------------------------------------------------------------------------- */
/* Arms the handler: the next trap resumes at `label` (t5/t6 clobbered). */
#define ARM_TRAP(label) \
  la t6, label; la t5, isa_trap_rec; sw t6, TRAP_RESUME(t5)
/* After the trap: mcause and mtval must match, mepc must equal the address in epc_reg. */
#define CHECK_TRAP(cause, epc_reg, tval) \
  la t5, isa_trap_rec; lw t3, TRAP_CAUSE(t5); CHECK_EQ(t3, cause); \
  lw t3, TRAP_EPC(t5); CHECK_EQ_REG(t3, epc_reg); lw t3, TRAP_TVAL(t5); CHECK_EQ(t3, tval)
/* Test n: `insn` (one instruction) must trap with `cause` and mtval == tval; mepc must be
   its address. Execution resumes after the check. */
#define TEST_TRAP(n, cause, tval, insn) \
  li gp, n; ARM_TRAP(9998f); 9997: insn; FAIL; 9998: la t2, 9997b; CHECK_TRAP(cause, t2, tval)
/* Same, for an illegal instruction given as a raw word: mtval must be that word. */
#define TEST_ILLEGAL_WORD(n, bits) \
  TEST_TRAP(n, CAUSE_ILLEGAL_INSN, bits, .word bits)
/* Test n: the instruction (any assembly) must raise an illegal-instruction trap at its
   address, with mtval = its own bits. */
#define TEST_ILLEGAL(n, ...) \
  li gp, n; ARM_TRAP(9998f); 9997: __VA_ARGS__; FAIL; \
  9998: la t2, 9997b; lw t1, 0(t2); la t5, isa_trap_rec; lw t3, TRAP_CAUSE(t5); \
  CHECK_EQ(t3, CAUSE_ILLEGAL_INSN); lw t3, TRAP_EPC(t5); CHECK_EQ_REG(t3, t2); \
  lw t3, TRAP_TVAL(t5); CHECK_EQ_REG(t3, t1)
/* Test n: the instruction must trap with `cause` at its address; mtval is not checked. */
#define TEST_TRAP_ANY_TVAL(n, cause, ...) \
  li gp, n; ARM_TRAP(9998f); 9997: __VA_ARGS__; FAIL; \
  9998: la t2, 9997b; la t5, isa_trap_rec; lw t3, TRAP_CAUSE(t5); CHECK_EQ(t3, cause); \
  lw t3, TRAP_EPC(t5); CHECK_EQ_REG(t3, t2)

/* ---- program frame -------------------------------------------------------------------- */
#ifdef ISA_TEST_FP
#define ISA_FP_INIT li t0, MSTATUS_FS_INITIAL; csrs mstatus, t0; csrwi fcsr, 0
#else
#define ISA_FP_INIT
#endif

/* Resets the integer registers (QEMU's reset vector leaves some set), installs the trap
   handler and enables the FPU if asked, then runs the tests. */
#define ISA_TEST_BEGIN \
  .section .text.init, "ax"; .globl _start; _start: \
  li x1, 0; li x2, 0; li x3, 0; li x4, 0; li x5, 0; li x6, 0; li x7, 0; li x8, 0; \
  li x9, 0; li x10, 0; li x11, 0; li x12, 0; li x13, 0; li x14, 0; li x15, 0; li x16, 0; \
  li x17, 0; li x18, 0; li x19, 0; li x20, 0; li x21, 0; li x22, 0; li x23, 0; \
  li x24, 0; li x25, 0; li x26, 0; li x27, 0; li x28, 0; li x29, 0; li x30, 0; li x31, 0; \
  la t0, isa_trap_handler; csrw mtvec, t0; ISA_FP_INIT; \
  la sp, __stack_top; j isa_tests; \
  .text; .balign 4; isa_tests:

/* All checks passed: exit 0. Then the shared code and data. */
#define ISA_TEST_END \
  li a0, 0; j isa_exit; \
  ISA_TEST_RUNTIME

/* The trap handler, failure reporting, HTIF console and exit, and the tohost words. */
#define ISA_TEST_RUNTIME \
  .balign 4; isa_trap_handler: \
  la t6, isa_trap_rec; \
  csrr t5, mcause; sw t5, TRAP_CAUSE(t6); \
  csrr t5, mepc; sw t5, TRAP_EPC(t6); \
  csrr t5, mtval; sw t5, TRAP_TVAL(t6); \
  csrr t5, mstatus; sw t5, TRAP_MSTATUS(t6); \
  lw t5, TRAP_COUNT(t6); addi t5, t5, 1; sw t5, TRAP_COUNT(t6); \
  lw t5, TRAP_RESUME(t6); beqz t5, isa_unexpected_trap; \
  sw zero, TRAP_RESUME(t6); csrw mepc, t5; mret; \
  isa_trap_handler_end: \
  \
  isa_unexpected_trap: \
  la a0, isa_msg_fail; jal isa_puts; mv a0, gp; jal isa_putdec; \
  la a0, isa_msg_trap; jal isa_puts; lw a0, TRAP_CAUSE(t6); jal isa_puthex; \
  la a0, isa_msg_epc; jal isa_puts; lw a0, TRAP_EPC(t6); jal isa_puthex; \
  la a0, isa_msg_tval; jal isa_puts; lw a0, TRAP_TVAL(t6); jal isa_puthex; \
  j isa_fail_exit; \
  \
  isa_fail: \
  la a0, isa_msg_fail; jal isa_puts; mv a0, gp; jal isa_putdec; \
  isa_fail_exit: \
  li a0, 10; jal isa_putc; \
  mv a0, gp; li t0, 255; bgeu a0, t0, 1f; bnez a0, 2f; 1: li a0, 255; 2: \
  \
  /* a0 = status: tohost = status << 1 | 1 (low word first: the high word triggers) */ \
  isa_exit: \
  slli a0, a0, 1; ori a0, a0, 1; la t0, tohost; sw a0, 0(t0); sw zero, 4(t0); \
  1: j 1b; \
  \
  /* HTIF console (device 1, command 1): print a0's low byte; wait for the host to take \
     it (tohost back to 0) and clear fromhost. Clobbers t0, t1. */ \
  isa_putc: \
  la t0, tohost; andi t1, a0, 0xff; sw t1, 0(t0); li t1, 0x01010000; sw t1, 4(t0); \
  1: lw t1, 4(t0); bnez t1, 1b; \
  la t0, fromhost; sw zero, 0(t0); sw zero, 4(t0); ret; \
  \
  /* Print the NUL-terminated string at a0. Clobbers a0, a1, a2, t0, t1. */ \
  isa_puts: \
  mv a2, ra; mv a1, a0; \
  1: lbu a0, 0(a1); beqz a0, 2f; jal isa_putc; addi a1, a1, 1; j 1b; \
  2: jr a2; \
  \
  /* Print a0 as 0x%08x. Clobbers a0..a3, t0, t1. */ \
  isa_puthex: \
  mv a2, ra; mv a1, a0; li a0, '0'; jal isa_putc; li a0, 'x'; jal isa_putc; li a3, 28; \
  1: srl a0, a1, a3; andi a0, a0, 15; addi a0, a0, '0'; li t1, '9'; ble a0, t1, 2f; \
  addi a0, a0, 'a' - '9' - 1; 2: jal isa_putc; addi a3, a3, -4; bgez a3, 1b; \
  jr a2; \
  \
  /* Print a0 (0..999) in decimal. Clobbers a0..a3, t0..t2. */ \
  isa_putdec: \
  mv a2, ra; mv a1, a0; li a3, 100; li t2, 0; \
  1: divu a0, a1, a3; remu a1, a1, a3; or t2, t2, a0; li t1, 1; beq a3, t1, 2f; \
  beqz t2, 3f; /* leading zero */ \
  2: addi a0, a0, '0'; jal isa_putc; \
  3: li t1, 10; divu a3, a3, t1; bnez a3, 1b; \
  jr a2; \
  \
  .section .rodata; \
  isa_msg_fail: .string "isa-test FAIL: test "; \
  isa_msg_trap: .string ": unexpected trap, mcause="; \
  isa_msg_epc: .string " mepc="; \
  isa_msg_tval: .string " mtval="; \
  \
  .data; .balign 4; .globl isa_trap_rec; \
  isa_trap_rec: .word 0, 0, 0, 0, 0, 0; \
  \
  /* HTIF mailbox, as riscv-tests lay it out (QEMU's spike machine finds it by symbol). */ \
  .section .tohost, "aw", @progbits; \
  .balign 64; .globl tohost; .type tohost, @object; .size tohost, 8; tohost: .dword 0; \
  .balign 64; .globl fromhost; .type fromhost, @object; .size fromhost, 8; fromhost: .dword 0; \
  .text

#endif
