// Fused multiply-add datapath: res = (-1)^neg_prod_i * (a_i * b_i) + (-1)^neg_addend_i * c_i,
// rounded once. tess_fpu also runs add/sub (a * 1.0 +- b) and mul (a * b + signed zero)
// through an instance of it.
//
// Pipeline (results appear on res_o/flags_o, combinationally from the last register):
//   S0 (issue cycle): unpack, special cases, 24x24 significand product, exponent
//                     arithmetic, alignment of the addend against the product
//   S1              : 77-bit add or subtract, negation of a negative difference
//   S2              : leading-zero count and normalization shift
//   S3              : rounding and packing (tess_fpu_round), special-case mux
// Registers between each pair of stages: latency 4, the result in the third cycle after the
// issue cycle (one pipeline for fadd, fsub, fmul and the four fma forms; there was a
// variant with S2 and S3 merged for add and mul, whose LZC, normalization shift and
// rounding in one cycle was the F unit's longest path). The pipeline has no stalls and no valid bits: every stage advances every cycle, and the result is
// meaningful in the cycle where the operation issued LATENCY-1 cycles earlier arrives.
//
// Alignment window (77 bits, sum[76:0]): the product P = ma*mb (48 bits, value P * 2^-46
// * 2^(ep-127)) sits at bits [49:2], so bit 48 has weight 2^(ref_exp-127). The addend's
// 24-bit significand starts at bits [75:52] (its leading bit 27 places above bit 48) and is
// shifted right by ep - ec + 27, clamped to [0, 76]; bits shifted below bit 0 become a
// sticky bit. When the addend is more than 27 binades above the product the shift clamps
// to 0 and the reference exponent follows the addend: the product then lies at least two
// bits below the addend's LSB and only acts as round/sticky information, which it does
// exactly. A zero product never enters the datapath (special case: the exact result is c
// or a signed zero); a zero addend is shifted out entirely.
module tess_fpu_fma (
  input  logic        clk_i,
  input  logic [31:0] a_i,
  input  logic [31:0] b_i,
  input  logic [31:0] c_i,
  input  logic        neg_prod_i,    // negate the product
  input  logic        neg_addend_i,  // negate the addend
  input  logic [2:0]  rm_i,
  output logic [31:0] res_o,
  output logic [4:0]  flags_o
);
  localparam int unsigned SumW = 77;

  // =======================================================================================
  // S0: unpack, specials, product, alignment
  // =======================================================================================
  logic       sa, sb, sc;
  logic [7:0] ea, eb, ec;
  logic [22:0] fa, fb, fc;
  assign {sa, ea, fa} = a_i;
  assign {sb, eb, fb} = b_i;
  assign {sc, ec, fc} = c_i;

  logic a_zero, b_zero, c_zero, a_inf, b_inf, c_inf, a_nan, b_nan, c_nan, a_snan, b_snan, c_snan;
  assign a_zero = (ea == 8'd0) & (fa == 23'd0);
  assign b_zero = (eb == 8'd0) & (fb == 23'd0);
  assign c_zero = (ec == 8'd0) & (fc == 23'd0);
  assign a_inf  = (ea == 8'hff) & (fa == 23'd0);
  assign b_inf  = (eb == 8'hff) & (fb == 23'd0);
  assign c_inf  = (ec == 8'hff) & (fc == 23'd0);
  assign a_nan  = (ea == 8'hff) & (fa != 23'd0);
  assign b_nan  = (eb == 8'hff) & (fb != 23'd0);
  assign c_nan  = (ec == 8'hff) & (fc != 23'd0);
  assign a_snan = a_nan & ~fa[22];
  assign b_snan = b_nan & ~fb[22];
  assign c_snan = c_nan & ~fc[22];

  // Effective signs of the product and the addend.
  logic ps, cs, eff_sub;
  assign ps      = sa ^ sb ^ neg_prod_i;
  assign cs      = sc ^ neg_addend_i;
  assign eff_sub = ps ^ cs;

  // Special cases: NaN operands, infinities, zero product. The result is exact (or NaN).
  logic        any_nan, inv_mul, prod_inf, inv_add, prod_zero, special;
  logic [31:0] special_res;
  logic [4:0]  special_flags;

  assign any_nan   = a_nan | b_nan | c_nan;
  assign inv_mul   = (a_inf & b_zero) | (a_zero & b_inf);     // 0 * inf, even with c = qNaN
  assign prod_inf  = (a_inf | b_inf) & ~a_nan & ~b_nan & ~inv_mul;
  assign inv_add   = prod_inf & c_inf & eff_sub & ~c_nan;       // inf - inf
  assign prod_zero = a_zero | b_zero;
  assign special   = any_nan | inv_mul | a_inf | b_inf | c_inf | prod_zero;

  always_comb begin
    special_flags = '0;
    special_flags[tess_fpu_pkg::FLAG_NV] = a_snan | b_snan | c_snan | inv_mul | inv_add;
    if (any_nan | inv_mul | inv_add) begin
      special_res = tess_fpu_pkg::CANONICAL_NAN;
    end else if (prod_inf) begin
      special_res = {ps, 8'hff, 23'd0};
    end else if (c_inf) begin
      special_res = {cs, 8'hff, 23'd0};
    end else if (!c_zero) begin
      special_res = {cs, c_i[30:0]};  // 0 * finite + c = c exactly
    end else if (!eff_sub) begin
      special_res = {ps, 31'd0};       // zeros of the same sign
    end else begin
      special_res = {rm_i == tess_fpu_pkg::RM_RDN, 31'd0};  // +0 + -0
    end
  end

  // Significands (hidden bit from the exponent field) and effective exponents (subnormals
  // have exponent 1).
  logic [23:0] ma, mb, mc;
  logic signed [11:0] ea_s, eb_s, ec_s;
  assign ma   = {ea != 8'd0, fa};
  assign mb   = {eb != 8'd0, fb};
  assign mc   = {ec != 8'd0, fc};
  assign ea_s = {4'd0, (ea == 8'd0) ? 8'd1 : ea};
  assign eb_s = {4'd0, (eb == 8'd0) ? 8'd1 : eb};
  assign ec_s = {4'd0, (ec == 8'd0) ? 8'd1 : ec};

  logic [47:0]        prod;
  logic signed [11:0] ep, shamt_raw, ref_exp;
  logic [6:0]         shamt;
  logic [151:0]       addend_sh;  // {window[75:0], below-window[75:0]}

  assign prod      = ma * mb;
  assign ep        = ea_s + eb_s - 12'sd127;
  assign shamt_raw = ep - ec_s + 12'sd27;

  always_comb begin
    if (c_zero) begin
      shamt   = 7'd76;  // nothing to add
      ref_exp = ep;
    end else if (shamt_raw <= 12'sd0) begin
      shamt   = 7'd0;   // addend far above the product
      ref_exp = ec_s - 12'sd27;
    end else if (shamt_raw >= 12'sd76) begin
      shamt   = 7'd76;  // addend entirely below the window: sticky only
      ref_exp = ep;
    end else begin
      shamt   = shamt_raw[6:0];
      ref_exp = ep;
    end
  end

  assign addend_sh = {mc, 128'd0} >> shamt;

  // S0 -> S1 registers
  logic [47:0]        s1_prod;
  logic [75:0]        s1_addend;
  logic               s1_sticky, s1_eff_sub, s1_ps;
  logic signed [11:0] s1_ref_exp;
  logic [2:0]         s1_rm;
  logic               s1_special;
  logic [31:0]        s1_special_res;
  logic [4:0]         s1_special_flags;

  always_ff @(posedge clk_i) begin
    s1_prod          <= prod;
    s1_addend        <= addend_sh[151:76];
    s1_sticky        <= |addend_sh[75:0];
    s1_eff_sub       <= eff_sub;
    s1_ps            <= ps;
    s1_ref_exp       <= ref_exp;
    s1_rm            <= rm_i;
    s1_special       <= special;
    s1_special_res   <= special_res;
    s1_special_flags <= special_flags;
  end

  // =======================================================================================
  // S1: add / subtract
  // =======================================================================================
  // Effective subtraction adds the one's complement of the aligned addend, plus one unless
  // nonzero addend bits were shifted out below the window: that yields floor(P - A_exact)
  // with the sticky bit holding the (nonzero) remainder. A negative difference is only
  // possible with no bits shifted out (the addend is then not far below the product), so
  // its magnitude is the exact two's complement negation.
  logic [SumW-1:0] p_win, a_win, sum_raw, mag;
  logic            sum_neg, sign_s1, zero_s1;

  assign p_win   = {27'd0, s1_prod, 2'b00};
  assign a_win   = {1'b0, s1_addend};
  assign sum_raw = s1_eff_sub ? (p_win + ~a_win + {76'd0, ~s1_sticky}) : (p_win + a_win);
  assign sum_neg = s1_eff_sub & sum_raw[SumW-1];
  assign mag     = sum_neg ? (~sum_raw + {76'd0, 1'b1}) : sum_raw;
  assign zero_s1 = (sum_raw == '0) & ~s1_sticky;
  // An exact zero from cancellation is +0, or -0 when rounding down.
  assign sign_s1 = zero_s1 ? (s1_rm == tess_fpu_pkg::RM_RDN) : (s1_ps ^ sum_neg);

  // S1 -> S2 registers
  logic [SumW-1:0]    s2_mag;
  logic               s2_sticky, s2_sign;
  logic signed [11:0] s2_ref_exp;
  logic [2:0]         s2_rm;
  logic               s2_special;
  logic [31:0]        s2_special_res;
  logic [4:0]         s2_special_flags;

  always_ff @(posedge clk_i) begin
    s2_mag           <= mag;
    s2_sticky        <= s1_sticky;
    s2_sign          <= sign_s1;
    s2_ref_exp       <= s1_ref_exp;
    s2_rm            <= s1_rm;
    s2_special       <= s1_special;
    s2_special_res   <= s1_special_res;
    s2_special_flags <= s1_special_flags;
  end

  // =======================================================================================
  // S2: normalize. The leading one moves to bit 76, whose weight is 2^(ref_exp + 28 - 127).
  // =======================================================================================
  logic [6:0]         lz;
  logic [SumW-1:0]    norm;
  logic signed [11:0] norm_exp;

  tess_fpu_lzc #(.WIDTH(SumW), .CNT_W(7)) u_lzc (
    .in_i  (s2_mag),
    .cnt_o (lz)
  );

  assign norm     = s2_mag << lz;
  assign norm_exp = s2_ref_exp + 12'sd28 - {5'd0, lz};

  // S2 -> S3 registers
  logic [SumW-1:0]    s3_norm;
  logic signed [11:0] s3_exp;
  logic               s3_sticky, s3_sign;
  logic [2:0]         s3_rm;
  logic               s3_special;
  logic [31:0]        s3_special_res;
  logic [4:0]         s3_special_flags;

  always_ff @(posedge clk_i) begin
    s3_norm          <= norm;
    s3_exp           <= norm_exp;
    s3_sticky        <= s2_sticky;
    s3_sign          <= s2_sign;
    s3_rm            <= s2_rm;
    s3_special       <= s2_special;
    s3_special_res   <= s2_special_res;
    s3_special_flags <= s2_special_flags;
  end

  // =======================================================================================
  // S3: round and pack
  // =======================================================================================
  logic [31:0] round_res;
  logic [4:0]  round_flags;

  tess_fpu_round #(.MANT_W(SumW)) u_round (
    .sign_i   (s3_sign),
    .exp_i    (s3_exp),
    .mant_i   (s3_norm),
    .sticky_i (s3_sticky),
    .rm_i     (s3_rm),
    .res_o    (round_res),
    .flags_o  (round_flags)
  );

  assign res_o   = s3_special ? s3_special_res : round_res;
  assign flags_o = s3_special ? s3_special_flags : round_flags;

endmodule
