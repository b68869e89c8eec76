// tess_units: the unit test benches of sim/vlt in one Verilated model (a test-bench top, not
// machine RTL). Three designs side by side, unconnected to each other:
//   - the tile (rtl/tile, tess_tile): its ports under their own names (clk_i, rst_ni, run_i,
//     ext_*, retire_*, ...), driven by VltTile (sim/vlt/tile);
//   - the F unit (rtl/tile/fpu, tess_fpu): its ports prefixed fpu_, driven by FpuHarness
//     (sim/vlt/fpu);
//   - the mesh (rtl/noc, tess_mesh): its ports prefixed noc_, driven by NocMesh (sim/vlt/noc).
// Each has its own clock and reset, so that a harness clocking one of them triggers only that
// design's flops (the others' inputs stay constant, their state untouched).
//
// A Verilated model evaluates all logic that depends combinationally on a top-level input at
// every eval() (its 'ico' region), whichever clock moved. So the data inputs of the FPU and of
// the mesh do not reach them directly: they are taken into registers at a rising edge of
// fpu_eval_i / noc_eval_i, which the harness pulses after setting them (FpuHarness::eval,
// NocMesh::eval); everything behind those registers is evaluated only on that strobe or on
// the bench's own clock. A harness therefore sees what the bare design gives for the inputs
// of the cycle, and the tile's harness, which drives the tile's ports directly, pays nothing
// for the other two. Only the tile is traced (VltTile's FST waveforms): tracing the mesh
// costs minutes of compile. The parameters are those of the three models this one replaces
// (sim/vlt/units/CMakeLists.txt sets them with -G from the CMake cache).
module tess_units #(
  parameter int unsigned SRAM_BYTES = 65536,      // the tile's SRAM (the `tiny` target's)
  parameter bit          ULTRA_RAM = 1'b1,        // the tile's SRAM in UltraRAM (the Alveo targets')
  parameter int unsigned NOC_X = 4,               // mesh columns
  parameter int unsigned NOC_Y = 4,               // mesh rows
  parameter int unsigned NOC_HOSTS = 2,           // host nodes on the west edge
  parameter int unsigned NOC_LINK_LATENCY = 2,    // register stages per link
  parameter int unsigned NOC_FIFO_DEPTH = 2,      // flits per router input queue
  localparam int unsigned NocT = NOC_X * NOC_Y,
  localparam int unsigned NocH = NOC_HOSTS > 0 ? NOC_HOSTS : 1,
  localparam int unsigned NocW = tess_flit_pkg::FlitW
) (
  // ---- The tile (tess_tile's ports, same names) ----
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        run_i,
  input  logic [31:0] boot_pc_i,
  input  logic [31:0] tile_id_i,
  input  logic [31:0] tile_count_i,
  input  logic        ext_req_i,
  input  logic        ext_we_i,
  input  logic [31:0] ext_addr_i,
  input  logic [3:0]  ext_be_i,
  input  logic [31:0] ext_wdata_i,
  output logic [31:0] ext_rdata_o,
  output logic        sync_arrive_o,
  output logic [31:0] sync_kind_o,
  input  logic        sync_release_i,
  output logic        xchg_start_o,
  output logic [31:0] xchg_list_o,
  output logic [31:0] xchg_entries_o,
  input  logic        xchg_busy_i,
  input  logic [31:0] xchg_sent_i,
  input  logic [31:0] recv_count_i,
  output logic        console_valid_o,
  output logic [7:0]  console_byte_o,
  output logic        halted_o,
  output logic        halt_exit_o,
  output logic [31:0] halt_code_o,
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
  output logic [63:0] retire_cycle_o,

  // ---- The F unit (tess_fpu's ports, prefixed fpu_) ----
  /*verilator tracing_off*/
  input  logic                  fpu_clk_i,
  input  logic                  fpu_rst_ni,
  input  logic                  fpu_eval_i,   // rising edge: take the fpu_* data inputs
  input  logic                  fpu_issue_i,
  input  tess_fpu_pkg::fpu_op_e fpu_op_i,
  input  logic [2:0]            fpu_rm_i,
  input  logic [31:0]           fpu_a_i,
  input  logic [31:0]           fpu_b_i,
  input  logic [31:0]           fpu_c_i,
  output logic [31:0]           fpu_res1_o,
  output logic [4:0]            fpu_flags1_o,
  output logic [31:0]           fpu_res2_o,
  output logic [4:0]            fpu_flags2_o,
  output logic [31:0]           fpu_res4_o,
  output logic [4:0]            fpu_flags4_o,
  input  logic                  fpu_div_start_i,
  output logic                  fpu_div_done_o,
  output logic [31:0]           fpu_res_div_o,
  output logic [4:0]            fpu_flags_div_o,

  // ---- The mesh (tess_mesh's ports, prefixed noc_) ----
  input  logic                 noc_clk_i,
  input  logic                 noc_rst_ni,
  input  logic                 noc_eval_i,   // rising edge: take the noc_* data inputs
  input  logic [NocT-1:0]      noc_tile_in_valid_i,
  output logic [NocT-1:0]      noc_tile_in_ready_o,
  input  logic [NocT*NocW-1:0] noc_tile_in_flit_i,
  output logic [NocT-1:0]      noc_tile_out_valid_o,
  input  logic [NocT-1:0]      noc_tile_out_ready_i,
  output logic [NocT*NocW-1:0] noc_tile_out_flit_o,
  input  logic [NocH-1:0]      noc_host_in_valid_i,
  output logic [NocH-1:0]      noc_host_in_ready_o,
  input  logic [NocH*NocW-1:0] noc_host_in_flit_i,
  output logic [NocH-1:0]      noc_host_out_valid_o,
  input  logic [NocH-1:0]      noc_host_out_ready_i,
  output logic [NocH*NocW-1:0] noc_host_out_flit_o
);

  /*verilator tracing_on*/
  tess_tile #(.SRAM_BYTES(SRAM_BYTES), .ULTRA_RAM(ULTRA_RAM)) u_tile (
    .clk_i, .rst_ni, .run_i, .boot_pc_i, .tile_id_i, .tile_count_i,
    .ext_req_i, .ext_we_i, .ext_addr_i, .ext_be_i, .ext_wdata_i, .ext_rdata_o,
    .sync_arrive_o, .sync_kind_o, .sync_release_i,
    .xchg_start_o, .xchg_list_o, .xchg_entries_o, .xchg_busy_i, .xchg_sent_i, .recv_count_i,
    .console_valid_o, .console_byte_o, .halted_o, .halt_exit_o, .halt_code_o,
    .retire_valid_o, .retire_pc_o, .retire_insn_o, .retire_trap_o, .retire_cause_o,
    .retire_tval_o, .retire_halt_o, .retire_rd_we_o, .retire_rd_fp_o, .retire_rd_o,
    .retire_rd_wdata_o, .retire_timing_o, .retire_mem_re_o, .retire_mem_we_o,
    .retire_mem_addr_o, .retire_mem_be_o, .retire_mem_wdata_o, .retire_mem_rdata_o,
    .retire_flags_o, .retire_cycle_o
  );

  /*verilator tracing_off*/
  // The FPU's data inputs, as last taken at fpu_eval_i.
  logic                  fpu_issue_q, fpu_div_start_q;
  tess_fpu_pkg::fpu_op_e fpu_op_q;
  logic [2:0]            fpu_rm_q;
  logic [31:0]           fpu_a_q, fpu_b_q, fpu_c_q;
  always_ff @(posedge fpu_eval_i) begin
    fpu_issue_q     <= fpu_issue_i;
    fpu_op_q        <= fpu_op_i;
    fpu_rm_q        <= fpu_rm_i;
    fpu_a_q         <= fpu_a_i;
    fpu_b_q         <= fpu_b_i;
    fpu_c_q         <= fpu_c_i;
    fpu_div_start_q <= fpu_div_start_i;
  end

  tess_fpu u_fpu (
    .clk_i      (fpu_clk_i),
    .rst_ni     (fpu_rst_ni),
    .issue_i    (fpu_issue_q),
    .op_i       (fpu_op_q),
    .rm_i       (fpu_rm_q),
    .a_i        (fpu_a_q),
    .b_i        (fpu_b_q),
    .c_i        (fpu_c_q),
    .res1_o     (fpu_res1_o),
    .flags1_o   (fpu_flags1_o),
    .res2_o     (fpu_res2_o),
    .flags2_o   (fpu_flags2_o),
    .res4_o     (fpu_res4_o),
    .flags4_o   (fpu_flags4_o),
    .div_start_i(fpu_div_start_q),
    .div_done_o (fpu_div_done_o),
    .res_div_o  (fpu_res_div_o),
    .flags_div_o(fpu_flags_div_o)
  );

  // The mesh's data inputs, as last taken at noc_eval_i.
  logic [NocT-1:0]      noc_tile_in_valid_q, noc_tile_out_ready_q;
  logic [NocT*NocW-1:0] noc_tile_in_flit_q;
  logic [NocH-1:0]      noc_host_in_valid_q, noc_host_out_ready_q;
  logic [NocH*NocW-1:0] noc_host_in_flit_q;
  always_ff @(posedge noc_eval_i) begin
    noc_tile_in_valid_q  <= noc_tile_in_valid_i;
    noc_tile_in_flit_q   <= noc_tile_in_flit_i;
    noc_tile_out_ready_q <= noc_tile_out_ready_i;
    noc_host_in_valid_q  <= noc_host_in_valid_i;
    noc_host_in_flit_q   <= noc_host_in_flit_i;
    noc_host_out_ready_q <= noc_host_out_ready_i;
  end

  tess_mesh #(
    .X           (NOC_X),
    .Y           (NOC_Y),
    .HOSTS       (NOC_HOSTS),
    .LINK_LATENCY(NOC_LINK_LATENCY),
    .FIFO_DEPTH  (NOC_FIFO_DEPTH)
  ) u_mesh (
    .clk_i           (noc_clk_i),
    .rst_ni          ({NocT{noc_rst_ni}}),
    .tile_in_valid_i (noc_tile_in_valid_q),
    .tile_in_ready_o (noc_tile_in_ready_o),
    .tile_in_flit_i  (noc_tile_in_flit_q),
    .tile_out_valid_o(noc_tile_out_valid_o),
    .tile_out_ready_i(noc_tile_out_ready_q),
    .tile_out_flit_o (noc_tile_out_flit_o),
    .host_in_valid_i (noc_host_in_valid_q),
    .host_in_ready_o (noc_host_in_ready_o),
    .host_in_flit_i  (noc_host_in_flit_q),
    .host_out_valid_o(noc_host_out_valid_o),
    .host_out_ready_i(noc_host_out_ready_q),
    .host_out_flit_o (noc_host_out_flit_o)
  );

endmodule
