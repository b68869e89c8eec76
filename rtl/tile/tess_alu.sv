// The integer ALU (E1) and the branch comparator.
module tess_alu (
  input  logic [3:0]  op_i,         // tess_core_pkg::alu_op_e
  input  logic [31:0] a_i,
  input  logic [31:0] b_i,
  output logic [31:0] result_o,
  // Branch condition for funct3 of a B-type instruction, comparing a_i and b_i.
  input  logic [2:0]  br_funct3_i,
  output logic        br_taken_o
);

  logic lt_s, lt_u, eq;
  assign eq = (a_i == b_i);
  assign lt_s = $signed(a_i) < $signed(b_i);
  assign lt_u = a_i < b_i;

  always_comb begin
    case (op_i)
      tess_core_pkg::ALU_SUB: result_o = a_i - b_i;
      tess_core_pkg::ALU_SLL: result_o = a_i << b_i[4:0];
      tess_core_pkg::ALU_SLT: result_o = {31'd0, lt_s};
      tess_core_pkg::ALU_SLTU: result_o = {31'd0, lt_u};
      tess_core_pkg::ALU_XOR: result_o = a_i ^ b_i;
      tess_core_pkg::ALU_SRL: result_o = a_i >> b_i[4:0];
      tess_core_pkg::ALU_SRA: result_o = $unsigned($signed(a_i) >>> b_i[4:0]);
      tess_core_pkg::ALU_OR: result_o = a_i | b_i;
      tess_core_pkg::ALU_AND: result_o = a_i & b_i;
      default: result_o = a_i + b_i;
    endcase
  end

  always_comb begin
    case (br_funct3_i)
      3'b000: br_taken_o = eq;
      3'b001: br_taken_o = !eq;
      3'b100: br_taken_o = lt_s;
      3'b101: br_taken_o = !lt_s;
      3'b110: br_taken_o = lt_u;
      3'b111: br_taken_o = !lt_u;
      default: br_taken_o = 1'b0;
    endcase
  end
endmodule
