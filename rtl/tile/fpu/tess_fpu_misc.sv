// Single-cycle FP operations (class fmove): sign injection, minimumNumber/maximumNumber,
// comparisons, classification and the moves between x and f registers. Combinational.
module tess_fpu_misc (
  input  tess_fpu_pkg::fpu_op_e op_i,
  input  logic [31:0]           a_i,
  input  logic [31:0]           b_i,
  output logic [31:0]           res_o,
  output logic [4:0]            flags_o
);
  logic       sa, sb;
  logic [7:0] ea, eb;
  logic [22:0] fa, fb;
  assign {sa, ea, fa} = a_i;
  assign {sb, eb, fb} = b_i;

  logic a_zero, b_zero, a_inf, a_nan, b_nan, a_snan, b_snan, a_sub;
  assign a_zero = (ea == 8'd0) & (fa == 23'd0);
  assign b_zero = (eb == 8'd0) & (fb == 23'd0);
  assign a_sub  = (ea == 8'd0) & (fa != 23'd0);
  assign a_inf  = (ea == 8'hff) & (fa == 23'd0);
  assign a_nan  = (ea == 8'hff) & (fa != 23'd0);
  assign b_nan  = (eb == 8'hff) & (fb != 23'd0);
  assign a_snan = a_nan & ~fa[22];
  assign b_snan = b_nan & ~fb[22];

  // Ordering of two non-NaN operands. lt_total treats -0 < +0 (for min/max); lt and eq are
  // the IEEE relations (+0 == -0).
  logic mag_lt, both_zero, lt_total, lt, eq;
  assign mag_lt    = a_i[30:0] < b_i[30:0];
  assign both_zero = a_zero & b_zero;
  always_comb begin
    if (sa != sb) begin
      lt_total = sa;                       // negative < positive (including -0 < +0)
    end else if (sa) begin
      lt_total = b_i[30:0] < a_i[30:0];    // both negative: larger magnitude is smaller
    end else begin
      lt_total = mag_lt;
    end
  end
  assign eq = (a_i == b_i) | both_zero;
  assign lt = lt_total & ~both_zero;

  // fclass mask
  logic [9:0] cls;
  always_comb begin
    cls = '0;
    cls[0] = sa & a_inf;
    cls[1] = sa & ~a_inf & ~a_nan & ~a_sub & ~a_zero;
    cls[2] = sa & a_sub;
    cls[3] = sa & a_zero;
    cls[4] = ~sa & a_zero;
    cls[5] = ~sa & a_sub;
    cls[6] = ~sa & ~a_inf & ~a_nan & ~a_sub & ~a_zero;
    cls[7] = ~sa & a_inf;
    cls[8] = a_snan;
    cls[9] = a_nan & fa[22];
  end

  logic any_nan, any_snan;
  assign any_nan  = a_nan | b_nan;
  assign any_snan = a_snan | b_snan;

  always_comb begin
    res_o   = '0;
    flags_o = '0;
    case (op_i)
      tess_fpu_pkg::FPU_SGNJ:  res_o = {sb, a_i[30:0]};
      tess_fpu_pkg::FPU_SGNJN: res_o = {~sb, a_i[30:0]};
      tess_fpu_pkg::FPU_SGNJX: res_o = {sa ^ sb, a_i[30:0]};
      tess_fpu_pkg::FPU_MIN, tess_fpu_pkg::FPU_MAX: begin
        flags_o[tess_fpu_pkg::FLAG_NV] = any_snan;
        if (a_nan & b_nan) begin
          res_o = tess_fpu_pkg::CANONICAL_NAN;
        end else if (a_nan) begin
          res_o = b_i;
        end else if (b_nan) begin
          res_o = a_i;
        end else if ((op_i == tess_fpu_pkg::FPU_MIN) == lt_total) begin
          res_o = a_i;
        end else begin
          res_o = b_i;
        end
      end
      tess_fpu_pkg::FPU_EQ: begin
        flags_o[tess_fpu_pkg::FLAG_NV] = any_snan;
        res_o[0]         = ~any_nan & eq;
      end
      tess_fpu_pkg::FPU_LT: begin
        flags_o[tess_fpu_pkg::FLAG_NV] = any_nan;
        res_o[0]         = ~any_nan & lt;
      end
      tess_fpu_pkg::FPU_LE: begin
        flags_o[tess_fpu_pkg::FLAG_NV] = any_nan;
        res_o[0]         = ~any_nan & (lt | eq);
      end
      tess_fpu_pkg::FPU_CLASS: res_o = {22'd0, cls};
      tess_fpu_pkg::FPU_MV_X_W, tess_fpu_pkg::FPU_MV_W_X: res_o = a_i;
      default: ;
    endcase
  end

endmodule
