// The network interface of one tile (docs/machine-rtl.md): between the tile (tess_tile) and
// its mesh node (tess_mesh), it owns the tile's external SRAM port (which always wins port B).
//
// Ejection: every arriving write flit (a whole word) goes into the SRAM the cycle it is
// offered (so the receiver always drains) and counts into RECV_COUNT while the cores run; a
// read request is answered with a write flit to the node and address its data names (the
// host's dma_read: the address is the host's tag); kind 2 is the harness's uncounted debug
// write, kinds 3..7 are dropped.
// Injection: the exchange engine. XCHG_START arms it with XCHG_LIST/XCHG_ENTRIES; it walks the
// send list when the barrier's exchange phase begins (go_i), reading each entry and then each
// source word through port B in the cycles no arriving flit needs it, one flit per word. An
// entry with bit 31 of its dst_node set (control.h kSendRepeat) reads its next slot too, the
// SendRepeat {count, src_stride, dst_stride, reserved}, into the entry's registers, and walks
// count runs, stepping to the next run in the cycle it reads a run's last word. The engine
// checks nothing (the emulator does): a count of 0 sends one run, a repeat bit on the list's
// last slot is ignored, the reserved word is not looked at.
// It also watches the tile's retire port for the stores to SYNC (the arrival and its kind)
// and RECV_EXPECT (the tile has no port for them; see docs/machine-rtl.md).
// The injection port keeps the mesh's contract: once offered, a flit stays (valid, same
// flit) until the mesh takes it; replies go first only when nothing is offered yet.
// stop_i (CONTROL abort) stops the engine before its next SRAM read and freezes the arrival
// and the counts; arriving flits are still written and read requests still answered, so the
// mesh drains. rep_take_o / rep_sent_o pulse when a read request is taken and when its reply
// enters the mesh (the machine's count of flits in flight and its read credits).
module tess_tile_ni #(
  parameter int unsigned FIFO_DEPTH = 4   // reply and send queues, flits each
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        run_i,            // cores running: words arriving now count
  input  logic        stop_i,           // CONTROL abort: the engine and the arrival stop
  input  logic [tess_flit_pkg::NodeW-1:0] node_id_i,
  // The tile's external SRAM port
  output logic        ext_req_o,
  output logic        ext_we_o,
  output logic [31:0] ext_addr_o,
  output logic [3:0]  ext_be_o,
  output logic [31:0] ext_wdata_o,
  input  logic [31:0] ext_rdata_i,
  // The tile's exchange registers
  input  logic        xchg_start_i,
  input  logic [31:0] xchg_list_i,
  input  logic [31:0] xchg_entries_i,
  output logic        xchg_busy_o,
  output logic [31:0] xchg_sent_o,
  output logic [31:0] recv_count_o,
  // The tile's retire port (register stores)
  input  logic        retire_valid_i,
  input  logic        retire_mem_we_i,
  input  logic [31:0] retire_mem_addr_i,
  input  logic [31:0] retire_mem_wdata_i,
  // Barrier
  output logic        arrived_o,
  output logic [31:0] kind_o,
  output logic [31:0] recv_expect_o,
  output logic        done_o,           // the engine is idle (its flits are in the mesh)
  input  logic        go_i,             // pulse: the exchange phase begins
  input  logic        release_i,        // pulse: the barrier released
  output logic        rep_take_o,       // pulse: a read request taken from the mesh
  output logic        rep_sent_o,       // pulse: a read reply injected into the mesh
  // Mesh node: injection and ejection
  output logic        inj_valid_o,
  input  logic        inj_ready_i,
  output logic [tess_flit_pkg::FlitW-1:0] inj_flit_o,
  input  logic        ej_valid_i,
  output logic        ej_ready_o,
  input  logic [tess_flit_pkg::FlitW-1:0] ej_flit_i
);
  localparam int unsigned FW = tess_flit_pkg::FlitW;
  localparam int unsigned OccW = $clog2(FIFO_DEPTH + 1);
  localparam logic [OccW-1:0] Depth = FIFO_DEPTH[OccW-1:0];
  localparam logic [31:0] SyncAddr = tess_arch_pkg::REGS_BASE + {20'd0, tess_arch_pkg::TILE_REG_SYNC};
  localparam logic [31:0] ExpectAddr = tess_arch_pkg::REGS_BASE + {20'd0, tess_arch_pkg::TILE_REG_RECV_EXPECT};

  // ---- arriving flits ------------------------------------------------------------------
  localparam int unsigned NW = tess_flit_pkg::NodeW, AW = tess_flit_pkg::AddrW;
  logic [tess_flit_pkg::KindW-1:0] ej_kind;
  logic [NW-1:0] ej_rep_node;  // a read request's reply: node and address (its data field)
  logic [AW-1:0] ej_addr, ej_rep_addr;
  logic [31:0] ej_data;
  assign ej_kind = ej_flit_i[tess_flit_pkg::KindLsb +: tess_flit_pkg::KindW];
  assign ej_addr = ej_flit_i[tess_flit_pkg::AddrLsb +: AW];
  assign ej_data = ej_flit_i[tess_flit_pkg::DataLsb +: tess_flit_pkg::DataW];
  assign ej_rep_node = ej_flit_i[tess_flit_pkg::ReplyNodeLsb +: NW];
  assign ej_rep_addr = ej_flit_i[tess_flit_pkg::ReplyAddrLsb +: AW];

  logic ej_is_read, rep_room, ej_take, ej_write, ej_read;
  logic [OccW-1:0] rep_occ_q, eng_occ_q;
  assign ej_is_read = ej_kind == tess_flit_pkg::KindRead;
  assign rep_room = rep_occ_q != Depth;
  // Writes always drain; a read request waits for room for its reply.
  assign ej_ready_o = !ej_is_read || rep_room;
  assign ej_take = ej_valid_i && ej_ready_o;
  assign ej_write = ej_take && (ej_kind == tess_flit_pkg::KindWrite || ej_kind == tess_flit_pkg::KindDebugWrite);
  assign ej_read = ej_take && ej_is_read;

  // ---- the exchange engine ---------------------------------------------------------------
  localparam logic [2:0] SIdle = 3'd0, SEntry = 3'd1, SEntryWait = 3'd2, SSetup = 3'd3, SWords = 3'd4,
                         SDrain = 3'd5;
  logic [2:0] st_q;
  logic        armed_q;
  logic [31:0] list_q, entries_q, entry_idx_q, src_q, dst_q, words_q, sent_q;
  logic [NW-1:0] dst_node_q;
  logic [1:0]  k_q;
  logic [31:0] ent_q [4];  // the slot read; for a strided entry, its SendRepeat (below)
  logic        rep_q;       // walking a strided entry: ent_q = {runs left, source and
                            // destination steps from a run's last word to the next run's first,
                            // a run's words}
  logic        last_slot, run_last, more_runs;
  logic [31:0] words_dec, ent_wdata;
  assign last_slot = entry_idx_q + 32'd1 == entries_q;
  assign words_dec = words_q - 32'd1;
  assign run_last = words_q == 32'd1;
  assign more_runs = rep_q && ent_q[0] > 32'd1;

  logic eng_rd, eng_grant, eng_word_grant, eng_pop, rep_pop;
  logic [31:0] eng_rd_addr;
  always_comb begin
    eng_rd = 1'b0;
    eng_rd_addr = src_q;
    if (st_q == SEntry) begin
      eng_rd = !stop_i;
      eng_rd_addr = list_q + {entry_idx_q[27:0], 4'b0000} + {28'd0, k_q, 2'b00};
    end else if (st_q == SWords && eng_occ_q != Depth) begin
      eng_rd = !stop_i;
    end
  end
  assign eng_grant = eng_rd && !ej_take;
  assign eng_word_grant = eng_grant && st_q == SWords;

  // ---- SRAM port B ----------------------------------------------------------------------
  assign ext_req_o = ej_take || eng_grant;
  assign ext_we_o = ej_write;
  assign ext_addr_o = ej_take ? {{(30 - AW){1'b0}}, ej_addr, 2'b00} : eng_rd_addr;
  assign ext_be_o = 4'hF;  // writes are whole words
  assign ext_wdata_o = ej_data;

  // What the read issued this cycle is for; its data arrives two cycles later (the SRAM's
  // read register, then its output register: tess_sram_tdp). tag1_* follow the read through
  // the first cycle, tag_* describe the word on ext_rdata_i.
  localparam logic [1:0] TagNone = 2'd0, TagReply = 2'd1, TagEntry = 2'd2, TagWord = 2'd3;
  logic [1:0]  tag1_q, tag_q;
  logic [1:0]  tag1_k_q, tag_k_q;
  logic [NW-1:0] tag1_node_q, tag_node_q;
  logic [AW-1:0] tag1_addr_q, tag_addr_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      tag1_q <= TagNone;
      tag1_k_q <= 2'd0;
      tag1_node_q <= '0;
      tag1_addr_q <= '0;
      tag_q <= TagNone;
      tag_k_q <= 2'd0;
      tag_node_q <= '0;
      tag_addr_q <= '0;
    end else begin
      tag1_q <= TagNone;
      if (ej_read) begin
        tag1_q <= TagReply;
        tag1_node_q <= ej_rep_node;
        tag1_addr_q <= ej_rep_addr;
      end else if (eng_grant) begin
        tag1_q <= st_q == SEntry ? TagEntry : TagWord;
        tag1_k_q <= k_q;
        tag1_node_q <= dst_node_q;
        tag1_addr_q <= dst_q[AW+1:2];
      end
      tag_q <= tag1_q;
      tag_k_q <= tag1_k_q;
      tag_node_q <= tag1_node_q;
      tag_addr_q <= tag1_addr_q;
    end
  end

  // A slot's word as it lands in ent_q: a SendRepeat's strides become the steps from a run's
  // last word to the next run's first (stride - bytes + 4), its reserved word the run's words
  // (words_q holds them from the entry's setup).
  always_comb begin
    ent_wdata = ext_rdata_i;
    if (rep_q && tag_k_q[0] != tag_k_q[1]) ent_wdata = ext_rdata_i - {words_dec[29:0], 2'b00};
    else if (rep_q && tag_k_q == 2'd3) ent_wdata = words_q;
  end

  // Reply and send queues: a read is issued only with a slot reserved (occupancy counters),
  // so a push never finds its queue full.
  logic [FW-1:0] rd_flit, rep_flit, eng_flit;
  logic rep_valid, eng_valid, rep_in_ready, eng_in_ready;
  always_comb begin
    rd_flit = '0;
    rd_flit[tess_flit_pkg::KindLsb +: tess_flit_pkg::KindW] = tess_flit_pkg::KindWrite;
    rd_flit[tess_flit_pkg::DstLsb +: NW] = tag_node_q;
    rd_flit[tess_flit_pkg::AddrLsb +: AW] = tag_addr_q;
    rd_flit[tess_flit_pkg::DataLsb +: tess_flit_pkg::DataW] = ext_rdata_i;
  end

  // Replies first: the host waits for them, and the engine's flits are never starved for
  // long (a reply needs a read request, which needs the host). But a flit once offered stays
  // offered until the mesh takes it (the mesh port's contract): while the offered flit waits
  // (valid and not ready), the choice made when it was offered is held (hold_q, hold_rep_q);
  // a queue's head does not change until it is popped.
  logic sel_rep, hold_q, hold_rep_q;
  assign sel_rep = hold_q ? hold_rep_q : rep_valid;
  tess_noc_fifo #(.WIDTH(FW), .DEPTH(FIFO_DEPTH)) u_rep_q (
    .clk_i, .rst_ni,
    .in_valid_i(tag_q == TagReply), .in_ready_o(rep_in_ready), .in_data_i(rd_flit),
    .out_valid_o(rep_valid), .out_ready_i(inj_ready_i && sel_rep), .out_data_o(rep_flit)
  );
  tess_noc_fifo #(.WIDTH(FW), .DEPTH(FIFO_DEPTH)) u_eng_q (
    .clk_i, .rst_ni,
    .in_valid_i(tag_q == TagWord), .in_ready_o(eng_in_ready), .in_data_i(rd_flit),
    .out_valid_o(eng_valid), .out_ready_i(inj_ready_i && !sel_rep), .out_data_o(eng_flit)
  );

  assign inj_valid_o = sel_rep ? rep_valid : eng_valid;
  assign inj_flit_o = sel_rep ? rep_flit : eng_flit;
  assign rep_pop = sel_rep && rep_valid && inj_ready_i;
  assign eng_pop = !sel_rep && eng_valid && inj_ready_i;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      hold_q <= 1'b0;
      hold_rep_q <= 1'b0;
    end else begin
      hold_q <= inj_valid_o && !inj_ready_i;
      hold_rep_q <= sel_rep;
    end
  end
  assign rep_take_o = ej_read;
  assign rep_sent_o = rep_pop;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rep_occ_q <= '0;
      eng_occ_q <= '0;
    end else begin
      if (ej_read && !rep_pop) rep_occ_q <= rep_occ_q + 1'b1;
      else if (!ej_read && rep_pop) rep_occ_q <= rep_occ_q - 1'b1;
      if (eng_word_grant && !eng_pop) eng_occ_q <= eng_occ_q + 1'b1;
      else if (!eng_word_grant && eng_pop) eng_occ_q <= eng_occ_q - 1'b1;
    end
  end

  // The engine's walk.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      st_q <= SIdle;
      armed_q <= 1'b0;
      list_q <= 32'd0;
      entries_q <= 32'd0;
      entry_idx_q <= 32'd0;
      src_q <= 32'd0;
      dst_q <= 32'd0;
      dst_node_q <= '0;
      words_q <= 32'd0;
      sent_q <= 32'd0;
      k_q <= 2'd0;
      rep_q <= 1'b0;
      for (int i = 0; i < 4; i++) ent_q[i] <= 32'd0;
    end else begin
      if (xchg_start_i) armed_q <= 1'b1;
      if (release_i) armed_q <= 1'b0;
      if (tag_q == TagEntry) ent_q[tag_k_q] <= ent_wdata;
      if (eng_pop) sent_q <= sent_q + 32'd1;
      case (st_q)
        SIdle: begin
          if (go_i && !stop_i) begin
            // The list as the register block holds it at the barrier, as the emulator reads it.
            armed_q <= 1'b0;
            sent_q <= 32'd0;
            rep_q <= 1'b0;
            list_q <= xchg_list_i;
            entries_q <= xchg_entries_i;
            if (armed_q && xchg_entries_i != 32'd0) begin
              st_q <= SEntry;
              entry_idx_q <= 32'd0;
              k_q <= 2'd0;
            end
          end
        end
        SEntry: begin
          if (eng_grant) begin
            k_q <= k_q + 2'd1;
            if (k_q == 2'd3) st_q <= SEntryWait;
          end
        end
        SEntryWait: st_q <= SSetup;  // the last entry word is on ext_rdata_i next cycle
        SSetup: begin
          if (!rep_q) begin  // (with rep_q set, ent_q holds the SendRepeat, ready)
            src_q <= ent_q[0];
            words_q <= {2'b00, ent_q[1][31:2]};
            dst_node_q <= ent_q[2][NW-1:0];
            dst_q <= ent_wdata;  // the last word, on ext_rdata_i now (ent_q[3] at this edge)
          end
          if (!rep_q && ent_q[2][31] && !last_slot) begin
            rep_q <= 1'b1;                  // read the SendRepeat slot next
            entry_idx_q <= entry_idx_q + 32'd1;
            st_q <= SEntry;
          end else if (rep_q ? words_q != 32'd0 : ent_q[1][31:2] != 30'd0) begin
            st_q <= SWords;
          end else begin
            rep_q <= 1'b0;
            if (last_slot) begin
              st_q <= SDrain;
            end else begin
              entry_idx_q <= entry_idx_q + 32'd1;
              st_q <= SEntry;
            end
          end
        end
        SWords: begin
          if (eng_word_grant) begin
            src_q <= src_q + (run_last && more_runs ? ent_q[1] : 32'd4);
            dst_q <= dst_q + (run_last && more_runs ? ent_q[2] : 32'd4);
            words_q <= words_dec;
            if (run_last && more_runs) begin
              words_q <= ent_q[3];
              ent_q[0] <= ent_q[0] - 32'd1;
            end else if (run_last) begin
              rep_q <= 1'b0;
              if (last_slot) begin
                st_q <= SDrain;
              end else begin
                entry_idx_q <= entry_idx_q + 32'd1;
                st_q <= SEntry;
              end
            end
          end
        end
        SDrain: begin
          if (eng_occ_q == '0) st_q <= SIdle;
        end
        default: st_q <= SIdle;
      endcase
    end
  end

  assign xchg_busy_o = st_q != SIdle;
  assign xchg_sent_o = sent_q;
  assign done_o = st_q == SIdle;

  // ---- arrival, expected and received words -------------------------------------------
  logic        arrived_q;
  logic [31:0] kind_q, expect_q, count_q;
  logic        ret_st;
  assign ret_st = retire_valid_i && retire_mem_we_i;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      arrived_q <= 1'b0;
      kind_q <= 32'd0;
      expect_q <= 32'd0;
      count_q <= 32'd0;
    end else begin
      if (release_i || !run_i) begin
        arrived_q <= 1'b0;
        expect_q <= 32'd0;
        count_q <= 32'd0;
      end
      // A word landing in the release cycle is the new phase's first.
      if (run_i && !stop_i && ej_write && ej_kind == tess_flit_pkg::KindWrite)
        count_q <= (release_i ? 32'd0 : count_q) + 32'd1;
      if (ret_st && !stop_i && retire_mem_addr_i == ExpectAddr) expect_q <= retire_mem_wdata_i;
      if (ret_st && !stop_i && retire_mem_addr_i == SyncAddr && !arrived_q) begin
        arrived_q <= 1'b1;
        kind_q <= retire_mem_wdata_i;
      end
    end
  end
  assign arrived_o = arrived_q;
  assign kind_o = kind_q;
  assign recv_expect_o = expect_q;
  assign recv_count_o = count_q;

  // The mesh port's contract in both directions (simulation only): this NI's injection, and
  // what the mesh offers for ejection.
  tess_vr_check #(.W(FW), .NAME("NI injection")) u_check_inj (
    .clk_i, .rst_ni, .valid_i(inj_valid_o), .ready_i(inj_ready_i), .data_i(inj_flit_o));
  tess_vr_check #(.W(FW), .NAME("NI ejection")) u_check_ej (
    .clk_i, .rst_ni, .valid_i(ej_valid_i), .ready_i(ej_ready_o), .data_i(ej_flit_i));
  // ... and the flits themselves: what this tile sends, and where the mesh delivered.
  tess_flit_check #(.INJECT(1'b1), .NAME("NI injection")) u_flit_inj (
    .clk_i, .rst_ni, .valid_i(inj_valid_o), .flit_i(inj_flit_o), .node_id_i);
  tess_flit_check #(.INJECT(1'b0), .NAME("NI ejection")) u_flit_ej (
    .clk_i, .rst_ni, .valid_i(ej_valid_i), .flit_i(ej_flit_i), .node_id_i);
endmodule
