// The machine (docs/machine-rtl.md): TILES tiles (tess_tile), one network interface each
// (tess_tile_ni: exchange engine and receive side), the mesh (tess_mesh) with its host
// nodes, and the barrier (tess_barrier). The host side is bare: the host nodes' flit ports,
// run/reset/doorbell in, status out. The device registers (docs/device.md) are built on these
// outputs by tess_axil_regs in the kernel (tess_kernel, docs/kernel.md). Parameters default
// to the `tiny` target (tess_target_tiny_pkg).
//
// Read credits (docs/network.md): a read request (kind 1) from a host node enters the mesh
// only with one of READ_CREDITS credits, shared by all host nodes; a credit comes back when
// the request's reply leaves its tile's NI (or when a read request leaves at a host node,
// which answers nothing). With READ_CREDITS <= NI_FIFO_DEPTH an NI always has room for the
// reply of every read request that reaches it, so its ejection port never waits for its
// injection port, and the mesh cannot deadlock whatever the host nodes send.
//
// abort_i (CONTROL abort): the cores are held in reset (the tile's run_i), the NIs' engines
// and arrivals stop, the barrier freezes; arrived_o and halted_o keep the values they had.
// Arriving flits are still written and read requests answered, so the mesh drains.
//
// Machine-wide trees (docs/machine-rtl.md): nothing reaches every tile or comes from every
// tile in one cycle. SYNC_DEPTH register levels (tess_sync_pkg::depth of the tile count)
// carry the reset (tess_bcast_tree, a reset tree), run, abort, go and release out to the
// tiles, every tile seeing them in the same cycle; the counts of flits in flight and of
// credits returned are sums over registered adder trees of the same depth
// (tess_reduce_tree), and the barrier's own trees are one level deeper.
module tess_machine #(
  parameter int unsigned MESH_X = tess_target_tiny_pkg::MeshCols,
  parameter int unsigned MESH_Y = tess_target_tiny_pkg::MeshRows,
  parameter int unsigned HOSTS = tess_target_tiny_pkg::HostNodes,
  parameter int unsigned SRAM_BYTES = tess_target_tiny_pkg::SramBytes,
  parameter bit          ULTRA_RAM = tess_target_tiny_pkg::UltraRam,  // SRAM in UltraRAM, else block RAM
  parameter int unsigned LINK_LATENCY = tess_target_tiny_pkg::LinkLatency,
  parameter int unsigned NOC_FIFO_DEPTH = 2,
  parameter int unsigned NI_FIFO_DEPTH = 4,
  parameter int unsigned READ_CREDITS = NI_FIFO_DEPTH,  // at most NI_FIFO_DEPTH
  parameter int unsigned SYNC_DEPTH = tess_sync_pkg::depth(MESH_X * MESH_Y),  // the trees' register levels
  localparam int unsigned T = MESH_X * MESH_Y,
  localparam int unsigned H = HOSTS > 0 ? HOSTS : 1,
  localparam int unsigned FW = tess_flit_pkg::FlitW
) (
  input  logic           clk_i,
  input  logic           rst_ni,      // everything but SRAM contents (CONTROL reset)
  input  logic           run_i,       // 0: cores held in reset; 1: running (CONTROL start)
  input  logic           abort_i,     // CONTROL abort: everything stops until reset (level)
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
  output logic           release_o,   // pulse: a barrier released (the tiles see it SYNC_DEPTH cycles later)
  output logic [T-1:0]   console_valid_o,
  output logic [T*8-1:0] console_byte_o
);
  logic [T-1:0]    tin_valid, tin_ready, tout_valid, tout_ready;
  logic [T*FW-1:0] tin_flit, tout_flit;

  logic [T-1:0]    ni_arrived, ni_done, t_halted, t_exit, ni_rep_take, ni_rep_sent;
  logic [T*32-1:0] ni_kind, ni_count, ni_expect, t_code;
  logic [T*32-1:0] first_pc, first_tval, last_pc, last_tval, trap_pc, trap_tval;
  logic            go, release_p;

  // ---- the reset tree and the broadcasts (path 8 of docs/timing.md) --------------------
  // Each tile's reset and its copy of {abort, run, go, release} come from its own leaf of a
  // registered tree, SYNC_DEPTH cycles after the root: every tile sees each pulse in the same
  // cycle. The root's logic (the barrier, the counts, the credits) takes rst_ni itself; it
  // leaves reset SYNC_DEPTH cycles before the tiles, while nothing can move (the register
  // block keeps the host ports held until the tiles are out of reset, docs/kernel.md).
  localparam int unsigned D = SYNC_DEPTH;
  localparam int unsigned BcW = 4;
  logic [T-1:0]     t_rst_n;
  logic [T*BcW-1:0] bc_leaf;
  if (D == 0) begin : g_rst_flat
    assign t_rst_n = {T{rst_ni}};
  end else begin : g_rst_tree
    tess_bcast_tree #(.N(T), .W(1), .STAGES(D)) u_rst_tree (
      .clk_i, .rst_ni, .in_i(1'b1), .out_o(t_rst_n));
  end
  tess_bcast_tree #(.N(T), .W(BcW), .STAGES(D)) u_bcast (
    .clk_i, .rst_ni, .in_i({abort_i, run_i, go, release_p}), .out_o(bc_leaf));
  // The depth as a signal the harness reads (its phases and its idle check allow for it).
  logic [7:0] sync_depth;
  assign sync_depth = D[7:0];
  logic unused_probe;
  assign unused_probe = ^sync_depth;

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
    logic l_release, l_go, l_run, l_abort, l_tile_run, rst_n;
    assign {l_abort, l_run, l_go, l_release} = bc_leaf[n*BcW +: BcW];
    assign l_tile_run = l_run && !l_abort;
    assign rst_n = t_rst_n[n];

    /* verilator lint_off PINCONNECTEMPTY */
    tess_tile #(.SRAM_BYTES(SRAM_BYTES), .ULTRA_RAM(ULTRA_RAM)) u_tile (
      .clk_i, .rst_ni(rst_n), .run_i(l_tile_run), .boot_pc_i,
      .tile_id_i(Id), .tile_count_i(Count),
      .ext_req_i(ext_req), .ext_we_i(ext_we), .ext_addr_i(ext_addr), .ext_be_i(ext_be),
      .ext_wdata_i(ext_wdata), .ext_rdata_o(ext_rdata),
      .sync_arrive_o(sync_arrive), .sync_kind_o(sync_kind), .sync_release_i(l_release),
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
      .clk_i, .rst_ni(rst_n), .run_i(l_run), .stop_i(l_abort), .node_id_i(Id[tess_flit_pkg::NodeW-1:0]),
      .ext_req_o(ext_req), .ext_we_o(ext_we), .ext_addr_o(ext_addr), .ext_be_o(ext_be),
      .ext_wdata_o(ext_wdata), .ext_rdata_i(ext_rdata),
      .xchg_start_i(xchg_start), .xchg_list_i(xchg_list), .xchg_entries_i(xchg_entries),
      .xchg_busy_o(xchg_busy), .xchg_sent_o(xchg_sent), .recv_count_o(recv_count),
      .retire_valid_i(r_valid), .retire_mem_we_i(r_mem_we), .retire_mem_addr_i(r_mem_addr),
      .retire_mem_wdata_i(r_mem_wdata),
      .arrived_o(ni_arrived[n]), .kind_o(ni_kind[n*32 +: 32]), .recv_expect_o(ni_expect[n*32 +: 32]),
      .done_o(ni_done[n]), .go_i(l_go), .release_i(l_release),
      .rep_take_o(ni_rep_take[n]), .rep_sent_o(ni_rep_sent[n]),
      .inj_valid_o(tin_valid[n]), .inj_ready_i(tin_ready[n]), .inj_flit_o(tin_flit[n*FW +: FW]),
      .ej_valid_i(tout_valid[n]), .ej_ready_o(tout_ready[n]), .ej_flit_i(tout_flit[n*FW +: FW])
    );
    assign ni_count[n*32 +: 32] = recv_count;

    // Trap records from the retire port: the first (what the trap latch holds) and the last
    // (the one that halted the tile, when it halts on a trap).
    always_ff @(posedge clk_i or negedge rst_n) begin
      if (!rst_n) begin
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
    // The record ERR_PC/ERR_TVAL show if this tile's halt becomes the error: the halting trap
    // when it halted on a trap, else the first trap (the runtime's handler exits with
    // kExitTrap | mcause after it). A 2:1 choice next to the tile, by a flop (halt_exit_o); the
    // barrier's lowest-index tree carries the result with the error (tess_barrier).
    assign trap_pc[n*32 +: 32] = t_exit[n] ? first_pc_q : last_pc_q;
    assign trap_tval[n*32 +: 32] = t_exit[n] ? first_tval_q : last_tval_q;
    // The tile's own arrival pulse (at the SYNC store's commit) is not used: the NI takes
    // the arrival from the retire port, after RECV_EXPECT (docs/machine-rtl.md).
    logic unused_sync;
    assign unused_sync = sync_arrive ^ (^sync_kind);

    // After an abort the cores are held in reset (their halted flags clear): ARRIVED and the
    // halted flag keep what they were in the cycle the tile's abort came (the last one before
    // the core's reset; the NI takes no arrival from then on).
    logic abort_q, arrived_frz_q, halted_frz_q;
    always_ff @(posedge clk_i or negedge rst_n) begin
      if (!rst_n) begin
        abort_q <= 1'b0;
        arrived_frz_q <= 1'b0;
        halted_frz_q <= 1'b0;
      end else begin
        abort_q <= l_abort;
        if (!abort_q) begin
          arrived_frz_q <= ni_arrived[n] | t_halted[n];
          halted_frz_q <= t_halted[n];
        end
      end
    end
    assign arrived_o[n] = abort_q ? arrived_frz_q : ni_arrived[n] | t_halted[n];
    assign halted_o[n] = abort_q ? halted_frz_q : t_halted[n];
  end

  // ---- the host nodes' read credits ---------------------------------------------------
  // One read request a cycle enters the mesh, while a credit is free, round robin over the
  // host nodes. The choice is registered: owner_q names the one host node that may send a
  // read request this cycle, and a credit is set aside for it. A host node's ready for a read
  // request thus depends only on its own flit, its router's ready (a flop) and its owner bit
  // (a flop), never on another host node's request: on the Alveo targets the host nodes are
  // one per SLR, and a one-cycle grant over all of them would cross the device twice from a
  // host port's TVALID to another's TREADY (docs/timing.md). The arbiter itself takes this
  // cycle's requests and fire into its flops (owner_q, last_q, credits_q): every path through
  // it starts or ends at a flop next to it. While no node asks, the owner stays on the node
  // chosen last (a stream of reads through one node goes one a cycle, as before); a node
  // that asks while another owns waits a cycle for its turn. With one host node this is the
  // one-cycle grant it replaced, cycle for cycle.
  localparam int unsigned CreditW = $clog2(READ_CREDITS + 1);
  localparam int unsigned RetW = $clog2(T + H + 1);  // any count of T + H one-bit leaves
  localparam int unsigned RrW = H > 1 ? $clog2(H) : 1;
  localparam logic [CreditW-1:0] Credits = READ_CREDITS[CreditW-1:0];
  logic [H-1:0]    m_in_valid, m_in_ready, h_read, h_req, h_fire, owner_q, owner_d;
  logic [CreditW-1:0] credits_q;
  logic [RetW-1:0] ret_q, ret_sum;
  logic [RrW-1:0]  last_q, last_d;
  logic [31:0]     start32, idx32, credits_d;
  logic            fired, found;
  always_comb begin
    for (int h = 0; h < H; h++) begin
      h_read[h] = host_in_flit_i[h*FW + tess_flit_pkg::KindLsb +: tess_flit_pkg::KindW] == tess_flit_pkg::KindRead;
      h_req[h] = host_in_valid_i[h] && h_read[h] && m_in_ready[h];
    end
    h_fire = h_req & owner_q;
    fired = |h_fire;
    m_in_valid = host_in_valid_i & (~h_read | h_fire);
    host_in_ready_o = m_in_ready & (~h_read | owner_q);
    credits_d = {{(32 - CreditW){1'b0}}, credits_q} - {31'd0, fired} + {{(32 - RetW){1'b0}}, ret_q};
    // The next owner: the first node asking after the last one chosen, else the last one
    // again; none while no credit is left for it.
    found = 1'b0;
    last_d = last_q;
    idx32 = 32'd0;
    start32 = {{(32 - RrW){1'b0}}, last_q} + 32'd1;
    for (int k = 0; k < 2 * H; k++) begin
      if (!found && k >= start32 && k < start32 + H && h_req[k % H]) begin
        found = 1'b1;
        idx32 = k % H;
        last_d = idx32[RrW-1:0];
      end
    end
    for (int h = 0; h < H; h++)
      owner_d[h] = credits_d[CreditW-1:0] != '0 && {{(32 - RrW){1'b0}}, last_d} == h;
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      credits_q <= Credits;
      ret_q <= '0;
      last_q <= '0;
      owner_q <= '0;
      owner_q[0] <= 1'b1;
    end else begin
`ifndef SYNTHESIS
      assert (!fired || credits_q != '0)
        else $error("%m: a host read request entered the mesh without a credit");
`endif
      // Registered returns: a credit comes back SYNC_DEPTH + 1 cycles late, never early.
      ret_q <= ret_sum;
      last_q <= last_d;
      owner_q <= owner_d;
      credits_q <= credits_d[CreditW-1:0];
    end
  end
  logic unused_wide;  // the 32-bit temporaries' upper bits
  assign unused_wide = ^{idx32, credits_d};
  tess_mesh #(
    .X(MESH_X), .Y(MESH_Y), .HOSTS(HOSTS), .LINK_LATENCY(LINK_LATENCY), .FIFO_DEPTH(NOC_FIFO_DEPTH)
  ) u_mesh (
    .clk_i, .rst_ni(t_rst_n),
    .tile_in_valid_i(tin_valid), .tile_in_ready_o(tin_ready), .tile_in_flit_i(tin_flit),
    .tile_out_valid_o(tout_valid), .tile_out_ready_i(tout_ready), .tile_out_flit_o(tout_flit),
    .host_in_valid_i(m_in_valid), .host_in_ready_o(m_in_ready), .host_in_flit_i,
    .host_out_valid_o, .host_out_ready_i, .host_out_flit_o
  );

  // ---- machine-wide counts (path 6 of docs/timing.md) -------------------------------------
  // One-bit events per tile and host node, summed by registered adder trees (SYNC_DEPTH
  // levels; the first level adds a group of neighbouring leaves next to them):
  // - flits in: injection handshakes, but not a read reply entering the mesh;
  // - flits out: ejection handshakes, but not an NI taking a read request (a request and its
  //   reply are one item, so the count, and "network idle", covers a reply waiting in an NI);
  // - credits back: replies leaving their NIs, read requests leaving at host nodes;
  // - neither in nor out: debug writes (the host's uncounted writes). The host fences its own
  //   (docs/kernel.md, "Delivery"), and device memory's words stream on after a release while
  //   the tiles compute: were they counted, every barrier would wait for them to drain.
  // Host node h is leaf h and tile i leaf H + i: the host nodes sit at the west ends of rows
  // 0..H-1, so the first group holds them with the first tiles of row 0.
  localparam int unsigned L = T + H;
  localparam int unsigned KL = tess_flit_pkg::KindLsb, KW = tess_flit_pkg::KindW;
  function automatic logic debug_write(input logic [KW-1:0] kind);
    return kind == tess_flit_pkg::KindDebugWrite;
  endfunction
  logic [L*RetW-1:0] l_in, l_out, l_ret;
  always_comb begin
    l_in = '0;
    l_out = '0;
    l_ret = '0;
    for (int i = 0; i < T; i++) begin
      l_in[(H + i)*RetW] = tin_valid[i] && tin_ready[i] && !ni_rep_sent[i] && !debug_write(tin_flit[i*FW + KL +: KW]);
      l_out[(H + i)*RetW] = tout_valid[i] && tout_ready[i] && !ni_rep_take[i] && !debug_write(tout_flit[i*FW + KL +: KW]);
      l_ret[(H + i)*RetW] = ni_rep_sent[i];
    end
    for (int h = 0; h < H; h++) begin
      l_in[h*RetW] = m_in_valid[h] && m_in_ready[h] && !debug_write(host_in_flit_i[h*FW + KL +: KW]);
      l_out[h*RetW] = host_out_valid_o[h] && host_out_ready_i[h] && !debug_write(host_out_flit_o[h*FW + KL +: KW]);
      l_ret[h*RetW] = host_out_valid_o[h] && host_out_ready_i[h] &&
          host_out_flit_o[h*FW + tess_flit_pkg::KindLsb +: tess_flit_pkg::KindW] == tess_flit_pkg::KindRead;
    end
  end
  logic [RetW-1:0] sum_in, sum_out;
  tess_reduce_tree #(.N(L), .W(RetW), .OP(1), .STAGES(D)) u_sum_in (
    .clk_i, .rst_ni, .in_i(l_in), .out_o(sum_in));
  tess_reduce_tree #(.N(L), .W(RetW), .OP(1), .STAGES(D)) u_sum_out (
    .clk_i, .rst_ni, .in_i(l_out), .out_o(sum_out));
  tess_reduce_tree #(.N(L), .W(RetW), .OP(1), .STAGES(D)) u_sum_ret (
    .clk_i, .rst_ni, .in_i(l_ret), .out_o(ret_sum));

  // Flits in the network: the running sum. in_flight_q is the count of SYNC_DEPTH cycles ago
  // (each level of the trees a cycle), so net_idle_o says "the network was idle then"; the
  // barrier compares it with its other summaries of that same cycle (docs/machine-rtl.md,
  // "Never stale").
  logic [31:0] in_flight_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) in_flight_q <= 32'd0;
    else in_flight_q <= in_flight_q + {{(32 - RetW){1'b0}}, sum_in} - {{(32 - RetW){1'b0}}, sum_out};
  end
  assign net_idle_o = in_flight_q == 32'd0;

