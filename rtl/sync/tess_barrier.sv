// The machine's barrier (docs/machine-rtl.md, docs/superstep.md): the AND tree over all tiles,
// the host-sync state the host's doorbell releases, and the device errors a barrier can
// find: sync kinds that disagree, a tile that halted while others wait, a trap or a non-zero
// exit, and receive counts that are not met exactly once every engine is done and the
// network is idle (fewer: words lost; more: words duplicated). The first error is kept
// until reset.
//
// Pipelining: the per-tile conditions come from flops (the NIs and the tiles); stage 1
// reduces them (AND/OR trees and lowest-index priority encoders over TILES inputs,
// ceil(log2(TILES)) levels of 2-input gates) into registers; stage 2 is the state machine.
// Its decisions (go_o, release_o) reach the tiles BCAST_DEPTH cycles later (the machine's
// broadcast tree). After every release, exchange start or doorbell it waits HOLD =
// 3 + BCAST_DEPTH cycles, so that it never acts on a summary older than the tiles' answer to
// the change it made.
//
// freeze_i (CONTROL abort, from the cycle the host's write is carried out): the state
// machine stops where it is: no exchange start, no release, SUPERSTEP and the errors kept,
// until reset (the register block reports the abort itself).
module tess_barrier #(
  parameter int unsigned TILES = 4,
  parameter int unsigned BCAST_DEPTH = 0  // register levels from go_o/release_o to the tiles
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
  input  logic               net_idle_i,  // no flit in the network
  input  logic               doorbell_i,  // pulse: the host delivered its words
  output logic               go_o,        // pulse: exchange phase begins
  output logic               release_o,   // pulse: every tile passes the barrier
  output logic [2:0]         state_o,     // device STATE: 0 reset, 1 running, 2 host sync, 3 halted, 4 error
  output logic [31:0]        superstep_o,
  output logic [31:0]        err_tile_o,
  output logic [31:0]        err_superstep_o,
  output logic [31:0]        err_cause_o,
  output logic [31:0]        err_detail_o,
  output logic [1:0]         err_src_o    // where ERR_PC/ERR_TVAL come from: 0 none, 1 the halting trap, 2 the first-trap latch
);
  localparam int unsigned IdxW = TILES > 1 ? $clog2(TILES) : 1;
  localparam logic [31:0] DevErr = 32'h4000_0000;
  localparam int unsigned HoldI = 3 + BCAST_DEPTH;
  localparam logic [7:0] Hold = HoldI[7:0];

  // ---- stage 1: per-tile conditions, reduced and registered ------------------------------
  logic [TILES-1:0] stopped, bad_halt, kind_big, kind_diff, mismatch;
  always_comb begin
    for (int t = 0; t < TILES; t++) begin
      stopped[t] = arrived_i[t] || halted_i[t];
      bad_halt[t] = halted_i[t] && (!halt_exit_i[t] || halt_code_i[t*32 +: 32] != 32'd0);
      kind_big[t] = arrived_i[t] && kind_i[t*32 +: 32] > 32'd1;
      kind_diff[t] = kind_i[t*32 +: 32] != kind_i[31:0];
      mismatch[t] = count_i[t*32 +: 32] != expect_i[t*32 +: 32];
    end
  end

  // Lowest index set in each vector (priority encoders).
  logic [IdxW-1:0] first_halted, first_bad, first_big, first_diff, first_mismatch;
  always_comb begin
    first_halted = '0;
    first_bad = '0;
    first_big = '0;
    first_diff = '0;
    first_mismatch = '0;
    for (int t = TILES - 1; t >= 0; t--) begin
      if (halted_i[t]) first_halted = t[IdxW-1:0];
      if (bad_halt[t]) first_bad = t[IdxW-1:0];
      if (kind_big[t]) first_big = t[IdxW-1:0];
      if (kind_diff[t]) first_diff = t[IdxW-1:0];
      if (mismatch[t]) first_mismatch = t[IdxW-1:0];
    end
  end

  logic s_all_stopped, s_any_arrived, s_any_halted, s_any_bad, s_any_big, s_any_diff;
  logic s_all_done, s_all_met, s_idle, s_host_kind;
  logic [IdxW-1:0] s_first_halted, s_first_bad, s_first_big, s_first_diff, s_first_mismatch;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s_all_stopped <= 1'b0;
      s_any_arrived <= 1'b0;
      s_any_halted <= 1'b0;
      s_any_bad <= 1'b0;
      s_any_big <= 1'b0;
      s_any_diff <= 1'b0;
      s_all_done <= 1'b0;
      s_all_met <= 1'b0;
      s_idle <= 1'b0;
      s_host_kind <= 1'b0;
      s_first_halted <= '0;
      s_first_bad <= '0;
      s_first_big <= '0;
      s_first_diff <= '0;
      s_first_mismatch <= '0;
    end else begin
      s_all_stopped <= &stopped;
      s_any_arrived <= |arrived_i;
      s_any_halted <= |halted_i;
      s_any_bad <= |bad_halt;
      s_any_big <= |kind_big;
      s_any_diff <= |kind_diff;
      s_all_done <= &done_i;
      s_all_met <= ~|mismatch;
      s_idle <= net_idle_i;
      s_host_kind <= kind_i[31:0] == 32'd1;
      s_first_halted <= first_halted;
      s_first_bad <= first_bad;
      s_first_big <= first_big;
      s_first_diff <= first_diff;
      s_first_mismatch <= first_mismatch;
    end
  end

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
  logic [31:0] err_tile_q, err_superstep_q, err_cause_q, err_detail_q;
  logic [1:0]  err_src_q;

  // Errors this cycle could record (indices are stable while the tiles wait).
  logic [31:0] bad_code, mm_count, mm_expect, big_kind, diff_kind;
  logic        bad_exit;
  assign bad_code = halt_code_i[32*s_first_bad +: 32];
  assign bad_exit = halt_exit_i[s_first_bad];
  assign mm_count = count_i[32*s_first_mismatch +: 32];
  assign mm_expect = expect_i[32*s_first_mismatch +: 32];
  assign big_kind = kind_i[32*s_first_big +: 32];
  assign diff_kind = kind_i[32*s_first_diff +: 32];

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
                err_src_q <= 2'd1;
              end else if (bad_code[31]) begin  // the runtime's trap handler: kExitTrap | mcause
                err_cause_q <= {1'b0, bad_code[30:0]};
                err_detail_q <= 32'd0;
                err_src_q <= 2'd2;
              end else begin
                err_cause_q <= DevErr | {24'd0, tess_arch_pkg::DEV_ERR_EXIT_ERROR};
                err_detail_q <= bad_code;
                err_src_q <= 2'd0;
              end
            end else if (hold_q == 8'd0 && s_all_stopped) begin
              err_superstep_q <= superstep_q;
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
                err_cause_q <= DevErr | {24'd0, mm_count < mm_expect ? tess_arch_pkg::DEV_ERR_RECV_LOST
                                                                      : tess_arch_pkg::DEV_ERR_RECV_DUPLICATED};
                err_detail_q <= mm_count;
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
  assign err_src_o = err_src_q;
endmodule
