// Stages F and D of the core: the pc sent to SRAM port A, and the word that comes back a
// cycle later (decoded by the core in D). Out of reset the fetch first takes boot_pc_i. A
// redirect (taken branch or jump, mret, fence.i, trap) restarts the fetch at its target in
// the next cycle, so the two instructions behind it are lost: the table's refetch penalty.
//
// While E1 is busy, D keeps its instruction in a holding register (d_word_q) instead of
// reading its own pc again: port A's address is then always pc_f_q, a flop, and does not
// wait for E1's issue decision (operand forwarding, hazard checks, the trap decision),
// which used to be the longest path in front of the SRAM (docs/timing.md, path 1). The
// cycles are those of the re-read: the fetch pc is the same flop either way and moves only
// when D takes a word. The word D holds is the one read when it was fetched; a store into
// it while D waits is seen only after a fence.i, the rule docs/isa.md already sets for the
// instructions behind a store (the one-port re-read used to pick up an external write
// there, which no program may rely on).
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
  input  logic [31:0]   imem_rdata_i,    // port A's word: D's while d_hold_q = 0
  output logic          d_valid_o,
  output logic [31:0]   d_pc_o,
  output logic [31:0]   d_word_o,        // D's instruction word, to decode
  output logic          d_fault_o        // D's pc lies outside SRAM: an instruction access fault
);
  logic        booted_q;
  logic [31:0] pc_f_q;   // the address fetched this cycle
  logic        d_hold_q; // D waited last cycle: its word is in d_word_q, no longer on port A
  logic [31:0] d_word_q;

  assign imem_addr_o = pc_f_q[Aw+1:2];
  assign d_word_o = d_hold_q ? d_word_q : imem_rdata_i;

  // The word register takes D's word every cycle (no enable: while held it takes itself),
  // and needs no reset: it is read only after a cycle in which D was valid.
  always_ff @(posedge clk_i) begin
    d_word_q <= d_word_o;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      booted_q <= 1'b0;
      pc_f_q <= 32'd0;
      d_valid_o <= 1'b0;
      d_fault_o <= 1'b0;
      d_pc_o <= 32'd0;
      d_hold_q <= 1'b0;
    end else if (!booted_q) begin
      booted_q <= 1'b1;
      pc_f_q <= boot_pc_i;
    end else if (stop_i) begin
      d_valid_o <= 1'b0;
      d_hold_q <= 1'b0;
    end else if (redirect_i) begin
      d_valid_o <= 1'b0;
      d_hold_q <= 1'b0;
      pc_f_q <= redirect_pc_i;
    end else if (!d_valid_o || e1_free_i) begin
      d_valid_o <= 1'b1;
      d_hold_q <= 1'b0;
      d_pc_o <= pc_f_q;
      d_fault_o <= (pc_f_q - tess_arch_pkg::SRAM_BASE) >= SramBytes;
      pc_f_q <= pc_f_q + 32'd4;
    end else begin
      d_hold_q <= 1'b1;  // D waits: its word leaves port A's output at the next edge
    end
  end
endmodule