`ifndef SYNTHESIS
  // The count against the plain one-cycle count of every handshake (what this replaced),
  // SYNC_DEPTH cycles later: no flit is counted late, early, twice or not at all.
  logic [31:0] flat_q, flat_in, flat_out;
  logic [(D+1)*32-1:0] flat_hist_q;  // [i*32 +: 32]: the plain count i cycles ago
  always_comb begin
    flat_in = 32'd0;
    flat_out = 32'd0;
    for (int i = 0; i < L; i++) begin
      flat_in = flat_in + {31'd0, l_in[i*RetW]};
      flat_out = flat_out + {31'd0, l_out[i*RetW]};
    end
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      flat_q <= 32'd0;
      flat_hist_q <= '0;
    end else begin
      assert (in_flight_q == flat_hist_q[D*32 +: 32])
        else $error("%m: flits in flight %0d, the plain count %0d cycles ago %0d", in_flight_q, D,
                    flat_hist_q[D*32 +: 32]);
      flat_q <= flat_q + flat_in - flat_out;
      flat_hist_q[0 +: 32] <= flat_q + flat_in - flat_out;
      for (int i = 1; i <= D; i++) flat_hist_q[i*32 +: 32] <= flat_hist_q[(i-1)*32 +: 32];
    end
  end
`endif

  logic [1:0] err_src;
  tess_barrier #(.TILES(T), .DEPTH(D), .BCAST_DEPTH(D), .IDLE_LAG(D)) u_barrier (
    .clk_i, .rst_ni, .run_i, .freeze_i(abort_i),
    .arrived_i(ni_arrived), .kind_i(ni_kind), .done_i(ni_done), .count_i(ni_count), .expect_i(ni_expect),
    .halted_i(t_halted), .halt_exit_i(t_exit), .halt_code_i(t_code),
    .trap_pc_i(trap_pc), .trap_tval_i(trap_tval),
    .net_idle_i(net_idle_o), .doorbell_i,
    .go_o(go), .release_o(release_p), .state_o, .superstep_o,
    .err_tile_o, .err_superstep_o, .err_cause_o, .err_detail_o, .err_pc_o, .err_tval_o,
    .err_src_o(err_src)
  );
  assign release_o = release_p;

  // ERR_PC and ERR_TVAL come from the barrier's flops, taken with ERR_TILE from its
  // lowest-index tree (docs/timing.md, the host side). They replaced a T-wide multiplexer
  // that read tile ERR_TILE's trap records every cycle, from ERR_TILE's flop across the
  // device into the register block's err_pc_q/err_tval_q.
`ifndef SYNTHESIS
  // Against that multiplexer, every cycle: the registered values are the selected tile's
  // records as they are now (its last trap when it halted on one, else its first), so a
  // record that still moved after the barrier's summary was taken would show here. Only this
  // check reads err_src and the first and last records by tile.
  logic [31:0] direct_pc, direct_tval;
  always_comb begin
    direct_pc = 32'd0;
    direct_tval = 32'd0;
    for (int i = 0; i < T; i++) begin
      if (err_tile_o == i) begin
        if (err_src == 2'd1) begin
          direct_pc = last_pc[i*32 +: 32];
          direct_tval = last_tval[i*32 +: 32];
        end else if (err_src == 2'd2) begin
          direct_pc = first_pc[i*32 +: 32];
          direct_tval = first_tval[i*32 +: 32];
        end
      end
    end
  end
  always_ff @(posedge clk_i) begin
    if (rst_ni) begin
      assert (err_pc_o == direct_pc && err_tval_o == direct_tval)
        else $error("%m: ERR_PC/ERR_TVAL %h/%h, tile %0d's records (source %0d) %h/%h", err_pc_o,
                    err_tval_o, err_tile_o, err_src, direct_pc, direct_tval);
    end
  end
`endif
endmodule
