// The device registers (arch/device_regs.toml, docs/device.md) as an AXI4-Lite slave, built
// on tess_machine's control inputs and status outputs (docs/kernel.md).
//
// AXI4-Lite: 32-bit data, 12-bit byte address (the 4 KiB map; bits 1:0 ignored). AW and W are
// taken in either order (or together) into one-entry holding registers; the write is carried
// out once both are held and no response is pending, and B follows. A CONTROL write's B comes
// when its sequence is over (reset: the machine held in reset RESET_CYCLES + 1 cycles, B after
// RESET_CYCLES + 2 + TREE_DEPTH, the machine's reset tree's depth, so that the host ports
// stay held until every tile has left reset; start: 2 cycles, so that STATE reads "running" when the write completes;
// the host ports take no beat while the sequence runs, busy_o); DOORBELL's B comes
// 2 cycles after the pulse. One read at a time: AR is taken while no read is under way, R
// follows two cycles later (the address is decoded in the first, the multiplexer reads flops
// in the second: see the read channel below). Every response is OKAY: unmapped and
// write-only offsets read 0, writes to unmapped and read-only offsets are ignored (as the
// emulator and the card). WSTRB masks the written value (a byte lane not strobed writes 0
// bits).
//
// Register semantics are those of the emulator (sim/emu) and of the former C++ harness:
//   STATE      4 after an abort; else 0 while the cores are held in reset; else the barrier's
//   EVENTS     set on every change of STATE into 2 (bit 0), 3 (bit 1), 4 (bit 2), and when
//              SUPERSTEP changes to BREAK_SUPERSTEP != 0 (bit 3); write 1 to clear (a bit set
//              and cleared in one cycle stays set)
//   CONTROL    bit 0 reset: machine reset, run 0, EVENTS, BREAK_SUPERSTEP and the abort
//              cleared (EVENT_MASK kept); bit 2 abort (running or host sync): error, ERR_CAUSE
//              = 0x4000_0000, ERR_SUPERSTEP = the superstep, other ERR_* 0, and abort_o stops
//              the machine (cores, barrier, exchange engines) from the cycle the write is
//              carried out until the next reset; bit 1 start (in reset): run 1. In that order
//              within one write.
//   ERR_*      0 unless STATE is 4
//   ARRIVED    0x400 + 4k: tiles 32k..32k+31 arrived or halted; 0 while the cores are held
//   interrupt_o = |(EVENTS & EVENT_MASK)
module tess_axil_regs #(
  parameter int unsigned TILES = 4,
  parameter logic [31:0] TARGET_HASH = 32'd0,
  parameter int unsigned RESET_CYCLES = 4,
  parameter int unsigned TREE_DEPTH = 0   // tess_machine's SYNC_DEPTH: its reset reaches the tiles that much later
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  // AXI4-Lite slave
  input  logic              awvalid_i,
  output logic              awready_o,
  input  logic [11:0]       awaddr_i,
  input  logic              wvalid_i,
  output logic              wready_o,
  input  logic [31:0]       wdata_i,
  input  logic [3:0]        wstrb_i,
  output logic              bvalid_o,
  input  logic              bready_i,
  output logic [1:0]        bresp_o,
  input  logic              arvalid_i,
  output logic              arready_o,
  input  logic [11:0]       araddr_i,
  output logic              rvalid_o,
  input  logic              rready_i,
  output logic [31:0]       rdata_o,
  output logic [1:0]        rresp_o,
  output logic              interrupt_o,
  // The machine
  output logic              mach_rst_no,   // CONTROL reset (and rst_ni): everything but SRAM
  output logic              run_o,
  output logic              doorbell_o,    // pulse
  output logic              busy_o,        // a CONTROL sequence is under way (host ports hold off)
  output logic              abort_o,       // CONTROL abort: the machine stops (level, until reset)
  input  logic [2:0]        state_i,
  input  logic [31:0]       superstep_i,
  input  logic [TILES-1:0]  arrived_i,     // arrived or halted
  input  logic [31:0]       err_tile_i,
  input  logic [31:0]       err_superstep_i,
  input  logic [31:0]       err_cause_i,
  input  logic [31:0]       err_pc_i,
  input  logic [31:0]       err_tval_i,
  input  logic [31:0]       err_detail_i
);
  localparam int unsigned Words = (TILES + 31) / 32;
  // STATE's values (arch/device_regs.toml)
  localparam logic [2:0] StReset = tess_arch_pkg::DEV_STATE_RESET, StRunning = tess_arch_pkg::DEV_STATE_RUNNING,
                         StHostSync = tess_arch_pkg::DEV_STATE_HOST_SYNC, StHalted = tess_arch_pkg::DEV_STATE_HALTED,
                         StError = tess_arch_pkg::DEV_STATE_ERROR;
  localparam logic [31:0] EvHostSync = 32'd1, EvHalted = 32'd2, EvError = 32'd4, EvBreak = 32'd8;
  localparam int unsigned TailI = 2 + TREE_DEPTH;  // sequence cycles after the machine's reset rises
  localparam int unsigned SeqLenI = RESET_CYCLES + TailI;
  localparam logic [7:0] SeqLen = SeqLenI[7:0];
  localparam logic [7:0] Tail = TailI[7:0];

  // ---- registers ------------------------------------------------------------------------
  logic        run_q, aborted_q, doorbell_q, mach_rst_nq;
  logic [31:0] events_q, mask_q, break_q, abort_ss_q, last_ss_q;
  logic [2:0]  last_state_q;
  logic [7:0]  rst_cnt_q, b_wait_q;
  logic        start_after_q;

  logic [2:0] state;
  assign state = aborted_q ? StError : (run_q ? state_i : StReset);
  logic err;
  assign err = state == StError;

  // ---- write channel --------------------------------------------------------------------
  logic        aw_full_q, w_full_q, b_pend_q;
  logic [11:2] aw_addr_q;
  logic [31:0] w_data_q;
  logic [3:0]  w_strb_q;
  assign awready_o = !aw_full_q;
  assign wready_o = !w_full_q;
  logic do_write;
  assign do_write = aw_full_q && w_full_q && !b_pend_q;
  logic [31:0] wval, wmask;
  assign wmask = {{8{w_strb_q[3]}}, {8{w_strb_q[2]}}, {8{w_strb_q[1]}}, {8{w_strb_q[0]}}};
  assign wval = w_data_q & wmask;
  logic [11:0] woff;
  assign woff = {aw_addr_q, 2'b00};

  logic wr_control, wr_events, wr_mask, wr_break, wr_doorbell;
  assign wr_control = do_write && woff == tess_arch_pkg::DEV_REG_CONTROL;
  assign wr_events = do_write && woff == tess_arch_pkg::DEV_REG_EVENTS;
  assign wr_mask = do_write && woff == tess_arch_pkg::DEV_REG_EVENT_MASK;
  assign wr_break = do_write && woff == tess_arch_pkg::DEV_REG_BREAK_SUPERSTEP;
  assign wr_doorbell = do_write && woff == tess_arch_pkg::DEV_REG_DOORBELL && w_strb_q != 4'd0;

  logic ctl_reset, ctl_abort, ctl_start;
  assign ctl_reset = wr_control && wval[0];
  assign ctl_start = wr_control && wval[1];
  assign ctl_abort = wr_control && wval[2] && !wval[0] && (state == StRunning || state == StHostSync);

  // Cycles from carrying a write out to its B: a CONTROL sequence's length, else none.
  logic [7:0] b_wait;
  always_comb begin
    b_wait = 8'd0;
    if (ctl_reset) b_wait = SeqLen + (ctl_start ? 8'd2 : 8'd0);
    else if (ctl_start && state == StReset) b_wait = 8'd2;
    else if (wr_doorbell && state == StHostSync) b_wait = 8'd2;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      aw_full_q <= 1'b0;
      w_full_q <= 1'b0;
      aw_addr_q <= 10'd0;
      w_data_q <= 32'd0;
      w_strb_q <= 4'd0;
      b_pend_q <= 1'b0;
      b_wait_q <= 8'd0;
      bvalid_o <= 1'b0;
    end else begin
      if (awvalid_i && awready_o) begin
        aw_full_q <= 1'b1;
        aw_addr_q <= awaddr_i[11:2];
      end
      if (wvalid_i && wready_o) begin
        w_full_q <= 1'b1;
        w_data_q <= wdata_i;
        w_strb_q <= wstrb_i;
      end
      if (do_write) begin
        aw_full_q <= 1'b0;
        w_full_q <= 1'b0;
        b_pend_q <= 1'b1;
        b_wait_q <= b_wait;
        bvalid_o <= b_wait == 8'd0;
      end else if (b_pend_q && !bvalid_o) begin
        if (b_wait_q == 8'd0) bvalid_o <= 1'b1;
        else b_wait_q <= b_wait_q - 8'd1;
      end
      if (bvalid_o && bready_i) begin
        bvalid_o <= 1'b0;
        b_pend_q <= 1'b0;
      end
    end
  end
  assign bresp_o = 2'b00;

  // ---- the machine's control and the event logic -----------------------------------------
  // EVENTS: set on changes of STATE and SUPERSTEP (cycle by cycle); the host's write 1 to
  // clear applies to the bits as they were, a bit set in the same cycle stays set.
  logic [31:0] set_now, events_d;
  always_comb begin
    set_now = 32'd0;
    if (state != last_state_q) begin
      if (state == StHostSync) set_now = set_now | EvHostSync;
      if (state == StHalted) set_now = set_now | EvHalted;
      if (state == StError) set_now = set_now | EvError;
    end
    if (superstep_i != last_ss_q && break_q != 32'd0 && superstep_i == break_q) set_now = set_now | EvBreak;
    if (ctl_abort) set_now = set_now | EvError;
    events_d = (wr_events ? events_q & ~wval : events_q) | set_now;
    if (ctl_reset) events_d = 32'd0;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      mach_rst_nq <= 1'b0;
      run_q <= 1'b0;
      aborted_q <= 1'b0;
      abort_ss_q <= 32'd0;
      doorbell_q <= 1'b0;
      events_q <= 32'd0;
      mask_q <= 32'd0;
      break_q <= 32'd0;
      last_state_q <= StReset;
      last_ss_q <= 32'd0;
      rst_cnt_q <= 8'd0;
      start_after_q <= 1'b0;
    end else begin
      doorbell_q <= 1'b0;
      mach_rst_nq <= !(rst_cnt_q > Tail || ctl_reset);
      if (rst_cnt_q != 8'd0) begin
        rst_cnt_q <= rst_cnt_q - 8'd1;
        if (rst_cnt_q == 8'd1 && start_after_q) begin
          run_q <= 1'b1;
          start_after_q <= 1'b0;
        end
      end

      events_q <= events_d;
      if (state != last_state_q) last_state_q <= state;
      if (superstep_i != last_ss_q) last_ss_q <= superstep_i;
      if (wr_mask) mask_q <= wval;
      if (wr_break) break_q <= wval;
      if (wr_doorbell && state == StHostSync) doorbell_q <= 1'b1;
      if (ctl_reset) begin
        rst_cnt_q <= SeqLen;
        start_after_q <= ctl_start;
        run_q <= 1'b0;
        aborted_q <= 1'b0;
        break_q <= 32'd0;
        last_state_q <= StReset;
        last_ss_q <= 32'd0;
      end else begin
        if (ctl_abort) begin
          aborted_q <= 1'b1;
          abort_ss_q <= superstep_i;
          last_state_q <= StError;
        end else if (ctl_start && state == StReset && rst_cnt_q == 8'd0) begin
          run_q <= 1'b1;
        end
      end
    end
  end

  assign mach_rst_no = mach_rst_nq;
  assign run_o = run_q;
  assign doorbell_o = doorbell_q;
  assign busy_o = rst_cnt_q != 8'd0;
  // From the cycle the abort is carried out (so that the barrier cannot move in that cycle
  // and SUPERSTEP stays what ERR_SUPERSTEP records), then held.
  assign abort_o = ctl_abort || aborted_q;
  assign interrupt_o = |(events_q & mask_q);
  // EVENTS as of this cycle (the register's next value before the host's clear): the
  // simulation harness watches it (docs/kernel.md); no port uses it.
  logic [31:0] events_now;
  assign events_now = events_q | set_now;

  // ---- read channel ---------------------------------------------------------------------
  // Two stages, so that neither the address decode nor the wide inputs sit in front of the
  // read multiplexer (docs/timing.md, the host's register reads): the cycle AR is taken, the
  // address is decoded into rsel_q (which register) and raidx_q (which ARRIVED word), while
  // the ARRIVED window and the ERR_* values, as the registers show them, are registered every
  // cycle (arrived_q, err_*_q: the view of the cycle before); the next cycle the multiplexer
  // reads those flops and the small registers into rdata_o, and R follows. A read thus
  // returns each register as it was in the cycle AR was taken (ARRIVED, ERR_*) or the cycle
  // after (the others): a value the register held between AR and R, as AXI4-Lite allows.
  // ERR_* are 0 in the registered view unless STATE was 4 in that same cycle, and ARRIVED is
  // 0 unless the cores ran in that cycle, so each value keeps its rule of the header.
  localparam logic [9:0] ArrBase = tess_arch_pkg::DEV_REG_ARRIVED_BASE[11:2];
  localparam int unsigned IdxW = Words > 1 ? $clog2(Words) : 1;
  localparam logic [4:0] SelNone = 5'd0, SelId = 5'd1, SelVersion = 5'd2, SelHash = 5'd3,
                         SelTiles = 5'd4, SelState = 5'd5, SelSuperstep = 5'd6, SelEvents = 5'd7,
                         SelMask = 5'd8, SelErrTile = 5'd9, SelErrSuperstep = 5'd10,
                         SelErrCause = 5'd11, SelErrPc = 5'd12, SelErrTval = 5'd13,
                         SelErrDetail = 5'd14, SelBreak = 5'd15, SelArrived = 5'd16;

  // Stage 1: the address decoded.
  logic [11:0] roff;
  assign roff = {araddr_i[11:2], 2'b00};
  logic [9:0] aidx;  // word of the ARRIVED window
  assign aidx = araddr_i[11:2] - ArrBase;
  logic [4:0] rsel;
  always_comb begin
    rsel = SelNone;
    if (roff >= tess_arch_pkg::DEV_REG_ARRIVED_BASE) begin
      if ({22'd0, aidx} < Words) rsel = SelArrived;
    end else begin
      case (roff)
        tess_arch_pkg::DEV_REG_ID: rsel = SelId;
        tess_arch_pkg::DEV_REG_VERSION: rsel = SelVersion;
        tess_arch_pkg::DEV_REG_TARGET_HASH: rsel = SelHash;
        tess_arch_pkg::DEV_REG_TILE_COUNT: rsel = SelTiles;
        tess_arch_pkg::DEV_REG_STATE: rsel = SelState;
        tess_arch_pkg::DEV_REG_SUPERSTEP: rsel = SelSuperstep;
        tess_arch_pkg::DEV_REG_EVENTS: rsel = SelEvents;
        tess_arch_pkg::DEV_REG_EVENT_MASK: rsel = SelMask;
        tess_arch_pkg::DEV_REG_ERR_TILE: rsel = SelErrTile;
        tess_arch_pkg::DEV_REG_ERR_SUPERSTEP: rsel = SelErrSuperstep;
        tess_arch_pkg::DEV_REG_ERR_CAUSE: rsel = SelErrCause;
        tess_arch_pkg::DEV_REG_ERR_PC: rsel = SelErrPc;
        tess_arch_pkg::DEV_REG_ERR_TVAL: rsel = SelErrTval;
        tess_arch_pkg::DEV_REG_ERR_DETAIL: rsel = SelErrDetail;
        tess_arch_pkg::DEV_REG_BREAK_SUPERSTEP: rsel = SelBreak;
        default: rsel = SelNone;
      endcase
    end
  end

  // The wide inputs, registered every cycle as the registers show them.
  logic [32*Words-1:0] arrived_pad;
  assign arrived_pad = {{(32 * Words - TILES){1'b0}}, arrived_i};
  logic [32*Words-1:0] arrived_q;
  logic [31:0] err_tile_q, err_superstep_q, err_cause_q, err_pc_q, err_tval_q, err_detail_q;
  logic        err_mach;  // an error of the machine's (not the host's abort)
  assign err_mach = err && !aborted_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      arrived_q <= '0;
      err_tile_q <= 32'd0;
      err_superstep_q <= 32'd0;
      err_cause_q <= 32'd0;
      err_pc_q <= 32'd0;
      err_tval_q <= 32'd0;
      err_detail_q <= 32'd0;
    end else begin
      arrived_q <= run_q ? arrived_pad : '0;
      err_tile_q <= err_mach ? err_tile_i : 32'd0;
      err_superstep_q <= err ? (aborted_q ? abort_ss_q : err_superstep_i) : 32'd0;
      err_cause_q <= err ? (aborted_q ? 32'h4000_0000 : err_cause_i) : 32'd0;
      err_pc_q <= err_mach ? err_pc_i : 32'd0;
      err_tval_q <= err_mach ? err_tval_i : 32'd0;
      err_detail_q <= err_mach ? err_detail_i : 32'd0;
    end
  end

  // Stage 2: the multiplexer, from flops only.
  logic          r_pend_q;  // AR taken, rdata_o loads this cycle
  logic [4:0]    rsel_q;
  logic [IdxW-1:0] raidx_q;
  logic [31:0]   rval;
  always_comb begin
    rval = 32'd0;
    case (rsel_q)
      SelId: rval = tess_arch_pkg::DEVICE_ID_MAGIC;
      SelVersion: rval = tess_arch_pkg::DEVICE_VERSION;
      SelHash: rval = TARGET_HASH;
      SelTiles: rval = TILES;
      SelState: rval = {29'd0, state};
      SelSuperstep: rval = superstep_i;
      SelEvents: rval = events_q;
      SelMask: rval = mask_q;
      SelErrTile: rval = err_tile_q;
      SelErrSuperstep: rval = err_superstep_q;
      SelErrCause: rval = err_cause_q;
      SelErrPc: rval = err_pc_q;
      SelErrTval: rval = err_tval_q;
      SelErrDetail: rval = err_detail_q;
      SelBreak: rval = break_q;
      SelArrived: begin
        for (int k = 0; k < Words; k++)
          if (raidx_q == k[IdxW-1:0]) rval = arrived_q[k*32 +: 32];
      end
      default: rval = 32'd0;
    endcase
  end

  assign arready_o = !r_pend_q && !rvalid_o;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      r_pend_q <= 1'b0;
      rsel_q <= SelNone;
      raidx_q <= '0;
      rvalid_o <= 1'b0;
      rdata_o <= 32'd0;
    end else begin
      if (arvalid_i && arready_o) begin
        r_pend_q <= 1'b1;
        rsel_q <= rsel;
        raidx_q <= aidx[IdxW-1:0];
      end
      if (r_pend_q) begin
        r_pend_q <= 1'b0;
        rvalid_o <= 1'b1;
        rdata_o <= rval;
      end else if (rvalid_o && rready_i) begin
        rvalid_o <= 1'b0;
      end
    end
  end
  assign rresp_o = 2'b00;

  // The AXI4-Lite rules on both sides of the port (simulation only).
  tess_axil_check u_check (
    .clk_i, .rst_ni,
    .awvalid_i, .awready_i(awready_o), .awaddr_i, .wvalid_i, .wready_i(wready_o), .w_i({wstrb_i, wdata_i}),
    .bvalid_i(bvalid_o), .bready_i, .bresp_i(bresp_o), .arvalid_i, .arready_i(arready_o), .araddr_i,
    .rvalid_i(rvalid_o), .rready_i, .r_i({rresp_o, rdata_o}));
endmodule
