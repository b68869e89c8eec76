// The tile SRAM: one true-dual-port memory of 32-bit words with byte enables. Port A
// fetches instructions; port B serves loads, stores and external writers (host loads,
// the exchange engine). Both ports read synchronously: data the cycle after the address.
// A read and a write of one word on the two ports in the same cycle return the old word.
// UltraRam = 1 asks synthesis for UltraRAM (large SRAMs), else block RAM; the attribute
// must be a literal for yosys, hence the two branches.
module tess_sram_tdp #(
  parameter int unsigned Words = 16384,
  parameter bit          UltraRam = 1'b0,
  parameter int unsigned Aw = $clog2(Words)
) (
  input  logic          clk_i,
  input  logic          a_en_i,
  input  logic [Aw-1:0] a_addr_i,
  output logic [31:0]   a_rdata_o,
  input  logic          b_en_i,
  input  logic [3:0]    b_we_i,
  input  logic [Aw-1:0] b_addr_i,
  input  logic [31:0]   b_wdata_i,
  output logic [31:0]   b_rdata_o
);
  if (UltraRam) begin : g_uram
    (* ram_style = "ultra" *) logic [31:0] mem [Words];
    always_ff @(posedge clk_i) begin
      if (a_en_i) a_rdata_o <= mem[a_addr_i];
    end
    always_ff @(posedge clk_i) begin
      if (b_en_i) begin
        for (int i = 0; i < 4; i++) begin
          if (b_we_i[i]) mem[b_addr_i][i*8 +: 8] <= b_wdata_i[i*8 +: 8];
        end
        b_rdata_o <= mem[b_addr_i];
      end
    end
  end else begin : g_bram
    (* ram_style = "block" *) logic [31:0] mem [Words];
    always_ff @(posedge clk_i) begin
      if (a_en_i) a_rdata_o <= mem[a_addr_i];
    end
    always_ff @(posedge clk_i) begin
      if (b_en_i) begin
        for (int i = 0; i < 4; i++) begin
          if (b_we_i[i]) mem[b_addr_i][i*8 +: 8] <= b_wdata_i[i*8 +: 8];
        end
        b_rdata_o <= mem[b_addr_i];
      end
    end
  end
endmodule
