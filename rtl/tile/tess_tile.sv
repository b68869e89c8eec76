// One Tessera tile: the core, its SRAM and the tile register block (docs/tile-rtl.md).
// While run_i is 0 the core is held in reset and the SRAM is reachable only through the
// external port (the host loads images this way); the external port always wins port B.
module tess_tile #(
  parameter int unsigned SRAM_BYTES = 65536,
  parameter bit          ULTRA_RAM = 1'b0,   // SRAM in UltraRAM instead of block RAM
  parameter int unsigned Aw = $clog2(SRAM_BYTES / 4)
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        run_i,
  input  logic [31:0] boot_pc_i,
  input  logic [31:0] tile_id_i,
  input  logic [31:0] tile_count_i,
  // External access to SRAM port B
  input  logic        ext_req_i,
  input  logic        ext_we_i,
  input  logic [31:0] ext_addr_i,
  input  logic [3:0]  ext_be_i,
  input  logic [31:0] ext_wdata_i,
  output logic [31:0] ext_rdata_o,
  // Barrier and exchange engine
  output logic        sync_arrive_o,
  output logic [31:0] sync_kind_o,
  input  logic        sync_release_i,
  output logic        xchg_start_o,
  output logic [31:0] xchg_list_o,
  output logic [31:0] xchg_entries_o,
  input  logic        xchg_busy_i,
  input  logic [31:0] xchg_sent_i,
  input  logic [31:0] recv_count_i,
  // Console and halt
  output logic        console_valid_o,
  output logic [7:0]  console_byte_o,
  output logic        halted_o,
  output logic        halt_exit_o,
  output logic [31:0] halt_code_o,
  // Retire port
  output logic        retire_valid_o,
  output logic [31:0] retire_pc_o,
  output logic [31:0] retire_insn_o,
  output logic        retire_trap_o,
  output logic [31:0] retire_cause_o,
  output logic [31:0] retire_tval_o,
  output logic        retire_halt_o,
  output logic        retire_rd_we_o,
  output logic        retire_rd_fp_o,
  output logic [4:0]  retire_rd_o,
  output logic [31:0] retire_rd_wdata_o,
  output logic        retire_timing_o,
  output logic        retire_mem_re_o,
  output logic        retire_mem_we_o,
  output logic [31:0] retire_mem_addr_o,
  output logic [3:0]  retire_mem_be_o,
  output logic [31:0] retire_mem_wdata_o,
  output logic [31:0] retire_mem_rdata_o,
  output logic [4:0]  retire_flags_o,
  output logic [63:0] retire_cycle_o
);
  // The core's reset: the tile's, or run_i low (registered, so it never glitches).
  logic core_rst_nq;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) core_rst_nq <= 1'b0;
    else core_rst_nq <= run_i;
  end

  // SRAM
  logic [Aw-1:0] imem_addr, dmem_addr;
  logic [31:0]   imem_rdata, dmem_wdata, b_rdata;
  logic          dmem_req;
  logic [3:0]    dmem_we;
  logic          b_en;
  logic [3:0]    b_we;
  logic [Aw-1:0] b_addr;
  logic [31:0]   b_wdata;
  assign b_en = ext_req_i || dmem_req;
  assign b_we = ext_req_i ? (ext_we_i ? ext_be_i : 4'b0000) : dmem_we;
  assign b_addr = ext_req_i ? ext_addr_i[Aw+1:2] : dmem_addr;
  assign b_wdata = ext_req_i ? ext_wdata_i : dmem_wdata;
  assign ext_rdata_o = b_rdata;

  tess_sram_tdp #(.Words(SRAM_BYTES / 4), .UltraRam(ULTRA_RAM)) u_sram (
    .clk_i,
    .a_en_i(1'b1), .a_addr_i(imem_addr), .a_rdata_o(imem_rdata),
    .b_en_i(b_en), .b_we_i(b_we), .b_addr_i(b_addr), .b_wdata_i(b_wdata), .b_rdata_o(b_rdata)
  );

  // Register block
  logic        rb_req, rb_we, rb_commit, rb_ready, rb_fault, rb_timing, rb_exit;
  logic [10:0] rb_offset;
  logic [31:0] rb_wdata, rb_rdata, superstep;
  logic [63:0] mcycle;
  logic        latch_valid;
  logic [31:0] latch_cause, latch_pc, latch_tval, latch_superstep;

  tess_tile_regs u_regs (
    .clk_i, .rst_ni,
    .req_i(rb_req), .we_i(rb_we), .offset_i(rb_offset), .wdata_i(rb_wdata), .commit_i(rb_commit),
    .ready_o(rb_ready), .fault_o(rb_fault), .rdata_o(rb_rdata), .timing_o(rb_timing),
    .tile_id_i, .tile_count_i, .sram_bytes_i(SRAM_BYTES), .cycle_i(mcycle),
    .latch_valid_i(latch_valid), .latch_cause_i(latch_cause), .latch_pc_i(latch_pc),
    .latch_tval_i(latch_tval), .latch_superstep_i(latch_superstep), .superstep_o(superstep),
    .sync_arrive_o, .sync_kind_o, .sync_release_i,
    .xchg_start_o, .xchg_list_o, .xchg_entries_o, .xchg_busy_i, .xchg_sent_i, .recv_count_i,
    .console_valid_o, .console_byte_o, .exit_o(rb_exit)
  );

  tess_core #(.SramBytes(SRAM_BYTES)) u_core (
    .clk_i, .rst_ni(core_rst_nq), .boot_pc_i,
    .imem_addr_o(imem_addr), .imem_rdata_i(imem_rdata),
    .dmem_req_o(dmem_req), .dmem_we_o(dmem_we), .dmem_addr_o(dmem_addr), .dmem_wdata_o(dmem_wdata),
    .dmem_gnt_i(!ext_req_i), .dmem_rdata_i(b_rdata),
    .rb_req_o(rb_req), .rb_we_o(rb_we), .rb_offset_o(rb_offset), .rb_wdata_o(rb_wdata),
    .rb_commit_o(rb_commit), .rb_ready_i(rb_ready), .rb_fault_i(rb_fault), .rb_rdata_i(rb_rdata),
    .rb_timing_i(rb_timing), .rb_exit_i(rb_exit), .superstep_i(superstep), .mcycle_o(mcycle),
    .latch_valid_o(latch_valid), .latch_cause_o(latch_cause), .latch_pc_o(latch_pc),
    .latch_tval_o(latch_tval), .latch_superstep_o(latch_superstep),
    .halted_o, .halt_exit_o, .halt_code_o,
    .retire_valid_o, .retire_pc_o, .retire_insn_o, .retire_trap_o, .retire_cause_o,
    .retire_tval_o, .retire_halt_o, .retire_rd_we_o, .retire_rd_fp_o, .retire_rd_o,
    .retire_rd_wdata_o, .retire_timing_o, .retire_mem_re_o, .retire_mem_we_o,
    .retire_mem_addr_o, .retire_mem_be_o, .retire_mem_wdata_o, .retire_mem_rdata_o,
    .retire_flags_o, .retire_cycle_o
  );
endmodule
