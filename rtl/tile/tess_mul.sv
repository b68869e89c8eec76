// The multiplier: operands registered when the instruction leaves E1, the 33 x 33 product
// formed in E2 (DSP48E2 blocks using their input registers only), so the result is ready
// at the end of E2: latency 2, fully pipelined.
module tess_mul (
  input  logic        clk_i,
  input  logic        issue_i,     // a mul instruction leaves E1
  input  logic [1:0]  op_i,        // funct3[1:0]: 0 mul, 1 mulh, 2 mulhsu, 3 mulhu
  input  logic [31:0] a_i,
  input  logic [31:0] b_i,
  output logic [31:0] result_o     // for the instruction now in E2
);
  logic [32:0] a_q, b_q;
  logic        hi_q;

  always_ff @(posedge clk_i) begin
    if (issue_i) begin
      // Sign-extend to 33 bits as the operation says; unsigned operands get a zero bit.
      a_q <= {(op_i != 2'd3) & a_i[31], a_i};
      b_q <= {(op_i == 2'd1) & b_i[31], b_i};
      hi_q <= (op_i != 2'd0);
    end
  end

  logic signed [65:0] prod;
  assign prod = $signed(a_q) * $signed(b_q);
  assign result_o = hi_q ? prod[63:32] : prod[31:0];
endmodule
