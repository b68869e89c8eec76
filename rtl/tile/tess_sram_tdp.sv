// The tile SRAM: one true-dual-port memory of 32-bit words with byte enables. Port A
// fetches instructions; port B serves loads, stores and external writers (host loads,
// the exchange engine). Both ports read in two stages: the memory's own read register the
// cycle after the address, then an output register, so the data is on a_rdata_o/b_rdata_o
// two cycles after the address (read in cycle t, used in cycle t+2) and comes straight out
// of a flop: block RAM's DOA_REG/DOB_REG, UltraRAM's OREG (docs/timing.md, path 2). A read on
// port A and a write of the same word on port B in the same cycle return the old word.
//
// The output registers take their input every cycle (no enable, no reset): the stage
// between is a fixed pipeline, so the read issued in cycle t is what the port shows in
// cycle t+2 whatever the port does in cycle t+1 (a write on B in t+1 changes the memory's
// read register only at the end of t+1, after the output register has taken the read of t).
//
// UltraRam picks the memory the target's SRAM is built of (arch/targets: sram), each in
// the form Vivado infers it from; the attribute must be a literal for yosys, hence the two
// branches:
//   - block RAM: 32-bit rows, read-first port B (a write cycle also returns the old word);
//   - UltraRAM: 64-bit rows (a URAM288 is 4K x 72: 32-bit rows would leave half of each
//     unused), eight byte-write enables, no-change ports as in Vivado's UltraRAM template:
//     port B does not read on a write cycle (its read register keeps the last word read). A
//     32-bit access picks its half of the row by the word address's low bit; the half
//     select of the output is after the output register. Nothing reads port B's output
//     after a write: stores and external writes ignore it.
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
    localparam int unsigned Rows = (Words + 1) / 2;
    (* ram_style = "ultra" *) logic [63:0] mem [Rows];
    logic [63:0] a_row_q, b_row_q;      // the memory's read registers
    logic [63:0] a_oreg_q, b_oreg_q;    // OREG
    logic        a_hi_q, b_hi_q, a_hi2_q, b_hi2_q;
    logic [7:0]  b_we8;
    logic [63:0] b_wrow;
    assign b_we8 = b_addr_i[0] ? {b_we_i, 4'b0000} : {4'b0000, b_we_i};
    assign b_wrow = {b_wdata_i, b_wdata_i};
    always_ff @(posedge clk_i) begin
      if (a_en_i) begin
        a_row_q <= mem[a_addr_i[Aw-1:1]];
        a_hi_q <= a_addr_i[0];
      end
    end
    always_ff @(posedge clk_i) begin
      if (b_en_i) begin
        for (int i = 0; i < 8; i++) begin
          if (b_we8[i]) mem[b_addr_i[Aw-1:1]][i*8 +: 8] <= b_wrow[i*8 +: 8];
        end
        if (b_we_i == 4'b0000) begin
          b_row_q <= mem[b_addr_i[Aw-1:1]];
          b_hi_q <= b_addr_i[0];
        end
      end
    end
    always_ff @(posedge clk_i) begin
      a_oreg_q <= a_row_q;
      a_hi2_q <= a_hi_q;
    end
    always_ff @(posedge clk_i) begin
      b_oreg_q <= b_row_q;
      b_hi2_q <= b_hi_q;
    end
    assign a_rdata_o = a_hi2_q ? a_oreg_q[63:32] : a_oreg_q[31:0];
    assign b_rdata_o = b_hi2_q ? b_oreg_q[63:32] : b_oreg_q[31:0];
  end else begin : g_bram
    (* ram_style = "block" *) logic [31:0] mem [Words];
    logic [31:0] a_lat_q, b_lat_q;  // the memory's read registers
    always_ff @(posedge clk_i) begin
      if (a_en_i) a_lat_q <= mem[a_addr_i];
    end
    always_ff @(posedge clk_i) begin
      if (b_en_i) begin
        for (int i = 0; i < 4; i++) begin
          if (b_we_i[i]) mem[b_addr_i][i*8 +: 8] <= b_wdata_i[i*8 +: 8];
        end
        b_lat_q <= mem[b_addr_i];
      end
    end
    always_ff @(posedge clk_i) begin  // DOA_REG
      a_rdata_o <= a_lat_q;
    end
    always_ff @(posedge clk_i) begin  // DOB_REG
      b_rdata_o <= b_lat_q;
    end
  end
endmodule
