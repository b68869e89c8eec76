// Stages F and D of the core: the pc sent to SRAM port A, and the word that comes back a
// cycle later (decoded by the core in D). Out of reset the fetch first takes boot_pc_i. A
// redirect (taken branch or jump, mret, fence.i, trap) restarts the fetch at its target in
// the next cycle, so the two instructions behind it are lost: the table's refetch penalty.
// While E1 is busy, D keeps its instruction by sending its own pc again, so that the word
// stays on the SRAM output.
module tess_fetch #(
  parameter int unsigned SramBytes = 65536,
  parameter int unsigned Aw = $clog2(SramBytes / 4)
) (
  input  logic          clk_i,
  input  logic          rst_ni,
  input  logic [31:0]   boot_pc_i,
  input  logic          stop_i,          // halt: fetch nothing more
  input  logic          redirect_i,
  input  logic [31:0]   redirect_pc_i,
  input  logic          e1_free_i,       // E1 takes D's instruction at the end of this cycle
  output logic [Aw-1:0] imem_addr_o,
  output logic          d_valid_o,
  output logic [31:0]   d_pc_o,
  output logic          d_fault_o        // D's pc lies outside SRAM: an instruction access fault
);
  logic        booted_q;
  logic [31:0] pc_f_q;   // the address fetched this cycle

  assign imem_addr_o = (d_valid_o && !e1_free_i) ? d_pc_o[Aw+1:2] : pc_f_q[Aw+1:2];

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      booted_q <= 1'b0;
      pc_f_q <= 32'd0;
      d_valid_o <= 1'b0;
      d_fault_o <= 1'b0;
      d_pc_o <= 32'd0;
    end else if (!booted_q) begin
      booted_q <= 1'b1;
      pc_f_q <= boot_pc_i;
    end else if (stop_i) begin
      d_valid_o <= 1'b0;
    end else if (redirect_i) begin
      d_valid_o <= 1'b0;
      pc_f_q <= redirect_pc_i;
    end else if (!d_valid_o || e1_free_i) begin
      d_valid_o <= 1'b1;
      d_pc_o <= pc_f_q;
      d_fault_o <= (pc_f_q - tess_arch_pkg::SRAM_BASE) >= SramBytes;
      pc_f_q <= pc_f_q + 32'd4;
    end
  end
endmodule
