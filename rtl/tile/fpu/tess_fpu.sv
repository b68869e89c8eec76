// Tessera tile FPU (RISC-V "F", binary32): the pipelined and iterative units behind the
// one issue port of the core (docs/tile-rtl.md).
//
// Result ports by latency class; each is meaningful only in the cycle where an operation of
// its class issued (latency - 1) cycles earlier arrives, and don't-care otherwise. The
// pipelines have no stalls and no valid bits: every unit computes on whatever is presented
// each cycle, so operations of different classes can overlap freely.
//   res1  fmove  (sign injection, min/max, compares, class, moves): combinational
//   res2  fcvt   (tess_fpu_cvt):                 1 register stage
//   res4  fadd/fmul/fma (tess_fpu_fma):   3 register stages, one pipeline for all seven:
//         add/sub run as a * 1.0 +- b, mul as a * b + (zero with the product's sign), both
//         exact rewrites
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
  // Idle gating (tess_clk_gate) of the units a compute phase hardly uses: the conversion
  // unit's registers load only while a conversion is presented (op_i, from the core's E1
  // register) and the divider's state only at a start and while it counts, so no flop behind
  // the gate changes at an edge it holds back; their rounding logic, which reads only those
  // flops, is then not evaluated either. One gate for both: each gate costs the simulator
  // its own scheduling every cycle (docs/machine-rtl.md, "Simulation speed").
  // ---------------------------------------------------------------------------------------
  logic cvt_op, div_busy, rare_clk;
  assign cvt_op = (op_i == tess_fpu_pkg::FPU_CVT_W_S) || (op_i == tess_fpu_pkg::FPU_CVT_WU_S) ||
                  (op_i == tess_fpu_pkg::FPU_CVT_S_W) || (op_i == tess_fpu_pkg::FPU_CVT_S_WU);
  tess_clk_gate u_gate (.clk_i, .en_i(cvt_op || div_start_i || div_busy), .clk_o(rare_clk));

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
    .clk_i   (rare_clk),
    .load_i  (cvt_op),
    .op_i    (op_i),
    .rm_i    (rm_i),
    .a_i     (a_i),
    .res_o   (res2_o),
    .flags_o (flags2_o)
  );

  // ---------------------------------------------------------------------------------------
  // Latency 4: add, sub, mul and the fused multiply-add family on one FMA pipeline
  // ---------------------------------------------------------------------------------------
  localparam logic [31:0] FpOne = 32'h3f80_0000;

  logic        is_add, is_mul;
  logic [31:0] fma_b, fma_c;
  assign is_add = (op_i == tess_fpu_pkg::FPU_ADD) || (op_i == tess_fpu_pkg::FPU_SUB);
  assign is_mul = (op_i == tess_fpu_pkg::FPU_MUL);
  always_comb begin
    fma_b = b_i;
    fma_c = c_i;
    if (is_add) begin
      fma_b = FpOne;                           // a * 1.0 +- b
      fma_c = b_i;
    end else if (is_mul) begin
      fma_c = {a_i[31] ^ b_i[31], 31'd0};      // a * b + zero of the product's sign
    end
  end

  tess_fpu_fma u_fma (
    .clk_i        (clk_i),
    .a_i          (a_i),
    .b_i          (fma_b),
    .c_i          (fma_c),
    .neg_prod_i   ((op_i == tess_fpu_pkg::FPU_NMSUB) || (op_i == tess_fpu_pkg::FPU_NMADD)),
    .neg_addend_i ((op_i == tess_fpu_pkg::FPU_SUB) || (op_i == tess_fpu_pkg::FPU_MSUB) ||
                   (op_i == tess_fpu_pkg::FPU_NMADD)),
    .rm_i         (rm_i),
    .res_o        (res4_o),
    .flags_o      (flags4_o)
  );

  // ---------------------------------------------------------------------------------------
  // Iterative: division and square root
  // ---------------------------------------------------------------------------------------
  tess_fpu_divsqrt u_divsqrt (
    .clk_i   (clk_i),
    .gclk_i  (rare_clk),
    .rst_ni  (rst_ni),
    .start_i (div_start_i),
    .op_i    (op_i),
    .rm_i    (rm_i),
    .a_i     (a_i),
    .b_i     (b_i),
    .busy_o  (div_busy),
    .done_o  (div_done_o),
    .res_o   (res_div_o),
    .flags_o (flags_div_o)
  );

endmodule
