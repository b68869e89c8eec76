// The machine (docs/machine-rtl.md): TILES tiles (tess_tile), one network interface each
// (tess_tile_ni: exchange engine and receive side), the mesh (tess_mesh) with its host
// nodes, and the barrier (tess_barrier). The host side is bare: the host nodes' flit ports,
// run/reset/doorbell in, status out. The device registers (docs/device.md) are built on these
// outputs by tess_axil_regs in the kernel (tess_kernel, docs/kernel.md). Parameters default
// to the `tiny` target (tess_target_tiny_pkg).
module tess_machine #(
  parameter int unsigned MESH_X = tess_target_tiny_pkg::MeshCols,
  parameter int unsigned MESH_Y = tess_target_tiny_pkg::MeshRows,
  parameter int unsigned HOSTS = tess_target_tiny_pkg::HostNodes,
  parameter int unsigned SRAM_BYTES = tess_target_tiny_pkg::SramBytes,
  parameter int unsigned LINK_LATENCY = tess_target_tiny_pkg::LinkLatency,
  parameter int unsigned NOC_FIFO_DEPTH = 2,
  parameter int unsigned NI_FIFO_DEPTH = 4,
  localparam int unsigned T = MESH_X * MESH_Y,
  localparam int unsigned H = HOSTS > 0 ? HOSTS : 1,
  localparam int unsigned FW = tess_noc_pkg::FlitW
) (
  input  logic           clk_i,
  input  logic           rst_ni,      // everything but SRAM contents (CONTROL reset)
  input  logic           run_i,       // 0: cores held in reset; 1: running (CONTROL start)
  input  logic [31:0]    boot_pc_i,   // the firmware's entry
  input  logic           doorbell_i,  // pulse: DOORBELL written
  // Host nodes
  input  logic [H-1:0]    host_in_valid_i,
  output logic [H-1:0]    host_in_ready_o,
  input  logic [H*FW-1:0] host_in_flit_i,
  output logic [H-1:0]    host_out_valid_o,
  input  logic [H-1:0]    host_out_ready_i,
  output logic [H*FW-1:0] host_out_flit_o,
  // Status
  output logic [2:0]     state_o,
  output logic [31:0]    superstep_o,
  output logic [T-1:0]   arrived_o,   // arrived at the pending barrier, or halted
  output logic [T-1:0]   halted_o,
  output logic           net_idle_o,
  output logic [31:0]    err_tile_o,
  output logic [31:0]    err_superstep_o,
  output logic [31:0]    err_cause_o,
  output logic [31:0]    err_pc_o,
  output logic [31:0]    err_tval_o,
  output logic [31:0]    err_detail_o,
  output logic           release_o,   // pulse: a barrier released
  output logic [T-1:0]   console_valid_o,
  output logic [T*8-1:0] console_byte_o
);
  logic [T-1:0]    tin_valid, tin_ready, tout_valid, tout_ready;
  logic [T*FW-1:0] tin_flit, tout_flit;

  logic [T-1:0]    ni_arrived, ni_done, t_halted, t_exit;
  logic [T*32-1:0] ni_kind, ni_count, ni_expect, t_code;
  logic [T*32-1:0] first_pc, first_tval, last_pc, last_tval;
  logic            go, release_p;

  for (genvar n = 0; n < T; n++) begin : g_tile
    logic        ext_req, ext_we;
    logic [31:0] ext_addr, ext_wdata, ext_rdata;
    logic [3:0]  ext_be;
    logic        sync_arrive;
    logic [31:0] sync_kind;
    logic        xchg_start, xchg_busy;
    logic [31:0] xchg_list, xchg_entries, xchg_sent, recv_count;
    logic        r_valid, r_trap, r_mem_we;
    logic [31:0] r_pc, r_tval, r_mem_addr, r_mem_wdata;
    logic        first_q;
    logic [31:0] first_pc_q, first_tval_q, last_pc_q, last_tval_q;
    localparam logic [31:0] Id = n;
    localparam logic [31:0] Count = T;

    /* verilator lint_off PINCONNECTEMPTY */
    tess_tile #(.SRAM_BYTES(SRAM_BYTES)) u_tile (
      .clk_i, .rst_ni, .run_i, .boot_pc_i,
      .tile_id_i(Id), .tile_count_i(Count),
      .ext_req_i(ext_req), .ext_we_i(ext_we), .ext_addr_i(ext_addr), .ext_be_i(ext_be),
      .ext_wdata_i(ext_wdata), .ext_rdata_o(ext_rdata),
      .sync_arrive_o(sync_arrive), .sync_kind_o(sync_kind), .sync_release_i(release_p),
      .xchg_start_o(xchg_start), .xchg_list_o(xchg_list), .xchg_entries_o(xchg_entries),
      .xchg_busy_i(xchg_busy), .xchg_sent_i(xchg_sent), .recv_count_i(recv_count),
      .console_valid_o(console_valid_o[n]), .console_byte_o(console_byte_o[n*8 +: 8]),
      .halted_o(t_halted[n]), .halt_exit_o(t_exit[n]), .halt_code_o(t_code[n*32 +: 32]),
      .retire_valid_o(r_valid), .retire_pc_o(r_pc), .retire_insn_o(),
      .retire_trap_o(r_trap), .retire_cause_o(), .retire_tval_o(r_tval), .retire_halt_o(),
      .retire_rd_we_o(), .retire_rd_fp_o(), .retire_rd_o(), .retire_rd_wdata_o(),
      .retire_timing_o(), .retire_mem_re_o(), .retire_mem_we_o(r_mem_we),
      .retire_mem_addr_o(r_mem_addr), .retire_mem_be_o(), .retire_mem_wdata_o(r_mem_wdata),
      .retire_mem_rdata_o(), .retire_flags_o(), .retire_cycle_o()
    );
    /* verilator lint_on PINCONNECTEMPTY */

    tess_tile_ni #(.FIFO_DEPTH(NI_FIFO_DEPTH)) u_ni (
      .clk_i, .rst_ni, .run_i, .node_id_i(Id[15:0]),
      .ext_req_o(ext_req), .ext_we_o(ext_we), .ext_addr_o(ext_addr), .ext_be_o(ext_be),
      .ext_wdata_o(ext_wdata), .ext_rdata_i(ext_rdata),
      .xchg_start_i(xchg_start), .xchg_list_i(xchg_list), .xchg_entries_i(xchg_entries),
      .xchg_busy_o(xchg_busy), .xchg_sent_o(xchg_sent), .recv_count_o(recv_count),
      .retire_valid_i(r_valid), .retire_mem_we_i(r_mem_we), .retire_mem_addr_i(r_mem_addr),
      .retire_mem_wdata_i(r_mem_wdata),
      .arrived_o(ni_arrived[n]), .kind_o(ni_kind[n*32 +: 32]), .recv_expect_o(ni_expect[n*32 +: 32]),
      .done_o(ni_done[n]), .go_i(go), .release_i(release_p),
      .inj_valid_o(tin_valid[n]), .inj_ready_i(tin_ready[n]), .inj_flit_o(tin_flit[n*FW +: FW]),
      .ej_valid_i(tout_valid[n]), .ej_ready_o(tout_ready[n]), .ej_flit_i(tout_flit[n*FW +: FW])
    );
    assign ni_count[n*32 +: 32] = recv_count;

    // Trap records from the retire port: the first (what the trap latch holds) and the last
    // (the one that halted the tile, when it halts on a trap).
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        first_q <= 1'b0;
        first_pc_q <= 32'd0;
        first_tval_q <= 32'd0;
        last_pc_q <= 32'd0;
        last_tval_q <= 32'd0;
      end else if (r_valid && r_trap) begin
        if (!first_q) begin
          first_q <= 1'b1;
          first_pc_q <= r_pc;
          first_tval_q <= r_tval;
        end
        last_pc_q <= r_pc;
        last_tval_q <= r_tval;
      end
    end
    assign first_pc[n*32 +: 32] = first_pc_q;
    assign first_tval[n*32 +: 32] = first_tval_q;
    assign last_pc[n*32 +: 32] = last_pc_q;
    assign last_tval[n*32 +: 32] = last_tval_q;
    // The tile's own arrival pulse (at the SYNC store's commit) is not used: the NI takes
    // the arrival from the retire port, after RECV_EXPECT (docs/machine-rtl.md).
    logic unused_sync;
    assign unused_sync = sync_arrive ^ (^sync_kind);
  end

  tess_mesh #(
    .X(MESH_X), .Y(MESH_Y), .HOSTS(HOSTS), .LINK_LATENCY(LINK_LATENCY), .FIFO_DEPTH(NOC_FIFO_DEPTH)
  ) u_mesh (
    .clk_i, .rst_ni,
    .tile_in_valid_i(tin_valid), .tile_in_ready_o(tin_ready), .tile_in_flit_i(tin_flit),
    .tile_out_valid_o(tout_valid), .tile_out_ready_i(tout_ready), .tile_out_flit_o(tout_flit),
    .host_in_valid_i, .host_in_ready_o, .host_in_flit_i,
    .host_out_valid_o, .host_out_ready_i, .host_out_flit_o
  );

  // Flits in the network: +1 per flit injected, -1 per flit ejected (a read request leaves
  // and its reply enters, so the count covers both).
  logic [31:0] in_flight_q, n_in, n_out;
  always_comb begin
    n_in = 32'd0;
    n_out = 32'd0;
    for (int i = 0; i < T; i++) begin
      n_in = n_in + {31'd0, tin_valid[i] && tin_ready[i]};
      n_out = n_out + {31'd0, tout_valid[i] && tout_ready[i]};
    end
    for (int i = 0; i < H; i++) begin
      n_in = n_in + {31'd0, host_in_valid_i[i] && host_in_ready_o[i]};
      n_out = n_out + {31'd0, host_out_valid_o[i] && host_out_ready_i[i]};
    end
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) in_flight_q <= 32'd0;
    else in_flight_q <= in_flight_q + n_in - n_out;
  end
  assign net_idle_o = in_flight_q == 32'd0;

  logic [1:0] err_src;
  tess_barrier #(.TILES(T)) u_barrier (
    .clk_i, .rst_ni, .run_i,
    .arrived_i(ni_arrived), .kind_i(ni_kind), .done_i(ni_done), .count_i(ni_count), .expect_i(ni_expect),
    .halted_i(t_halted), .halt_exit_i(t_exit), .halt_code_i(t_code),
    .net_idle_i(net_idle_o), .doorbell_i,
    .go_o(go), .release_o(release_p), .state_o, .superstep_o,
    .err_tile_o, .err_superstep_o, .err_cause_o, .err_detail_o, .err_src_o(err_src)
  );
  assign release_o = release_p;

  always_comb begin
    err_pc_o = 32'd0;
    err_tval_o = 32'd0;
    for (int i = 0; i < T; i++) begin
      if (err_tile_o == i) begin
        if (err_src == 2'd1) begin
          err_pc_o = last_pc[i*32 +: 32];
          err_tval_o = last_tval[i*32 +: 32];
        end else if (err_src == 2'd2) begin
          err_pc_o = first_pc[i*32 +: 32];
          err_tval_o = first_tval[i*32 +: 32];
        end
      end
    end
  end
  assign arrived_o = ni_arrived | t_halted;
  assign halted_o = t_halted;
endmodule
