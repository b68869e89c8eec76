// The machine as a Vitis user-managed RTL kernel (docs/kernel.md): ap_clk, ap_rst_n, the
// device registers on s_axi_control (AXI4-Lite, tess_axil_regs; offsets of
// arch/device_regs.toml), one AXI4-Stream pair per host node (tess_host_port: s_axis_h2d_*
// host -> device, m_axis_d2h_* device -> host, one flit per beat) and interrupt
// (|(EVENTS & EVENT_MASK)). Inside: tess_machine (docs/machine-rtl.md).
//
// With HOSTS > 1 the stream signals are vectors, host node h in slice h; packaging gives each
// slice its own interface (docs/kernel.md). The tiles' console bytes have no port here (the
// simulation harness reads them from tess_machine).
module tess_kernel #(
  parameter int unsigned MESH_X = tess_target_tiny_pkg::MeshCols,
  parameter int unsigned MESH_Y = tess_target_tiny_pkg::MeshRows,
  parameter int unsigned HOSTS = tess_target_tiny_pkg::HostNodes,
  parameter int unsigned SRAM_BYTES = tess_target_tiny_pkg::SramBytes,
  parameter bit          ULTRA_RAM = tess_target_tiny_pkg::UltraRam,  // SRAM in UltraRAM, else block RAM
  parameter int unsigned LINK_LATENCY = tess_target_tiny_pkg::LinkLatency,
  parameter logic [31:0] TARGET_HASH = tess_target_tiny_pkg::TargetHash,
  parameter logic [31:0] BOOT_PC = tess_arch_pkg::SRAM_BASE,  // the firmware's entry (_start)
  localparam int unsigned T = MESH_X * MESH_Y,
  localparam int unsigned H = HOSTS > 0 ? HOSTS : 1,
  localparam int unsigned FW = tess_flit_pkg::FlitW,
  localparam int unsigned DW = (tess_flit_pkg::FlitW + 7) / 8 * 8
) (
  input  logic           ap_clk,
  input  logic           ap_rst_n,
  // s_axi_control: AXI4-Lite slave, the device registers
  input  logic           s_axi_control_awvalid,
  output logic           s_axi_control_awready,
  input  logic [11:0]    s_axi_control_awaddr,
  input  logic           s_axi_control_wvalid,
  output logic           s_axi_control_wready,
  input  logic [31:0]    s_axi_control_wdata,
  input  logic [3:0]     s_axi_control_wstrb,
  output logic           s_axi_control_bvalid,
  input  logic           s_axi_control_bready,
  output logic [1:0]     s_axi_control_bresp,
  input  logic           s_axi_control_arvalid,
  output logic           s_axi_control_arready,
  input  logic [11:0]    s_axi_control_araddr,
  output logic           s_axi_control_rvalid,
  input  logic           s_axi_control_rready,
  output logic [31:0]    s_axi_control_rdata,
  output logic [1:0]     s_axi_control_rresp,
  // AXI4-Stream per host node: host -> device
  input  logic [H-1:0]    s_axis_h2d_tvalid,
  output logic [H-1:0]    s_axis_h2d_tready,
  input  logic [H*DW-1:0] s_axis_h2d_tdata,
  // AXI4-Stream per host node: device -> host
  output logic [H-1:0]    m_axis_d2h_tvalid,
  input  logic [H-1:0]    m_axis_d2h_tready,
  output logic [H*DW-1:0] m_axis_d2h_tdata,
  output logic           interrupt
);
  logic            mach_rst_n, run, doorbell, busy, abort;
  logic [2:0]      state;
  logic [31:0]     superstep, err_tile, err_superstep, err_cause, err_pc, err_tval, err_detail;
  logic [T-1:0]    arrived;
  logic [H-1:0]    in_valid, in_ready, out_valid, out_ready;
  logic [H*FW-1:0] in_flit, out_flit;

  // The machine-wide trees' depth (tess_machine's SYNC_DEPTH): the register block holds the
  // host ports that much longer after a reset, until the reset tree has released every tile.
  localparam int unsigned SyncDepth = tess_sync_pkg::depth(T);

  tess_axil_regs #(.TILES(T), .TARGET_HASH(TARGET_HASH), .TREE_DEPTH(SyncDepth)) u_regs (
    .clk_i(ap_clk), .rst_ni(ap_rst_n),
    .awvalid_i(s_axi_control_awvalid), .awready_o(s_axi_control_awready), .awaddr_i(s_axi_control_awaddr),
    .wvalid_i(s_axi_control_wvalid), .wready_o(s_axi_control_wready), .wdata_i(s_axi_control_wdata),
    .wstrb_i(s_axi_control_wstrb),
    .bvalid_o(s_axi_control_bvalid), .bready_i(s_axi_control_bready), .bresp_o(s_axi_control_bresp),
    .arvalid_i(s_axi_control_arvalid), .arready_o(s_axi_control_arready), .araddr_i(s_axi_control_araddr),
    .rvalid_o(s_axi_control_rvalid), .rready_i(s_axi_control_rready), .rdata_o(s_axi_control_rdata),
    .rresp_o(s_axi_control_rresp),
    .interrupt_o(interrupt),
    .mach_rst_no(mach_rst_n), .run_o(run), .doorbell_o(doorbell), .busy_o(busy), .abort_o(abort),
    .state_i(state), .superstep_i(superstep), .arrived_i(arrived),
    .err_tile_i(err_tile), .err_superstep_i(err_superstep), .err_cause_i(err_cause),
    .err_pc_i(err_pc), .err_tval_i(err_tval), .err_detail_i(err_detail)
  );

  for (genvar h = 0; h < H; h++) begin : g_host
    tess_host_port u_port (
      .clk_i(ap_clk), .rst_ni(ap_rst_n), .hold_i(busy),
      .s_tvalid_i(s_axis_h2d_tvalid[h]), .s_tready_o(s_axis_h2d_tready[h]), .s_tdata_i(s_axis_h2d_tdata[h*DW +: DW]),
      .m_tvalid_o(m_axis_d2h_tvalid[h]), .m_tready_i(m_axis_d2h_tready[h]), .m_tdata_o(m_axis_d2h_tdata[h*DW +: DW]),
      .inj_valid_o(in_valid[h]), .inj_ready_i(in_ready[h]), .inj_flit_o(in_flit[h*FW +: FW]),
      .ej_valid_i(out_valid[h]), .ej_ready_o(out_ready[h]), .ej_flit_i(out_flit[h*FW +: FW])
    );
  end

  /* verilator lint_off PINCONNECTEMPTY */
  tess_machine #(
    .MESH_X(MESH_X), .MESH_Y(MESH_Y), .HOSTS(HOSTS), .SRAM_BYTES(SRAM_BYTES), .ULTRA_RAM(ULTRA_RAM),
    .LINK_LATENCY(LINK_LATENCY), .SYNC_DEPTH(SyncDepth)
  ) u_machine (
    .clk_i(ap_clk), .rst_ni(mach_rst_n), .run_i(run), .abort_i(abort), .boot_pc_i(BOOT_PC), .doorbell_i(doorbell),
    .host_in_valid_i(in_valid), .host_in_ready_o(in_ready), .host_in_flit_i(in_flit),
    .host_out_valid_o(out_valid), .host_out_ready_i(out_ready), .host_out_flit_o(out_flit),
    .state_o(state), .superstep_o(superstep), .arrived_o(arrived), .halted_o(), .net_idle_o(),
    .err_tile_o(err_tile), .err_superstep_o(err_superstep), .err_cause_o(err_cause),
    .err_pc_o(err_pc), .err_tval_o(err_tval), .err_detail_o(err_detail),
    .release_o(), .console_valid_o(), .console_byte_o()
  );
  /* verilator lint_on PINCONNECTEMPTY */
endmodule
