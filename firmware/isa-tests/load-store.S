/* load-store: lb lh lw lbu lhu sb sh sw (unprivileged spec 2.6). Little-endian byte and
   halfword lanes, sign vs zero extension, stores of the low bits only, offsets -2048 and
   +2047, negative offsets, rd == rs1 on loads, loads into x0 (discarded), stores of x0,
   a store followed at once by a load of the same bytes. Misaligned accesses are in
   iss-traps-mem.S (QEMU performs them, tessera traps). Runs on the ISS and on QEMU. */
#include "isa_test.h"

#define TEST_LOAD(n, op, expected, offset, base) \
  li gp, n; la a1, base; op a0, offset(a1); CHECK_EQ(a0, expected)

ISA_TEST_BEGIN
  /* loads from known data: ls_data = 0x80 0x7f 0xff 0x01 | 0x00 0x80 0xff 0x7f | ... */
  TEST_LOAD(1, lb, 0xffffff80, 0, ls_data)
  TEST_LOAD(2, lb, 0x0000007f, 1, ls_data)
  TEST_LOAD(3, lb, 0xffffffff, 2, ls_data)
  TEST_LOAD(4, lb, 0x00000001, 3, ls_data)
  TEST_LOAD(5, lbu, 0x00000080, 0, ls_data)
  TEST_LOAD(6, lbu, 0x0000007f, 1, ls_data)
  TEST_LOAD(7, lbu, 0x000000ff, 2, ls_data)
  TEST_LOAD(8, lh, 0x00007f80, 0, ls_data)
  TEST_LOAD(9, lh, 0x000001ff, 2, ls_data)
  TEST_LOAD(10, lh, 0xffff8000, 4, ls_data)
  TEST_LOAD(11, lh, 0x00007fff, 6, ls_data)
  TEST_LOAD(12, lhu, 0x00008000, 4, ls_data)
  TEST_LOAD(13, lhu, 0x0000ffff, 8, ls_data)
  TEST_LOAD(14, lh, 0xffffffff, 8, ls_data)
  TEST_LOAD(15, lw, 0x01ff7f80, 0, ls_data)
  TEST_LOAD(16, lw, 0x7fff8000, 4, ls_data)
  TEST_LOAD(17, lw, 0xffffffff, 8, ls_data)
  TEST_LOAD(18, lw, 0x12345678, 12, ls_data)
  /* negative offsets from the end of the block */
  TEST_LOAD(20, lw, 0x12345678, -4, ls_data_end)
  TEST_LOAD(21, lb, 0x00000012, -1, ls_data_end)
  TEST_LOAD(22, lhu, 0x00001234, -2, ls_data_end)
  TEST_LOAD(23, lbu, 0x00000078, -4, ls_data_end)

  /* the extreme 12-bit offsets */
  li gp, 24; la a1, ls_far; li a2, 2048; add a1, a1, a2; lw a0, -2048(a1); CHECK_EQ(a0, 0xa5a5a5a5)
  li gp, 25; la a1, ls_far; addi a1, a1, -2047; lw a0, 2047(a1); CHECK_EQ(a0, 0xa5a5a5a5)
  /* (2047 is odd: a1 = ls_far - 2047 makes the sum word-aligned) */

  /* rd == rs1, and rd = x0 */
  li gp, 26; la a1, ls_data; lw a1, 12(a1); CHECK_EQ(a1, 0x12345678)
  li gp, 27; la a1, ls_data; lw zero, 0(a1); lb zero, 0(a1); lhu zero, 0(a1); CHECK_EQ(zero, 0)

  /* stores write only their width: sb into each byte lane of a word */
  li gp, 30; la a1, ls_buf; li a0, 0xffffffff; sw a0, 0(a1)
  li a0, 0x11223300; sb a0, 0(a1); lw a2, 0(a1); CHECK_EQ(a2, 0xffffff00)
  li gp, 31; li a0, 0x11; sb a0, 1(a1); lw a2, 0(a1); CHECK_EQ(a2, 0xffff1100)
  li gp, 32; li a0, 0xa522; sb a0, 2(a1); lw a2, 0(a1); CHECK_EQ(a2, 0xff221100)
  li gp, 33; li a0, 0x33; sb a0, 3(a1); lw a2, 0(a1); CHECK_EQ(a2, 0x33221100)
  /* sh into each halfword lane */
  li gp, 34; li a0, 0xdeadbeef; sh a0, 0(a1); lw a2, 0(a1); CHECK_EQ(a2, 0x3322beef)
  li gp, 35; li a0, 0x0000cafe; sh a0, 2(a1); lw a2, 0(a1); CHECK_EQ(a2, 0xcafebeef)
  /* the neighbouring words are untouched */
  li gp, 36; lw a2, -4(a1); CHECK_EQ(a2, 0x5a5a5a5a); lw a2, 4(a1); CHECK_EQ(a2, 0x5a5a5a5a)
  /* sw with a negative offset, then the loads see every lane */
  li gp, 37; addi a3, a1, 8; li a0, 0x8081fe7f; sw a0, -8(a3)
  lb a2, 0(a1); CHECK_EQ(a2, 0x7f)
  lb a2, 1(a1); CHECK_EQ(a2, 0xfffffffe)
  lbu a2, 2(a1); CHECK_EQ(a2, 0x81)
  lh a2, 2(a1); CHECK_EQ(a2, 0xffff8081)
  lhu a2, 0(a1); CHECK_EQ(a2, 0xfe7f)
  /* a store of x0 */
  li gp, 38; sw zero, 0(a1); lw a2, 0(a1); CHECK_EQ(a2, 0)
  li gp, 39; li a0, -1; sw a0, 0(a1); sb zero, 1(a1); sh zero, 2(a1); lw a2, 0(a1); CHECK_EQ(a2, 0xff)
  /* store then load at once, through a different base register */
  li gp, 40; li a0, 0x600dcafe; sw a0, 0(a1); addi a4, a1, 2; lhu a2, 0(a4); CHECK_EQ(a2, 0x600d)
  /* rs2 == rs1: the address register is also the data */
  li gp, 41; sw a1, 0(a1); lw a2, 0(a1); CHECK_EQ_REG(a2, a1)
ISA_TEST_END

  .data
  .balign 4
ls_data:
  .byte 0x80, 0x7f, 0xff, 0x01
  .byte 0x00, 0x80, 0xff, 0x7f
  .byte 0xff, 0xff, 0xff, 0xff
  .word 0x12345678
ls_data_end:
  .word 0x5a5a5a5a
ls_buf:
  .word 0
  .word 0x5a5a5a5a
ls_far:
  .word 0xa5a5a5a5
