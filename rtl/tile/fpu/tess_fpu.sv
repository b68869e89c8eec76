// Tessera tile FPU (RISC-V "F", binary32): the pipelined and iterative units behind the
// one issue port of the core (docs/tile-rtl.md).
//
// Result ports by latency class; each is meaningful only in the cycle where an operation of
// its class issued (latency - 1) cycles earlier arrives, and don't-care otherwise. The
// pipelines have no stalls and no valid bits: every unit computes on whatever is presented
// each cycle, so operations of different classes can overlap freely.
//   res1  fmove  (sign injection, min/max, compares, class, moves): combinational
//   res2  fcvt   (tess_fpu_cvt):                 1 register stage
//   res3  fadd/fmul (tess_fpu_fma, REG_NORM=0):  2 register stages; add/sub run as
//         a * 1.0 +- b, mul as a * b + (zero with the product's sign), both exact rewrites
//   res4  fma    (tess_fpu_fma, REG_NORM=1):     3 register stages
//   div   fdiv/fsqrt (tess_fpu_divsqrt): 16 cycles, done on the 16th
module tess_fpu (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  // Pipelined operations
  input  logic                  issue_i,
  input  tess_fpu_pkg::fpu_op_e op_i,
  input  logic [2:0]            rm_i,
  input  logic [31:0]           a_i,
  input  logic [31:0]           b_i,
  input  logic [31:0]           c_i,
  output logic [31:0]           res1_o,
  output logic [4:0]            flags1_o,
  output logic [31:0]           res2_o,
  output logic [4:0]            flags2_o,
  output logic [31:0]           res3_o,
  output logic [4:0]            flags3_o,
  output logic [31:0]           res4_o,
  output logic [4:0]            flags4_o,
  // Iterative div/sqrt
  input  logic                  div_start_i,
  output logic                  div_done_o,
  output logic [31:0]           res_div_o,
  output logic [4:0]            flags_div_o
);
  // The units do not need issue_i: results are qualified by the core's own bookkeeping.
  /* verilator lint_off UNUSEDSIGNAL */
  logic unused_issue;
  assign unused_issue = issue_i;
  /* verilator lint_on UNUSEDSIGNAL */

  // ---------------------------------------------------------------------------------------
  // Latency 1: fmove class
  // ---------------------------------------------------------------------------------------
  tess_fpu_misc u_misc (
    .op_i    (op_i),
    .a_i     (a_i),
    .b_i     (b_i),
    .res_o   (res1_o),
    .flags_o (flags1_o)
  );

  // ---------------------------------------------------------------------------------------
  // Latency 2: conversions
  // ---------------------------------------------------------------------------------------
  tess_fpu_cvt u_cvt (
    .clk_i   (clk_i),
    .op_i    (op_i),
    .rm_i    (rm_i),
    .a_i     (a_i),
    .res_o   (res2_o),
    .flags_o (flags2_o)
  );

  // ---------------------------------------------------------------------------------------
  // Latency 3: add, sub, mul on a 3-stage instance of the FMA datapath
  // ---------------------------------------------------------------------------------------
  localparam logic [31:0] FpOne = 32'h3f80_0000;

  logic        am_is_mul;
  logic [31:0] am_b, am_c;
  assign am_is_mul = (op_i == tess_fpu_pkg::FPU_MUL);
  assign am_b      = am_is_mul ? b_i : FpOne;
  assign am_c      = am_is_mul ? {a_i[31] ^ b_i[31], 31'd0} : b_i;

  tess_fpu_fma #(.REG_NORM(1'b0)) u_addmul (
    .clk_i        (clk_i),
    .a_i          (a_i),
    .b_i          (am_b),
    .c_i          (am_c),
    .neg_prod_i   (1'b0),
    .neg_addend_i (op_i == tess_fpu_pkg::FPU_SUB),
    .rm_i         (rm_i),
    .res_o        (res3_o),
    .flags_o      (flags3_o)
  );

  // ---------------------------------------------------------------------------------------
  // Latency 4: fused multiply-add family
  // ---------------------------------------------------------------------------------------
  tess_fpu_fma #(.REG_NORM(1'b1)) u_fma (
    .clk_i        (clk_i),
    .a_i          (a_i),
    .b_i          (b_i),
    .c_i          (c_i),
    .neg_prod_i   ((op_i == tess_fpu_pkg::FPU_NMSUB) || (op_i == tess_fpu_pkg::FPU_NMADD)),
    .neg_addend_i ((op_i == tess_fpu_pkg::FPU_MSUB) || (op_i == tess_fpu_pkg::FPU_NMADD)),
    .rm_i         (rm_i),
    .res_o        (res4_o),
    .flags_o      (flags4_o)
  );

  // ---------------------------------------------------------------------------------------
  // Iterative: division and square root
  // ---------------------------------------------------------------------------------------
  tess_fpu_divsqrt u_divsqrt (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .start_i (div_start_i),
    .op_i    (op_i),
    .rm_i    (rm_i),
    .a_i     (a_i),
    .b_i     (b_i),
    .done_o  (div_done_o),
    .res_o   (res_div_o),
    .flags_o (flags_div_o)
  );

endmodule
