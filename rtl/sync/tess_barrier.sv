// The machine's barrier (docs/machine-rtl.md, docs/superstep.md): the AND tree over all tiles,
// the host-sync state the host's doorbell releases, and the device errors a barrier can
// find: sync kinds that disagree, a tile that halted while others wait, a trap or a non-zero
// exit, and receive counts that are not met exactly once every engine is done and the
// network is idle (fewer: words lost; more: words duplicated). The first error is kept
// until reset.
//
// Pipelining (docs/machine-rtl.md, "Machine-wide trees"): the per-tile conditions come from
// flops (the NIs and the tiles); stage 1 compares each tile's own values (received against
// expected words, its sync kind against 0, 1 and "more") and reduces them in registered trees
// (tess_reduce_tree: AND/OR trees, and lowest-index trees that carry the tile's index and the
// values an error records, ERR_PC and ERR_TVAL included), DEPTH + 1 register levels from the
// tiles to the summaries; stage 2 is the state machine. Every summary describes the tiles as
// they were in one cycle, DEPTH + 1 cycles ago; net_idle_i arrives IDLE_LAG cycles late and
// is delayed to match. The state machine's decisions (go_o, release_o) reach the tiles
// BCAST_DEPTH cycles later (the machine's broadcast tree). After every release, exchange start
// or doorbell it waits HOLD = 3 + BCAST_DEPTH + DEPTH cycles, so that it never acts on a
// summary that predates the tiles' answer to the change it made.
//
// freeze_i (CONTROL abort, from the cycle the host's write is carried out): the state
// machine stops where it is: no exchange start, no release, SUPERSTEP and the errors kept,
// until reset (the register block reports the abort itself).
module tess_barrier #(
  parameter int unsigned TILES = 4,
  parameter int unsigned DEPTH = 0,            // register levels added to the reductions
  parameter int unsigned BCAST_DEPTH = DEPTH,  // register levels from go_o/release_o to the tiles
  parameter int unsigned IDLE_LAG = DEPTH      // net_idle_i describes the network IDLE_LAG cycles ago (<= DEPTH)
) (
  input  logic               clk_i,
  input  logic               rst_ni,
  input  logic               run_i,       // 0: device held in reset (state reset, superstep 0)
  input  logic               freeze_i,    // CONTROL abort: nothing moves until reset
  input  logic [TILES-1:0]    arrived_i,
  input  logic [TILES*32-1:0] kind_i,
  input  logic [TILES-1:0]    done_i,      // exchange engine idle
  input  logic [TILES*32-1:0] count_i,     // words received
  input  logic [TILES*32-1:0] expect_i,    // RECV_EXPECT
  input  logic [TILES-1:0]    halted_i,
  input  logic [TILES-1:0]    halt_exit_i, // 1: EXIT written (code = value); 0: trap halt (code = mcause)
  input  logic [TILES*32-1:0] halt_code_i,
  input  logic [TILES*32-1:0] trap_pc_i,   // ERR_PC if this tile's halt is the error: its halting trap's pc
  input  logic [TILES*32-1:0] trap_tval_i, // (trap halt) or its first trap's (exit); likewise the tval
  input  logic               net_idle_i,  // no flit in the network (IDLE_LAG cycles ago)
  input  logic               doorbell_i,  // pulse: the host delivered its words
  output logic               go_o,        // pulse: exchange phase begins
  output logic               release_o,   // pulse: every tile passes the barrier
  output logic [2:0]         state_o,     // device STATE: 0 reset, 1 running, 2 host sync, 3 halted, 4 error
  output logic [31:0]        superstep_o,
  output logic [31:0]        err_tile_o,
  output logic [31:0]        err_superstep_o,
  output logic [31:0]        err_cause_o,
  output logic [31:0]        err_detail_o,
  output logic [31:0]        err_pc_o,    // ERR_PC, ERR_TVAL: the error tile's trap record (0 when err_src_o is 0)
  output logic [31:0]        err_tval_o,
  output logic [1:0]         err_src_o    // where ERR_PC/ERR_TVAL came from: 0 none, 1 the halting trap, 2 the first-trap latch
);
  localparam int unsigned IdxW = TILES > 1 ? $clog2(TILES) : 1;
  localparam logic [31:0] DevErr = 32'h4000_0000;
  localparam int unsigned Stages = DEPTH + 1;  // register levels from the tiles' flops to the summaries
  localparam int unsigned HoldI = 3 + BCAST_DEPTH + DEPTH;
  localparam logic [7:0] Hold = HoldI[7:0];

  // ---- stage 1: per-tile conditions, reduced in registered trees -------------------------
  // Leaves: an OR tree of {not stopped, arrived, engine busy} (AND trees inverted), and for
  // each error the lowest-index trees {set, tile, what the error records}. A halt error also
  // carries the tile's trap pc and tval: ERR_PC and ERR_TVAL arrive with ERR_TILE from the
  // same tree, registered, and no multiplexer reads them from tile ERR_TILE afterwards
  // (docs/timing.md, the host side). A tile's records stand still once it has halted, so
  // those of the summary's cycle are the ones the tile holds until reset.
  localparam int unsigned OrW = 3;
  localparam int unsigned IdW = 1 + IdxW;          // {set, tile}
  localparam int unsigned ValW = 1 + IdxW + 33;    // {set, tile, flag, value}
  localparam int unsigned BadW = ValW + 64;        // {set, tile, exit, code, pc, tval}
  localparam int unsigned KindW = 1 + IdxW + 32;   // {set, tile, kind}
  logic [TILES*OrW-1:0]   l_or;
  logic [TILES*IdW-1:0]   l_halted, l_one, l_zero;
  logic [TILES*BadW-1:0]  l_bad;
  logic [TILES*ValW-1:0]  l_mismatch;
  logic [TILES*KindW-1:0] l_big;
  always_comb begin
    for (int t = 0; t < TILES; t++) begin
      l_or[t*OrW +: OrW] = {!(arrived_i[t] || halted_i[t]), arrived_i[t], !done_i[t]};
      l_halted[t*IdW +: IdW] = {halted_i[t], t[IdxW-1:0]};
      // Kinds 1 and 0: tile 0's kind and the first tile unlike it follow from these two
      // (below), with no compare against tile 0's kind in every tile.
      l_one[t*IdW +: IdW] = {kind_i[t*32 +: 32] == 32'd1, t[IdxW-1:0]};
      l_zero[t*IdW +: IdW] = {kind_i[t*32 +: 32] == 32'd0, t[IdxW-1:0]};
      l_bad[t*BadW +: BadW] = {halted_i[t] && (!halt_exit_i[t] || halt_code_i[t*32 +: 32] != 32'd0), t[IdxW-1:0],
                               halt_exit_i[t], halt_code_i[t*32 +: 32], trap_pc_i[t*32 +: 32],
                               trap_tval_i[t*32 +: 32]};
      l_big[t*KindW +: KindW] = {arrived_i[t] && kind_i[t*32 +: 32] > 32'd1, t[IdxW-1:0], kind_i[t*32 +: 32]};
      l_mismatch[t*ValW +: ValW] = {count_i[t*32 +: 32] != expect_i[t*32 +: 32], t[IdxW-1:0],
                                    count_i[t*32 +: 32] < expect_i[t*32 +: 32], count_i[t*32 +: 32]};
    end
  end

  logic [OrW-1:0]   s_or;
  logic [IdW-1:0]   s_halted, s_one, s_zero;
  logic [BadW-1:0]  s_bad;
  logic [ValW-1:0]  s_mismatch;
  logic [KindW-1:0] s_big;
  tess_reduce_tree #(.N(TILES), .W(OrW), .OP(0), .STAGES(Stages)) u_or (
    .clk_i, .rst_ni, .in_i(l_or), .out_o(s_or));
  tess_reduce_tree #(.N(TILES), .W(IdW), .OP(2), .STAGES(Stages)) u_halted (
    .clk_i, .rst_ni, .in_i(l_halted), .out_o(s_halted));
  tess_reduce_tree #(.N(TILES), .W(IdW), .OP(2), .STAGES(Stages)) u_one (
    .clk_i, .rst_ni, .in_i(l_one), .out_o(s_one));
  tess_reduce_tree #(.N(TILES), .W(IdW), .OP(2), .STAGES(Stages)) u_zero (
    .clk_i, .rst_ni, .in_i(l_zero), .out_o(s_zero));
  tess_reduce_tree #(.N(TILES), .W(BadW), .OP(2), .STAGES(Stages)) u_bad (
    .clk_i, .rst_ni, .in_i(l_bad), .out_o(s_bad));
  tess_reduce_tree #(.N(TILES), .W(ValW), .OP(2), .STAGES(Stages)) u_mismatch (
    .clk_i, .rst_ni, .in_i(l_mismatch), .out_o(s_mismatch));
  tess_reduce_tree #(.N(TILES), .W(KindW), .OP(2), .STAGES(Stages)) u_big (
    .clk_i, .rst_ni, .in_i(l_big), .out_o(s_big));

  // "Network idle" of the same cycle as the trees' summaries: Stages - IDLE_LAG registers.
  localparam int unsigned IdleRegs = Stages - IDLE_LAG;
  logic [IdleRegs-1:0] idle_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      idle_q <= '0;
    end else begin
      idle_q[0] <= net_idle_i;
      for (int i = 1; i < IdleRegs; i++) idle_q[i] <= idle_q[i-1];
    end
  end

  logic s_all_stopped, s_any_arrived, s_any_halted, s_any_bad, s_any_big, s_any_diff;
  logic s_all_done, s_all_met, s_idle, s_host_kind;
  logic [IdxW-1:0] s_first_halted, s_first_bad, s_first_big, s_first_diff, s_first_mismatch;
  // Errors this cycle could record, from the same trees (the tile's values of the same cycle).
  logic [31:0] bad_code, bad_pc, bad_tval, mm_count, big_kind, diff_kind;
  logic        bad_exit, mm_lost;
  assign s_all_stopped = !s_or[2];
  assign s_any_arrived = s_or[1];
  assign s_all_done = !s_or[0];
  assign s_any_halted = s_halted[IdW-1];
  assign s_first_halted = s_halted[IdxW-1:0];
  assign s_any_bad = s_bad[BadW-1];
  assign s_first_bad = s_bad[97 +: IdxW];
  assign bad_exit = s_bad[96];
  assign bad_code = s_bad[64 +: 32];
  assign bad_pc = s_bad[32 +: 32];
  assign bad_tval = s_bad[31:0];
  assign s_any_big = s_big[KindW-1];
  assign s_first_big = s_big[32 +: IdxW];
  assign big_kind = s_big[31:0];
  // With every tile arrived and no kind above 1 (when these are read): tile 0's kind is 1 when
  // the first tile of kind 1 is tile 0; the kinds differ when both occur; the first tile
  // unlike tile 0 is the first of the other kind.
  assign s_host_kind = s_one[IdW-1] && s_one[IdxW-1:0] == '0;
  assign s_any_diff = s_one[IdW-1] && s_zero[IdW-1];
  assign s_first_diff = s_host_kind ? s_zero[IdxW-1:0] : s_one[IdxW-1:0];
  assign diff_kind = {31'd0, !s_host_kind};
  assign s_all_met = !s_mismatch[ValW-1];
  assign s_first_mismatch = s_mismatch[33 +: IdxW];
  assign mm_lost = s_mismatch[32];
  assign mm_count = s_mismatch[31:0];
  assign s_idle = idle_q[IdleRegs-1];

  // ---- stage 2: the state machine ------------------------------------------------------
  // The device's states (arch/device_regs.toml, STATE) and two of its own, which STATE reads
  // as running.
  localparam logic [2:0] SReset = tess_arch_pkg::DEV_STATE_RESET, SRun = tess_arch_pkg::DEV_STATE_RUNNING,
                         SHost = tess_arch_pkg::DEV_STATE_HOST_SYNC, SHalted = tess_arch_pkg::DEV_STATE_HALTED,
                         SError = tess_arch_pkg::DEV_STATE_ERROR, SXchg = 3'd5, SCheck = 3'd6;
  logic [2:0]  st_q;
  logic [7:0]  hold_q;
  logic [31:0] superstep_q;
  logic        go_q, release_q;
  logic [31:0] err_tile_q, err_superstep_q, err_cause_q, err_detail_q, err_pc_q, err_tval_q;
  logic [1:0]  err_src_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      st_q <= SReset;
      hold_q <= Hold;
      superstep_q <= 32'd0;
      go_q <= 1'b0;
      release_q <= 1'b0;
      err_tile_q <= 32'd0;
      err_superstep_q <= 32'd0;
      err_cause_q <= 32'd0;
      err_detail_q <= 32'd0;
      err_pc_q <= 32'd0;
      err_tval_q <= 32'd0;
      err_src_q <= 2'd0;
    end else begin
      go_q <= 1'b0;
      release_q <= 1'b0;
      if (hold_q != 8'd0) hold_q <= hold_q - 8'd1;
      if (!run_i) begin
        st_q <= SReset;
        hold_q <= Hold;
        superstep_q <= 32'd0;
      end else if (!freeze_i) begin
        case (st_q)
          SReset: begin
            st_q <= SRun;
            hold_q <= Hold;
          end
          SRun: begin
            if (hold_q == 8'd0 && s_any_bad) begin
              st_q <= SError;
              err_tile_q <= {{(32 - IdxW){1'b0}}, s_first_bad};
              err_superstep_q <= superstep_q;
              if (!bad_exit) begin  // halted on a trap it could not take: its mcause
                err_cause_q <= bad_code;
                err_detail_q <= 32'd0;
                err_pc_q <= bad_pc;
                err_tval_q <= bad_tval;
                err_src_q <= 2'd1;
              end else if (bad_code[31]) begin  // the runtime's trap handler: kExitTrap | mcause
                err_cause_q <= {1'b0, bad_code[30:0]};
                err_detail_q <= 32'd0;
                err_pc_q <= bad_pc;
                err_tval_q <= bad_tval;
                err_src_q <= 2'd2;
              end else begin
                err_cause_q <= DevErr | {24'd0, tess_arch_pkg::DEV_ERR_EXIT_ERROR};
                err_detail_q <= bad_code;
                err_pc_q <= 32'd0;
                err_tval_q <= 32'd0;
                err_src_q <= 2'd0;
              end
            end else if (hold_q == 8'd0 && s_all_stopped) begin
              err_superstep_q <= superstep_q;
              err_pc_q <= 32'd0;
              err_tval_q <= 32'd0;
              err_src_q <= 2'd0;
              if (!s_any_arrived) begin
                st_q <= SHalted;
              end else if (s_any_halted) begin
                st_q <= SError;
                err_tile_q <= {{(32 - IdxW){1'b0}}, s_first_halted};
                err_cause_q <= DevErr | {24'd0, tess_arch_pkg::DEV_ERR_HALTED_AT_BARRIER};
                err_detail_q <= 32'd0;
              end else if (s_any_big) begin
                st_q <= SError;
                err_tile_q <= {{(32 - IdxW){1'b0}}, s_first_big};
                err_cause_q <= DevErr | {24'd0, tess_arch_pkg::DEV_ERR_SYNC_MISMATCH};
                err_detail_q <= big_kind;
              end else if (s_any_diff) begin
                st_q <= SError;
                err_tile_q <= {{(32 - IdxW){1'b0}}, s_first_diff};
                err_cause_q <= DevErr | {24'd0, tess_arch_pkg::DEV_ERR_SYNC_MISMATCH};
                err_detail_q <= diff_kind;
              end else if (s_host_kind) begin
                st_q <= SHost;
              end else begin
                st_q <= SXchg;
                go_q <= 1'b1;
                hold_q <= Hold;
              end
            end
          end
          SHost: begin
            if (doorbell_i) begin
              st_q <= SCheck;
              hold_q <= Hold;
            end
          end
          SXchg, SCheck: begin
            if (hold_q == 8'd0 && s_idle && (st_q == SCheck || s_all_done)) begin
              if (s_all_met) begin
                st_q <= SRun;
                hold_q <= Hold;
                release_q <= 1'b1;
                superstep_q <= superstep_q + 32'd1;
              end else begin
                st_q <= SError;
                err_tile_q <= {{(32 - IdxW){1'b0}}, s_first_mismatch};
                err_superstep_q <= superstep_q;
                err_cause_q <= DevErr | {24'd0, mm_lost ? tess_arch_pkg::DEV_ERR_RECV_LOST
                                                          : tess_arch_pkg::DEV_ERR_RECV_DUPLICATED};
                err_detail_q <= mm_count;
                err_pc_q <= 32'd0;
                err_tval_q <= 32'd0;
                err_src_q <= 2'd0;
              end
            end
          end
          default: ;  // SHalted, SError: until reset
        endcase
      end
    end
  end

`ifndef SYNTHESIS
  // Invariants (simulation only; immediate assertions on this and the previous cycle, like
  // tess_vr_check): an exchange start or a release only with every tile arrived and none
  // halted, never both in one cycle; SUPERSTEP moves only by a release (+1) or a reset (to 0);
  // halted and error hold until reset.
  initial begin
    if (IDLE_LAG > DEPTH) $error("tess_barrier: IDLE_LAG (%0d) must not exceed DEPTH (%0d)", IDLE_LAG, DEPTH);
  end
  logic [2:0]  prev_st_q;
  logic [31:0] prev_superstep_q;
  logic        prev_run_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      prev_st_q <= SReset;
      prev_superstep_q <= 32'd0;
      prev_run_q <= 1'b0;
    end else begin
      assert (!(go_q && release_q)) else $error("%m: exchange start and release in one cycle");
      if (go_q || release_q) begin
        assert (&arrived_i && !(|halted_i))
          else $error("%m: %s with tiles not arrived (%b) or halted (%b)", go_q ? "exchange start" : "release",
                      arrived_i, halted_i);
      end
      // A release never rests on a stale summary: at the release every engine is done and
      // every tile's received words equal its expected words now, not only in the summary.
      if (release_q) begin
        assert (&done_i) else $error("%m: release with engines busy (done %b)", done_i);
        assert (count_i == expect_i) else $error("%m: release with receive counts not met");
      end
      if (prev_run_q) begin  // the last edge ran the state machine (or froze it)
        assert (superstep_q == prev_superstep_q + 32'(release_q))
          else $error("%m: SUPERSTEP went from %0d to %0d (release %b)", prev_superstep_q, superstep_q, release_q);
        if (prev_st_q == SHalted || prev_st_q == SError) begin
          assert (st_q == prev_st_q) else $error("%m: left state %0d before a reset", prev_st_q);
        end
      end
      prev_st_q <= st_q;
      prev_superstep_q <= superstep_q;
      prev_run_q <= run_i;
    end
  end
`endif

  assign go_o = go_q;
  assign release_o = release_q;
  assign state_o = st_q == SXchg || st_q == SCheck ? SRun : st_q;
  assign superstep_o = superstep_q;
  assign err_tile_o = err_tile_q;
  assign err_superstep_o = err_superstep_q;
  assign err_cause_o = err_cause_q;
  assign err_detail_o = err_detail_q;
  assign err_pc_o = err_pc_q;
  assign err_tval_o = err_tval_q;
  assign err_src_o = err_src_q;
endmodule
