// The multiplier: the 33 x 33 signed product in three register stages, written as Vivado's
// DSP48E2 inference templates are, so that the blocks it maps to use their own pipeline
// registers instead of fabric flops and a combinational adder tree between them:
//   end of E1  operands          (AREG / BREG; loaded only when a mul leaves E1)
//   end of E2  product           (MREG)
//   end of E3  product again     (PREG, the cascade's post-adder output)
// The result is read from the last register in E4: latency 4 (arch/latency.toml,
// class.mul), fully pipelined. Only the operands have an enable; the product registers
// advance every cycle and carry the operation's high/low select beside them.
module tess_mul (
  input  logic        clk_i,
  input  logic        issue_i,     // a mul instruction leaves E1
  input  logic [1:0]  op_i,        // funct3[1:0]: 0 mul, 1 mulh, 2 mulhsu, 3 mulhu
  input  logic [31:0] a_i,
  input  logic [31:0] b_i,
  output logic [31:0] result_o     // for the instruction now in E4
);
  logic signed [32:0] a_q, b_q;
  logic signed [63:0] m_q;  // the product's low 64 bits (the two above are never read)
  logic        [63:0] p_q;
  logic               hi_q, hi_m, hi_p;

  always_ff @(posedge clk_i) begin
    if (issue_i) begin
      // Sign-extend to 33 bits as the operation says; unsigned operands get a zero bit.
      a_q  <= {(op_i != 2'd3) & a_i[31], a_i};
      b_q  <= {(op_i == 2'd1) & b_i[31], b_i};
      hi_q <= (op_i != 2'd0);
    end
    m_q  <= a_q * b_q;  // (64-bit context: in simulation one 64-bit multiply, not a 66-bit one)
    hi_m <= hi_q;
    p_q  <= m_q;
    hi_p <= hi_m;
  end

  assign result_o = hi_p ? p_q[63:32] : p_q[31:0];
endmodule
