// One host node's streams (docs/kernel.md): an AXI4-Stream slave (host -> device) and an
// AXI4-Stream master (device -> host), one network flit per beat. TDATA is the flit
// (tess_flit_pkg, FlitW bits) in its low bits, padded with zeros to a multiple of 8 bits
// (the upper pad bits of the slave's TDATA are ignored). No TLAST, TKEEP or TSTRB: every beat
// is one whole flit.
//
// In (host -> device): a wire to the mesh's host injection port, so a beat is taken exactly
// when the mesh takes the flit and the machine's count of flits in flight covers it (the
// barrier's idle check after a DOORBELL then sees every word the host sent before it). TREADY
// is 0 while the port is held (the machine is being reset) and in the cycle after reset.
//
// Out (device -> host): a two-entry register slice (full throughput, registered TVALID and
// TDATA, mesh ready from a flop). The mesh's ejection port is a sink that always drains into
// the stream: if the host stalls the stream (TREADY low), the slice fills and back-pressure
// reaches the mesh, which then stops every flow through the host node's router; the host's
// data movers must keep draining.
//
// Resets: rst_ni is the kernel's (ap_rst_n) only. A CONTROL reset resets the machine, not
// this port: its slice keeps the (at most two) flits it holds and offers them until the host
// takes them, so TVALID never falls without a handshake (AXI4-Stream); the in direction is
// held (hold_i) while the machine is in reset.
module tess_host_port #(
  localparam int unsigned FW = tess_flit_pkg::FlitW,
  localparam int unsigned DW = (tess_flit_pkg::FlitW + 7) / 8 * 8
) (
  input  logic          clk_i,
  input  logic          rst_ni,          // the kernel's reset (ap_rst_n), not CONTROL reset
  input  logic          hold_i,          // 1: take no beat (the machine is being reset)
  // AXI4-Stream slave: host -> device
  input  logic          s_tvalid_i,
  output logic          s_tready_o,
  input  logic [DW-1:0] s_tdata_i,
  // AXI4-Stream master: device -> host
  output logic          m_tvalid_o,
  input  logic          m_tready_i,
  output logic [DW-1:0] m_tdata_o,
  // The mesh's host node
  output logic          inj_valid_o,
  input  logic          inj_ready_i,
  output logic [FW-1:0] inj_flit_o,
  input  logic          ej_valid_i,
  output logic          ej_ready_o,
  input  logic [FW-1:0] ej_flit_i
);
  // ---- in: host -> mesh -------------------------------------------------------------------
  logic live_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) live_q <= 1'b0;
    else live_q <= 1'b1;
  end
  logic open_in;
  assign open_in = live_q && !hold_i;
  assign inj_valid_o = s_tvalid_i && open_in;
  assign s_tready_o = inj_ready_i && open_in;
  assign inj_flit_o = s_tdata_i[FW-1:0];
  logic unused_pad;
  if (DW > FW) begin : g_pad
    assign unused_pad = ^s_tdata_i[DW-1:FW];
  end else begin : g_nopad
    assign unused_pad = 1'b0;
  end

  // ---- out: mesh -> host, a two-entry slice ------------------------------------------------
  // Entry 0 is the head (drives TDATA); entry 1 takes a flit that arrives while the head waits.
  logic [1:0]    cnt_q;
  logic [FW-1:0] head_q, tail_q;
  logic          push, pop;
  assign ej_ready_o = cnt_q != 2'd2;
  assign push = ej_valid_i && ej_ready_o;
  assign pop = m_tvalid_o && m_tready_i;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cnt_q <= 2'd0;
      head_q <= '0;
      tail_q <= '0;
    end else begin
      case ({push, pop})
        2'b10: begin
          if (cnt_q == 2'd0) head_q <= ej_flit_i;
          else tail_q <= ej_flit_i;
          cnt_q <= cnt_q + 2'd1;
        end
        2'b01: begin
          head_q <= tail_q;
          cnt_q <= cnt_q - 2'd1;
        end
        2'b11: begin
          // cnt is 1 (push needs a free entry, pop a full head): the new flit becomes the head.
          head_q <= ej_flit_i;
        end
        default: ;
      endcase
    end
  end
  assign m_tvalid_o = cnt_q != 2'd0;
  if (DW > FW) begin : g_out_pad
    assign m_tdata_o = {{(DW - FW){1'b0}}, head_q};
  end else begin : g_out_nopad
    assign m_tdata_o = head_q;
  end

  // The AXI4-Stream rule on both streams (simulation only): once TVALID is raised it stays,
  // with the same TDATA, until TREADY takes the beat (the host's side on the slave, ours on
  // the master).
  tess_vr_check #(.W(DW), .NAME("AXI4-Stream host-to-device")) u_check_s (
    .clk_i, .rst_ni, .valid_i(s_tvalid_i), .ready_i(s_tready_o), .data_i(s_tdata_i));
  tess_vr_check #(.W(DW), .NAME("AXI4-Stream device-to-host")) u_check_m (
    .clk_i, .rst_ni, .valid_i(m_tvalid_o), .ready_i(m_tready_i), .data_i(m_tdata_o));
endmodule
