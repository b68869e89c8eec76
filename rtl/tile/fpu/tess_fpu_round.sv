// Round and pack a binary32 result (RISC-V rules).
//
// The value to round is (-1)^sign_i * 0.mant_i * 2 * 2^(exp_i - 127) with the leading one of
// mant_i at its MSB (mant_i[MANT_W-1] = 1 unless the value is zero), i.e. mant_i is the
// significand 1.xxx with its binary point after the MSB, exp_i the biased exponent that the
// value would have with an unbounded exponent range. sticky_i collects nonzero bits below
// mant_i. Handles all five rounding modes, gradual underflow (exp_i < 1 denormalizes
// before rounding), overflow to infinity or the largest finite number according to the
// mode, and the flags NX, UF (tininess detected after rounding) and OF. Combinational.
module tess_fpu_round #(
  parameter int unsigned MANT_W = 26  // >= 26
) (
  input  logic                sign_i,
  input  logic signed [11:0]  exp_i,
  input  logic [MANT_W-1:0]   mant_i,
  input  logic                sticky_i,
  input  logic [2:0]          rm_i,
  output logic [31:0]         res_o,
  output logic [4:0]          flags_o   // NX, UF, OF only (fflags order)
);
  // Rounding increment for the given mode from the kept LSB, round bit and sticky bit.
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

  // ---------------------------------------------------------------------------------------
  // Compression: only the top 26 bits (24 significand bits, round bit, one more) are needed
  // individually; everything below them, and sticky_i, only matters as one sticky bit, which
  // stays below the round position however far the value is denormalized.
  // ---------------------------------------------------------------------------------------
  logic [26:0] mc;  // {mant_i[MANT_W-1 -: 26], sticky}

  if (MANT_W > 26) begin : g_compress
    assign mc = {mant_i[MANT_W-1 -: 26], (|mant_i[MANT_W-27:0]) | sticky_i};
  end else begin : g_no_compress
    assign mc = {mant_i, sticky_i};
  end

  // ---------------------------------------------------------------------------------------
  // Rounding at the normal position (24 significant bits). Used for normal results and to
  // decide tininess after rounding: a value below 2^-126 is not tiny if rounding it to 24
  // bits with an unbounded exponent carries it up to 2^-126.
  // ---------------------------------------------------------------------------------------
  logic [23:0] keep_n;
  logic        rnd_n, stk_n, inc_n;

  assign keep_n = mc[26:3];
  assign rnd_n  = mc[2];
  assign stk_n  = |mc[1:0];
  assign inc_n  = round_inc(rm_i, sign_i, keep_n[0], rnd_n, stk_n);

  // ---------------------------------------------------------------------------------------
  // Denormalization: exp_i < 1 shifts the significand right by 1 - exp_i (capped: 26 or more
  // places leave only sticky bits) so that the result is packed with exponent field 0.
  // ---------------------------------------------------------------------------------------
  logic               denorm;
  logic [4:0]         dshift;
  logic signed [11:0] one_minus_exp;
  logic [52:0]        shifted;  // {mc, 26 zeros} >> dshift
  logic [26:0]        mant_d;
  logic               lost_d;

  assign denorm        = (exp_i < 12'sd1);
  assign one_minus_exp = 12'sd1 - exp_i;
  assign dshift        = !denorm ? 5'd0 :
                         (one_minus_exp > 12'sd26) ? 5'd26 : one_minus_exp[4:0];
  assign shifted       = {mc, 26'b0} >> dshift;
  assign mant_d        = shifted[52:26];
  assign lost_d        = |shifted[25:0];

  logic [23:0] keep;
  logic        rnd, stk, inc;
  logic [24:0] sum;

  assign keep = mant_d[26:3];
  assign rnd  = mant_d[2];
  assign stk  = (|mant_d[1:0]) | lost_d;
  assign inc  = round_inc(rm_i, sign_i, keep[0], rnd, stk);
  assign sum  = {1'b0, keep} + {24'b0, inc};

  // ---------------------------------------------------------------------------------------
  // Packing. The significand's hidden bit (sum[23]) and a rounding carry (sum[24]) add into
  // the exponent field: normal results pack (exp_i - 1) << 23 plus the rounded significand;
  // denormalized ones pack exponent 0, so a subnormal rounding up to 2^-126 becomes normal.
  // ---------------------------------------------------------------------------------------
  logic               is_zero, inexact, tiny, ovf, ovf_to_inf;
  logic signed [11:0] exp_final;
  /* verilator lint_off UNUSEDSIGNAL */
  // Packed only when not overflowing, i.e. exp_i - 1 in [0, 253]: 8 bits suffice.
  logic signed [11:0] exp_m1;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [30:0]        mag;

  assign is_zero    = ~(|mant_i) & ~sticky_i;
  assign inexact    = rnd | stk;
  assign tiny       = denorm & ((exp_i < 12'sd0) | ~(&keep_n & inc_n));
  assign exp_final  = exp_i + {11'b0, sum[24]};
  assign ovf        = ~denorm & (exp_final > 12'sd254);
  assign ovf_to_inf = (rm_i == tess_fpu_pkg::RM_RNE) | (rm_i == tess_fpu_pkg::RM_RMM) |
                      ((rm_i == tess_fpu_pkg::RM_RUP) & ~sign_i) | ((rm_i == tess_fpu_pkg::RM_RDN) & sign_i);
  assign exp_m1     = exp_i - 12'sd1;

  always_comb begin
    if (denorm) begin
      mag = {7'b0, sum[23:0]};
    end else begin
      mag = {exp_m1[7:0], 23'b0} + {6'b0, sum};
    end
  end

  always_comb begin
    flags_o = '0;
    if (is_zero) begin
      res_o = {sign_i, 31'b0};
    end else if (ovf) begin
      res_o = ovf_to_inf ? {sign_i, 8'hff, 23'b0} : {sign_i, 8'hfe, {23{1'b1}}};
      flags_o[tess_fpu_pkg::FLAG_OF] = 1'b1;
      flags_o[tess_fpu_pkg::FLAG_NX] = 1'b1;
    end else begin
      res_o = {sign_i, mag};
      flags_o[tess_fpu_pkg::FLAG_NX] = inexact;
      flags_o[tess_fpu_pkg::FLAG_UF] = tiny & inexact;
    end
  end

endmodule
