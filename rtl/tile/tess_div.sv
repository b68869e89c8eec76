// The iterative divider: div, divu, rem, remu. It holds the issue slot for the latency
// table's 34 cycles: cycle 0 takes the operands, cycles 1-32 each produce one quotient bit
// (restoring division of the magnitudes), and in cycle 33 result_o holds the answer while
// the instruction leaves E1. Division by zero and the signed overflow case give the
// RISC-V results.
module tess_div (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        start_i,     // first cycle of a div instruction in E1 (operands valid)
  input  logic [1:0]  op_i,        // funct3[1:0]: 0 div, 1 divu, 2 rem, 3 remu
  input  logic [31:0] a_i,
  input  logic [31:0] b_i,
  output logic [31:0] result_o
);
  logic [31:0] quot_q, rem_q, divisor_q, a_q;
  logic        neg_quot_q, neg_rem_q, by_zero_q, overflow_q, want_rem_q;
  logic [5:0]  step_q;

  logic        is_signed;
  logic [31:0] a_mag, b_mag;
  assign is_signed = !op_i[0];
  assign a_mag = (is_signed && a_i[31]) ? -a_i : a_i;
  assign b_mag = (is_signed && b_i[31]) ? -b_i : b_i;

  // One restoring step: shift the next dividend bit into the partial remainder.
  logic [32:0] trial;
  logic [31:0] shifted;
  assign shifted = {rem_q[30:0], quot_q[31]};
  assign trial = {1'b0, shifted} - {1'b0, divisor_q};

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      step_q <= 6'd0;
      quot_q <= 32'd0;
      rem_q <= 32'd0;
      divisor_q <= 32'd0;
      a_q <= 32'd0;
      {neg_quot_q, neg_rem_q, by_zero_q, overflow_q, want_rem_q} <= '0;
    end else if (start_i) begin
      step_q <= 6'd1;
      quot_q <= a_mag;          // dividend bits shift out of the top as quotient bits shift in
      rem_q <= 32'd0;
      divisor_q <= b_mag;
      a_q <= a_i;
      neg_quot_q <= is_signed && (a_i[31] ^ b_i[31]);
      neg_rem_q <= is_signed && a_i[31];
      by_zero_q <= (b_i == 32'd0);
      overflow_q <= is_signed && a_i == 32'h8000_0000 && b_i == 32'hffff_ffff;
      want_rem_q <= op_i[1];
    end else if (step_q != 6'd0 && step_q <= 6'd32) begin
      step_q <= step_q + 6'd1;
      if (!trial[32]) begin
        rem_q <= trial[31:0];
        quot_q <= {quot_q[30:0], 1'b1};
      end else begin
        rem_q <= shifted;
        quot_q <= {quot_q[30:0], 1'b0};
      end
    end
  end

  always_comb begin
    if (by_zero_q) result_o = want_rem_q ? a_q : 32'hffff_ffff;
    else if (overflow_q) result_o = want_rem_q ? 32'd0 : 32'h8000_0000;
    else if (want_rem_q) result_o = neg_rem_q ? -rem_q : rem_q;
    else result_o = neg_quot_q ? -quot_q : quot_q;
  end
endmodule
