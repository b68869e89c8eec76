// Integer <-> binary32 conversions (class fcvt), two stages:
//   S0 (issue cycle): float -> int: unpack, align the significand to the integer binary
//                     point (integer part, round bit, sticky); int -> float: absolute
//                     value, leading-zero count, normalization
//   S1 (next cycle) : rounding, saturation and flags; result on res_o/flags_o
// Conversions to integers saturate: NaN and +inf/too large give the largest value, -inf
// and too negative the smallest, with NV (and no NX); otherwise NX when inexact.
module tess_fpu_cvt (
  input  logic                  clk_i,
  input  logic                  load_i,   // op_i is a conversion: the S1 registers load
  input  tess_fpu_pkg::fpu_op_e op_i,
  input  logic [2:0]            rm_i,
  input  logic [31:0]           a_i,
  output logic [31:0]           res_o,
  output logic [4:0]            flags_o
);
  // =======================================================================================
  // S0, float -> int
  // =======================================================================================
  logic        sa;
  logic [7:0]  ea;
  logic [22:0] fa;
  assign {sa, ea, fa} = a_i;

  logic a_nan, a_big, a_tiny, a_zero;
  assign a_nan  = (ea == 8'hff) & (fa != 23'd0);
  assign a_big  = ea >= 8'd159;                 // |a| >= 2^32, or inf / NaN
  assign a_tiny = ea <= 8'd125;                 // |a| < 0.5 (including zero and subnormals)
  assign a_zero = (ea == 8'd0) & (fa == 23'd0);

  // 64-bit fixed point: {significand, 40 zeros} >> (31 - E), E = ea - 127 in [-1, 31], puts
  // the integer part in [63:32] and the fraction in [31:0] with no bits lost.
  logic [63:0] fx;
  /* verilator lint_off UNUSEDSIGNAL */
  // Only shifts 0..32 matter (E in [-1, 31]); other exponents take the a_tiny/a_big paths.
  logic [7:0]  fx_shift;
  /* verilator lint_on UNUSEDSIGNAL */
  assign fx_shift = 8'd158 - ea;
  assign fx       = {1'b1, fa, 40'd0} >> fx_shift[5:0];

  logic [31:0] f2i_int;
  logic        f2i_rnd, f2i_stk;
  always_comb begin
    if (a_tiny) begin
      f2i_int = '0;
      f2i_rnd = 1'b0;
      f2i_stk = ~a_zero;
    end else begin
      f2i_int = fx[63:32];
      f2i_rnd = fx[31];
      f2i_stk = |fx[30:0];
    end
  end

  // =======================================================================================
  // S0, int -> float
  // =======================================================================================
  logic        i2f_sign;
  logic [31:0] i2f_abs, i2f_norm;
  logic [5:0]  i2f_lz;
  assign i2f_sign = (op_i == tess_fpu_pkg::FPU_CVT_S_W) & a_i[31];
  assign i2f_abs  = i2f_sign ? (~a_i + 32'd1) : a_i;

  tess_fpu_lzc #(.WIDTH(32), .CNT_W(6)) u_lzc (
    .in_i  (i2f_abs),
    .cnt_o (i2f_lz)
  );

  assign i2f_norm = i2f_abs << i2f_lz[4:0];  // (zero stays zero whatever the shift)

  // S0 -> S1 registers (shared by both directions where possible). They load only while a
  // conversion is presented: its result is read only in the cycle after one issued, and
  // between conversions they hold still (tess_fpu gates their clock).
  tess_fpu_pkg::fpu_op_e     s1_op;
  logic [2:0]  s1_rm;
  logic        s1_sign, s1_nan, s1_big, s1_rnd, s1_stk;
  logic [31:0] s1_val;    // f2i: integer part; i2f: normalized magnitude
  logic [5:0]  s1_lz;

  always_ff @(posedge clk_i) begin
    if (load_i) begin
      s1_op <= op_i;
      s1_rm <= rm_i;
      if ((op_i == tess_fpu_pkg::FPU_CVT_S_W) || (op_i == tess_fpu_pkg::FPU_CVT_S_WU)) begin
        s1_sign <= i2f_sign;
        s1_val  <= i2f_norm;
      end else begin
        s1_sign <= sa;
        s1_val  <= f2i_int;
      end
      s1_nan <= a_nan;
      s1_big <= a_big;
      s1_rnd <= f2i_rnd;
      s1_stk <= f2i_stk;
      s1_lz  <= i2f_lz;
    end
  end

  // =======================================================================================
  // S1, float -> int: round, saturate
  // =======================================================================================
  function automatic logic round_inc(input logic [2:0] rm, input logic sign, input logic lsb,
                                     input logic rnd, input logic stk);
    case (rm)
      tess_fpu_pkg::RM_RTZ:  round_inc = 1'b0;
      tess_fpu_pkg::RM_RDN:  round_inc = sign & (rnd | stk);
      tess_fpu_pkg::RM_RUP:  round_inc = ~sign & (rnd | stk);
      tess_fpu_pkg::RM_RMM:  round_inc = rnd;
      default: round_inc = rnd & (stk | lsb);  // RNE
    endcase
  endfunction

  logic        f2i_inc, f2i_inexact;
  logic [32:0] f2i_mag;
  logic [31:0] f2i_res;
  logic [4:0]  f2i_flags;

  assign f2i_inc     = round_inc(s1_rm, s1_sign, s1_val[0], s1_rnd, s1_stk);
  assign f2i_mag     = {1'b0, s1_val} + {32'd0, f2i_inc};
  assign f2i_inexact = s1_rnd | s1_stk;

  always_comb begin
    f2i_flags = '0;
    if (s1_op == tess_fpu_pkg::FPU_CVT_W_S) begin
      if (s1_nan) begin
        f2i_res = 32'h7fff_ffff;
        f2i_flags[tess_fpu_pkg::FLAG_NV] = 1'b1;
      end else if (s1_big || (!s1_sign && (f2i_mag > 33'h0_7fff_ffff)) ||
                   (s1_sign && (f2i_mag > 33'h0_8000_0000))) begin
        f2i_res = s1_sign ? 32'h8000_0000 : 32'h7fff_ffff;
        f2i_flags[tess_fpu_pkg::FLAG_NV] = 1'b1;
      end else begin
        f2i_res = s1_sign ? (~f2i_mag[31:0] + 32'd1) : f2i_mag[31:0];
        f2i_flags[tess_fpu_pkg::FLAG_NX] = f2i_inexact;
      end
    end else begin  // FPU_CVT_WU_S
      if (s1_nan) begin
        f2i_res = 32'hffff_ffff;
        f2i_flags[tess_fpu_pkg::FLAG_NV] = 1'b1;
      end else if (s1_big || (s1_sign && (f2i_mag != 33'd0)) || f2i_mag[32]) begin
        f2i_res = s1_sign ? 32'h0000_0000 : 32'hffff_ffff;
        f2i_flags[tess_fpu_pkg::FLAG_NV] = 1'b1;
      end else begin
        f2i_res = f2i_mag[31:0];
        f2i_flags[tess_fpu_pkg::FLAG_NX] = f2i_inexact;
      end
    end
  end

  // =======================================================================================
  // S1, int -> float: round (never tiny, never overflows)
  // =======================================================================================
  logic signed [11:0] i2f_exp;
  logic [31:0]        i2f_res;
  logic [4:0]         i2f_flags;

  assign i2f_exp = 12'sd158 - {6'd0, s1_lz};

  tess_fpu_round #(.MANT_W(32)) u_round (
    .sign_i   (s1_sign),
    .exp_i    (i2f_exp),
    .mant_i   (s1_val),
    .sticky_i (1'b0),
    .rm_i     (s1_rm),
    .res_o    (i2f_res),
    .flags_o  (i2f_flags)
  );

  always_comb begin
    if ((s1_op == tess_fpu_pkg::FPU_CVT_S_W) || (s1_op == tess_fpu_pkg::FPU_CVT_S_WU)) begin
      res_o   = i2f_res;
      flags_o = i2f_flags;
    end else begin
      res_o   = f2i_res;
      flags_o = f2i_flags;
    end
  end

endmodule
