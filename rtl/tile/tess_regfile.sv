// A 32 x 32-bit register file with three read ports (read in E1) and one write port
// (written in W). Reads see a write of the same cycle (write-through), so an instruction
// entering E1 as its producer leaves W needs no forwarding path. ZeroReg: register 0
// reads 0 and ignores writes (the x file); otherwise it is an ordinary register (the f file).
//
// Every register reads 0 after reset (docs/isa.md) without resetting the storage: one flop
// per register says whether it has been written since reset, so the storage itself has no
// reset and maps to LUT RAM (three asynchronous read ports, one write port) instead of
// 1,024 flops and their read multiplexers.
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
  (* ram_style = "distributed" *) logic [31:0] mem [32];
  logic [31:0] written_q;

  logic we;
  assign we = we_i && !(ZeroReg && waddr_i == 5'd0);

  always_ff @(posedge clk_i) begin
    if (we) mem[waddr_i] <= wdata_i;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) written_q <= 32'd0;
    else if (we) written_q[waddr_i] <= 1'b1;
  end

  function automatic logic [31:0] read(input logic [4:0] a, input logic [31:0] stored,
                                       input logic written);
    if (ZeroReg && a == 5'd0) read = 32'd0;
    else if (we && waddr_i == a) read = wdata_i;
    else if (!written) read = 32'd0;
    else read = stored;
  endfunction

  assign rdata_a_o = read(raddr_a_i, mem[raddr_a_i], written_q[raddr_a_i]);
  assign rdata_b_o = read(raddr_b_i, mem[raddr_b_i], written_q[raddr_b_i]);
  assign rdata_c_o = read(raddr_c_i, mem[raddr_c_i], written_q[raddr_c_i]);
endmodule
