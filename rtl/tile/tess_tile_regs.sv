// The tile register block (arch/tile_map.toml) at REGS_BASE, word accesses only. The core
// presents an access in E1 (req_i); ready_o = 0 holds it there (a blocking read of SYNC
// or XCHG_DONE), fault_o makes it an access fault. Stores act when the instruction
// leaves E1 (commit_i). Registers the emulator does not implement fault here too.
module tess_tile_regs (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        req_i,
  input  logic        we_i,
  input  logic [10:0] offset_i,
  input  logic [31:0] wdata_i,
  input  logic        commit_i,
  output logic        ready_o,
  output logic        fault_o,
  output logic [31:0] rdata_o,
  output logic        timing_o,        // rdata_o is a timing value (the cycle counter)
  // Identity and state from the tile
  input  logic [31:0] tile_id_i,
  input  logic [31:0] tile_count_i,
  input  logic [31:0] sram_bytes_i,
  input  logic [63:0] cycle_i,
  input  logic        latch_valid_i,
  input  logic [31:0] latch_cause_i,
  input  logic [31:0] latch_pc_i,
  input  logic [31:0] latch_tval_i,
  input  logic [31:0] latch_superstep_i,
  output logic [31:0] superstep_o,
  // Barrier
  output logic        sync_arrive_o,
  output logic [31:0] sync_kind_o,
  input  logic        sync_release_i,
  // Exchange engine
  output logic        xchg_start_o,
  output logic [31:0] xchg_list_o,
  output logic [31:0] xchg_entries_o,
  input  logic        xchg_busy_i,
  input  logic [31:0] xchg_sent_i,
  input  logic [31:0] recv_count_i,
  // Console and EXIT
  output logic        console_valid_o,
  output logic [7:0]  console_byte_o,
  output logic        exit_o          // a store to EXIT commits (the core halts; code = the value)
);

  logic        arrived_q;
  logic [31:0] superstep_q, recv_expect_q;

  logic [11:0] off;
  assign off = {1'b0, offset_i};

  // Reads.
  always_comb begin
    rdata_o = 32'd0;
    timing_o = 1'b0;
    ready_o = 1'b1;
    fault_o = 1'b0;
    if (!we_i) begin
      case (off)
        tess_arch_pkg::TILE_REG_TILE_ID: rdata_o = tile_id_i;
        tess_arch_pkg::TILE_REG_TILE_COUNT: rdata_o = tile_count_i;
        tess_arch_pkg::TILE_REG_CYCLE_LO: begin rdata_o = cycle_i[31:0]; timing_o = 1'b1; end
        tess_arch_pkg::TILE_REG_CYCLE_HI: begin rdata_o = cycle_i[63:32]; timing_o = 1'b1; end
        tess_arch_pkg::TILE_REG_SUPERSTEP: rdata_o = superstep_q;
        tess_arch_pkg::TILE_REG_SRAM_BYTES: rdata_o = sram_bytes_i;
        tess_arch_pkg::TILE_REG_TRAP_VALID: rdata_o = {31'd0, latch_valid_i};
        tess_arch_pkg::TILE_REG_TRAP_CAUSE: rdata_o = latch_cause_i;
        tess_arch_pkg::TILE_REG_TRAP_PC: rdata_o = latch_pc_i;
        tess_arch_pkg::TILE_REG_TRAP_TVAL: rdata_o = latch_tval_i;
        tess_arch_pkg::TILE_REG_TRAP_SUPERSTEP: rdata_o = latch_superstep_i;
        tess_arch_pkg::TILE_REG_SYNC: begin rdata_o = superstep_q; ready_o = !arrived_q; end
        tess_arch_pkg::TILE_REG_XCHG_LIST: rdata_o = xchg_list_o;
        tess_arch_pkg::TILE_REG_XCHG_ENTRIES: rdata_o = xchg_entries_o;
        tess_arch_pkg::TILE_REG_XCHG_DONE: begin rdata_o = xchg_sent_i; ready_o = !xchg_busy_i; end
        tess_arch_pkg::TILE_REG_RECV_EXPECT: rdata_o = recv_expect_q;
        tess_arch_pkg::TILE_REG_RECV_COUNT: rdata_o = recv_count_i;
        default: fault_o = 1'b1;
      endcase
    end else begin
      case (off)
        tess_arch_pkg::TILE_REG_CONSOLE, tess_arch_pkg::TILE_REG_SYNC, tess_arch_pkg::TILE_REG_XCHG_LIST, tess_arch_pkg::TILE_REG_XCHG_ENTRIES,
        tess_arch_pkg::TILE_REG_XCHG_START, tess_arch_pkg::TILE_REG_RECV_EXPECT, tess_arch_pkg::TILE_REG_EXIT: fault_o = 1'b0;
        default: fault_o = 1'b1;
      endcase
    end
    if (!req_i) begin
      ready_o = 1'b1;
      fault_o = 1'b0;
    end
  end

  logic wr;
  assign wr = req_i && we_i && commit_i;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      arrived_q <= 1'b0;
      superstep_q <= 32'd0;
      recv_expect_q <= 32'd0;
      xchg_list_o <= 32'd0;
      xchg_entries_o <= 32'd0;
    end else begin
      if (sync_release_i) begin
        arrived_q <= 1'b0;
        superstep_q <= superstep_q + 32'd1;
      end
      if (wr) begin
        case (off)
          tess_arch_pkg::TILE_REG_SYNC: arrived_q <= 1'b1;
          tess_arch_pkg::TILE_REG_XCHG_LIST: xchg_list_o <= wdata_i;
          tess_arch_pkg::TILE_REG_XCHG_ENTRIES: xchg_entries_o <= wdata_i;
          tess_arch_pkg::TILE_REG_RECV_EXPECT: recv_expect_q <= wdata_i;
          default: ;
        endcase
      end
    end
  end

  assign superstep_o = superstep_q;
  // A write in the cycle the barrier releases is a new arrival (as in the emulator, where
  // the release always comes first).
  assign sync_arrive_o = wr && off == tess_arch_pkg::TILE_REG_SYNC && (!arrived_q || sync_release_i);
  assign sync_kind_o = wdata_i;
  assign xchg_start_o = wr && off == tess_arch_pkg::TILE_REG_XCHG_START;
  assign console_valid_o = wr && off == tess_arch_pkg::TILE_REG_CONSOLE;
  assign console_byte_o = wdata_i[7:0];
  assign exit_o = wr && off == tess_arch_pkg::TILE_REG_EXIT;
endmodule
