// Iterative division and square root (radix 2, two digits per cycle, restoring).
//
// The core holds the operation (op_i, rm_i, a_i, b_i) stable for 16 cycles and pulses
// start_i on the first. Timeline, cycle 0 = the start cycle:
//   cycle 0      : unpack, normalize subnormal significands, result exponent, special
//                  cases; load the recurrence registers
//   cycles 1..13 : two quotient / root digits per cycle (26 digits: 24 significand bits,
//                  a round bit and one more, plus the remainder as sticky bit)
//   cycle 14     : idle
//   cycle 15     : done_o = 1; rounding (tess_fpu_round) from the registers, res_o/flags_o
//                  valid combinationally in this cycle
module tess_fpu_divsqrt (
  input  logic                  clk_i,
  input  logic                  gclk_i,   // clk_i, or a copy gated while busy_o and start_i are 0
  input  logic                  rst_ni,
  input  logic                  start_i,
  input  tess_fpu_pkg::fpu_op_e op_i,     // tess_fpu_pkg::FPU_DIV or tess_fpu_pkg::FPU_SQRT
  input  logic [2:0]            rm_i,
  input  logic [31:0]           a_i,
  input  logic [31:0]           b_i,
  output logic                  busy_o,   // counting: the state below changes at the next edge
  output logic                  done_o,
  output logic [31:0]           res_o,
  output logic [4:0]            flags_o
);
  localparam logic [3:0] LastIter = 4'd13;
  localparam logic [3:0] DoneCnt  = 4'd15;

  // =======================================================================================
  // Cycle 0: unpack, normalize, exponent, specials
  // =======================================================================================
  logic        sa, sb;
  logic [7:0]  ea, eb;
  logic [22:0] fa, fb;
  assign {sa, ea, fa} = a_i;
  assign {sb, eb, fb} = b_i;

  logic a_zero, b_zero, a_inf, b_inf, a_nan, b_nan, a_snan, b_snan;
  assign a_zero = (ea == 8'd0) & (fa == 23'd0);
  assign b_zero = (eb == 8'd0) & (fb == 23'd0);
  assign a_inf  = (ea == 8'hff) & (fa == 23'd0);
  assign b_inf  = (eb == 8'hff) & (fb == 23'd0);
  assign a_nan  = (ea == 8'hff) & (fa != 23'd0);
  assign b_nan  = (eb == 8'hff) & (fb != 23'd0);
  assign a_snan = a_nan & ~fa[22];
  assign b_snan = b_nan & ~fb[22];

  logic is_sqrt;
  assign is_sqrt = (op_i == tess_fpu_pkg::FPU_SQRT);

  // Normalized significands (leading one at bit 23) and exponents (may go below 1).
  logic [23:0] ma, mb, ma_n, mb_n;
  logic [4:0]  lz_a, lz_b;
  assign ma = {ea != 8'd0, fa};
  assign mb = {eb != 8'd0, fb};

  tess_fpu_lzc #(.WIDTH(24), .CNT_W(5)) u_lzc_a (.in_i(ma), .cnt_o(lz_a));
  tess_fpu_lzc #(.WIDTH(24), .CNT_W(5)) u_lzc_b (.in_i(mb), .cnt_o(lz_b));

  assign ma_n = ma << lz_a;
  assign mb_n = mb << lz_b;

  logic signed [11:0] ea_n, eb_n, div_exp, sqrt_e, sqrt_exp;
  assign ea_n     = {4'd0, (ea == 8'd0) ? 8'd1 : ea} - {7'd0, lz_a};
  assign eb_n     = {4'd0, (eb == 8'd0) ? 8'd1 : eb} - {7'd0, lz_b};
  assign div_exp  = ea_n - eb_n + 12'sd127;
  assign sqrt_e   = ea_n - 12'sd127;                  // unbiased
  assign sqrt_exp = (sqrt_e >>> 1) + 12'sd127;        // floor(E / 2), biased

  // Special cases
  logic        special;
  logic [31:0] special_res;
  logic [4:0]  special_flags;
  logic        sign_q;
  assign sign_q = sa ^ sb;

  always_comb begin
    special       = 1'b1;
    special_res   = tess_fpu_pkg::CANONICAL_NAN;
    special_flags = '0;
    if (is_sqrt) begin
      special_flags[tess_fpu_pkg::FLAG_NV] = a_snan | (sa & ~a_zero & ~a_nan);
      if (a_nan || (sa && !a_zero)) begin
        special_res = tess_fpu_pkg::CANONICAL_NAN;
      end else if (a_zero || a_inf) begin
        special_res = a_i;                 // sqrt(+-0) = +-0, sqrt(+inf) = +inf
      end else begin
        special = 1'b0;
      end
    end else begin
      if (a_nan || b_nan) begin
        special_flags[tess_fpu_pkg::FLAG_NV] = a_snan | b_snan;
      end else if ((a_zero && b_zero) || (a_inf && b_inf)) begin
        special_flags[tess_fpu_pkg::FLAG_NV] = 1'b1;
      end else if (a_inf) begin
        special_res = {sign_q, 8'hff, 23'd0};
      end else if (b_zero) begin
        special_res = {sign_q, 8'hff, 23'd0};
        special_flags[tess_fpu_pkg::FLAG_DZ] = 1'b1;
      end else if (a_zero || b_inf) begin
        special_res = {sign_q, 31'd0};
      end else begin
        special = 1'b0;
      end
    end
  end

  // =======================================================================================
  // Recurrence state
  // =======================================================================================
  logic [3:0]         cnt_q;      // 0 idle, 1..15 cycles since start
  logic               sqrt_q;
  logic [2:0]         rm_q;
  logic               sign_q_r;
  logic signed [11:0] exp_q;
  logic               special_q;
  logic [31:0]        special_res_q;
  logic [4:0]         special_flags_q;
  logic [29:0]        rem_q;      // partial remainder
  logic [25:0]        quo_q;      // quotient / root digits so far
  logic [51:0]        rad_q;      // sqrt: radicand bits not yet consumed (two per digit)
  logic [23:0]        div_q;      // div: divisor significand

  // Two restoring steps per cycle.
  logic [29:0] rem_d;
  logic [25:0] quo_d;
  logic [51:0] rad_d;
  logic [29:0] trial;

  always_comb begin
    rem_d = rem_q;
    quo_d = quo_q;
    rad_d = rad_q;
    trial = '0;
    for (int k = 0; k < 2; k++) begin
      if (sqrt_q) begin
        // rem = 4*rem + next two radicand bits; try subtracting 4*root + 1.
        rem_d = {rem_d[27:0], rad_d[51:50]};
        rad_d = {rad_d[49:0], 2'b00};
        trial = {2'b00, quo_d, 2'b01};
        if (rem_d >= trial) begin
          rem_d = rem_d - trial;
          quo_d = {quo_d[24:0], 1'b1};
        end else begin
          quo_d = {quo_d[24:0], 1'b0};
        end
      end else begin
        // rem < 2 * divisor: subtract the divisor if possible, then double.
        trial = {6'd0, div_q};
        if (rem_d >= trial) begin
          rem_d = rem_d - trial;
          quo_d = {quo_d[24:0], 1'b1};
        end else begin
          quo_d = {quo_d[24:0], 1'b0};
        end
        rem_d = {rem_d[28:0], 1'b0};
      end
    end
  end

  // Control: counter with reset.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cnt_q <= '0;
    end else if (start_i) begin
      cnt_q <= 4'd1;
    end else if (cnt_q == DoneCnt) begin
      cnt_q <= '0;
    end else if (cnt_q != 4'd0) begin
      cnt_q <= cnt_q + 4'd1;
    end
  end

  // Datapath: no reset.
  // Loaded only at a start or while counting (busy_o), so it may run on the gated clock.
  always_ff @(posedge gclk_i) begin
    if (start_i) begin
      sqrt_q          <= is_sqrt;
      rm_q            <= rm_i;
      sign_q_r        <= is_sqrt ? 1'b0 : sign_q;
      exp_q           <= is_sqrt ? sqrt_exp : div_exp;
      special_q       <= special;
      special_res_q   <= special_res;
      special_flags_q <= special_flags;
      quo_q           <= '0;
      div_q           <= mb_n;
      if (is_sqrt) begin
        rem_q <= '0;
        // radicand = significand * 2^27, or * 2^28 when the unbiased exponent is odd
        rad_q <= sqrt_e[0] ? {ma_n, 28'd0} : {1'b0, ma_n, 27'd0};
      end else begin
        rem_q <= {6'd0, ma_n};
        rad_q <= '0;
      end
    end else if ((cnt_q != 4'd0) && (cnt_q <= LastIter)) begin
      rem_q <= rem_d;
      quo_q <= quo_d;
      rad_q <= rad_d;
    end
  end

  // =======================================================================================
  // Cycle 15: round
  // =======================================================================================
  logic [25:0]        mant;
  logic signed [11:0] mant_exp;
  logic [31:0]        round_res;
  logic [4:0]         round_flags;

  // A quotient below 1 (digit 0 of weight 2^0 is zero) is shifted up one place.
  assign mant     = quo_q[25] ? quo_q : {quo_q[24:0], 1'b0};
  assign mant_exp = quo_q[25] ? exp_q : (exp_q - 12'sd1);

  tess_fpu_round #(.MANT_W(26)) u_round (
    .sign_i   (sign_q_r),
    .exp_i    (mant_exp),
    .mant_i   (mant),
    .sticky_i (rem_q != '0),
    .rm_i     (rm_q),
    .res_o    (round_res),
    .flags_o  (round_flags)
  );

  assign busy_o  = (cnt_q != 4'd0);
  assign done_o  = (cnt_q == DoneCnt);
  assign res_o   = special_q ? special_res_q : round_res;
  assign flags_o = special_q ? special_flags_q : round_flags;

endmodule
