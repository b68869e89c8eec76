// The fetch stages of the core: F (the pc sent to SRAM port A), M (the word in the SRAM's
// read register) and D (the word out of the SRAM's output register, decoded by the core).
// Port A reads in two stages (tess_sram_tdp: the memory's read register, then the output
// register, docs/timing.md path 2), so a word is on imem_rdata_i two cycles after its pc.
// Out of reset the fetch first takes boot_pc_i. A redirect (taken branch or jump, mret,
// fence.i, trap) comes from the core's registers, the cycle after E1 decided it
// (docs/timing.md, path 3), and restarts the fetch at its target in the next cycle: with
// the instruction E1 took behind it, four are lost, the table's refetch penalty
// (arch/latency.toml, 4).
//
// Port A's address is always pc_f_q, a flop, and port A reads every cycle: nothing in front
// of the SRAM waits for E1's issue decision (operand forwarding, hazard checks, the trap
// decision; docs/timing.md, path 1), and the SRAM's read and output registers have no
// enable from the core. Instead the fetch keeps the words it has asked for in a queue of
// two, D and S (behind D), with M's read in flight: a read is counted (pc_f_q moves on) only
// if D, S and M, less the one E1 takes this cycle, leave room for it (at most one entry),
// so a word arriving from port A always has a place, and a word arrives every cycle E1 can
// take one: after a stall E1 finds D, then S, then the next read on the port, with no
// bubble. Only a redirect (and the boot) leaves E1 without an instruction. An entry's word
// is on the port in the cycle after it leaves M (fresh); if the entry is still in the queue
// after that cycle, its register (d_word_q, s_word_q) takes the word from the port. D's
// word to decode is the port's or d_word_q, one 2:1 multiplexer after the output register.
//
// The words in the queue are those read when they were fetched; a store into one of them is
// seen only after a fence.i, the rule docs/isa.md sets for the instructions behind a store.
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
  input  logic [31:0]   imem_rdata_i,    // port A's output register: the word read two cycles ago
  output logic          d_valid_o,
  output logic [31:0]   d_pc_o,
  output logic [31:0]   d_word_o,        // D's instruction word, to decode
  output logic          d_fault_o        // D's pc lies outside SRAM: an instruction access fault
);
  logic        booted_q;
  logic [31:0] pc_f_q;    // the address read this cycle
  logic        m_valid_q; // the read of last cycle counts: its word is on the port next cycle
  logic [31:0] m_pc_q;
  logic        m_fault_q;
  logic        d_fresh_q; // D's word is on the port (else in d_word_q)
  logic [31:0] d_word_q;
  logic        s_valid_q, s_fault_q, s_fresh_q;
  logic [31:0] s_pc_q, s_word_q;
  logic [31:0] s_word;

  assign imem_addr_o = pc_f_q[Aw+1:2];
  assign d_word_o = d_fresh_q ? imem_rdata_i : d_word_q;
  assign s_word = s_fresh_q ? imem_rdata_i : s_word_q;

  logic take, issue;
  logic [1:0] left;  // entries after this edge, before a new read
  assign take = d_valid_o && e1_free_i;
  assign left = {1'b0, d_valid_o} + {1'b0, s_valid_q} + {1'b0, m_valid_q} - {1'b0, take};
  assign issue = left <= 2'd1;

  // The word registers need no reset and no enable: each is read only while its entry is
  // valid and not fresh, and takes its entry's word every cycle (D's from S when S moves up).
  always_ff @(posedge clk_i) begin
    d_word_q <= take ? s_word : d_word_o;
    s_word_q <= s_word;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      booted_q <= 1'b0;
      pc_f_q <= 32'd0;
      m_valid_q <= 1'b0;
      m_pc_q <= 32'd0;
      m_fault_q <= 1'b0;
      d_valid_o <= 1'b0;
      d_pc_o <= 32'd0;
      d_fault_o <= 1'b0;
      d_fresh_q <= 1'b0;
      s_valid_q <= 1'b0;
      s_pc_q <= 32'd0;
      s_fault_q <= 1'b0;
      s_fresh_q <= 1'b0;
    end else if (!booted_q) begin
      booted_q <= 1'b1;
      pc_f_q <= boot_pc_i;
    end else if (stop_i || redirect_i) begin
      m_valid_q <= 1'b0;
      d_valid_o <= 1'b0;
      s_valid_q <= 1'b0;
      if (!stop_i) pc_f_q <= redirect_pc_i;
    end else begin
      // F -> M
      m_valid_q <= issue;
      if (issue) begin
        m_pc_q <= pc_f_q;
        m_fault_q <= (pc_f_q - tess_arch_pkg::SRAM_BASE) >= SramBytes;
        pc_f_q <= pc_f_q + 32'd4;
      end
      // The queue: D, then S, then M's word.
      if (take || !d_valid_o) begin
        if (s_valid_q) begin
          d_valid_o <= 1'b1;
          d_pc_o <= s_pc_q;
          d_fault_o <= s_fault_q;
          d_fresh_q <= 1'b0;       // d_word_q takes s_word
          s_valid_q <= m_valid_q;
          s_pc_q <= m_pc_q;
          s_fault_q <= m_fault_q;
          s_fresh_q <= 1'b1;
        end else begin
          d_valid_o <= m_valid_q;
          d_pc_o <= m_pc_q;
          d_fault_o <= m_fault_q;
          d_fresh_q <= 1'b1;
        end
      end else begin
        d_fresh_q <= 1'b0;         // D waits: d_word_q takes its word
        if (!s_valid_q) begin
          s_valid_q <= m_valid_q;
          s_pc_q <= m_pc_q;
          s_fault_q <= m_fault_q;
          s_fresh_q <= 1'b1;
        end else begin
          s_fresh_q <= 1'b0;       // (M is empty: issue left no room for it)
        end
      end
    end
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (rst_ni && booted_q && !stop_i && !redirect_i && d_valid_o && !take && s_valid_q && m_valid_q)
      $error("tess_fetch: a word arrives with D and S full");
    if (rst_ni && s_valid_q && !d_valid_o)
      $error("tess_fetch: S holds a word while D is empty");
  end
`endif
endmodule
