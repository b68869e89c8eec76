// A 32 x 32-bit register file with three read ports (read in E1) and one write port
// (written in W). Reads see a write of the same cycle (write-through), so an instruction
// entering E1 as its producer leaves W needs no forwarding path. ZeroReg: register 0
// reads 0 and ignores writes (the x file); otherwise it is an ordinary register (the f file).
module tess_regfile #(
  parameter bit ZeroReg = 1'b1
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic [4:0]  raddr_a_i,
  input  logic [4:0]  raddr_b_i,
  input  logic [4:0]  raddr_c_i,
  output logic [31:0] rdata_a_o,
  output logic [31:0] rdata_b_o,
  output logic [31:0] rdata_c_o,
  input  logic        we_i,
  input  logic [4:0]  waddr_i,
  input  logic [31:0] wdata_i
);
  logic [31:0] regs [32];

  // Reset to zero (docs/isa.md: x and f registers reset to 0 on every backend).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int i = 0; i < 32; i++) regs[i] <= 32'd0;
    end else if (we_i && !(ZeroReg && waddr_i == 5'd0)) begin
      regs[waddr_i] <= wdata_i;
    end
  end

  function automatic logic [31:0] read(input logic [4:0] a, input logic [31:0] cur, input logic we,
                                       input logic [4:0] wa, input logic [31:0] wd);
    if (ZeroReg && a == 5'd0) read = 32'd0;
    else if (we && wa == a) read = wd;
    else read = cur;
  endfunction

  assign rdata_a_o = read(raddr_a_i, regs[raddr_a_i], we_i, waddr_i, wdata_i);
  assign rdata_b_o = read(raddr_b_i, regs[raddr_b_i], we_i, waddr_i, wdata_i);
  assign rdata_c_o = read(raddr_c_i, regs[raddr_c_i], we_i, waddr_i, wdata_i);
endmodule
