// Router (MY_X, MY_Y) of the mesh: five ports (tess_noc_pkg::Port*: local, N, E, S, W), each
// with an input and an output side, valid/ready on both. Port p's signals are bit p of the
// 5-bit vectors and bits [p*FlitW +: FlitW] of the flit vectors.
//
//   input side   a queue of FIFO_DEPTH flits per port; the XY route of a flit
//                (tess_noc_route) is computed as it enters and stored with it, so the
//                queue's head carries its output port. in_ready_o[p] = queue p not full:
//                a flop, never a function of any out_ready_i (no combinational path
//                from an output's ready to an input's ready)
//   output side  per output a round-robin arbiter (tess_noc_arb) over the heads that want
//                it; one flit per output per cycle, each head goes to one output, so up to
//                five flits cross per cycle. Only the turns XY routing takes are wired
//                (2 inputs for E and W, 4 for N and S, 5 for the local port and the
//                west port of a router with a host node). out_valid_o and out_flit_o depend only on
//                the queues and the arbiters' state (not on out_ready_i) and stay stable
//                while a flit waits
//
// A flit written into an input queue in cycle t can leave in cycle t + 1: one cycle per
// router. Paths: queue head -> arbiter -> output multiplexer -> output (to a link stage
// or a queue of the next router); out_ready_i -> the queues' pop.
module tess_router #(
  parameter int unsigned X = 4,
  parameter int unsigned Y = 4,
  parameter int unsigned HOSTS = 0,
  parameter int unsigned MY_X = 0,
  parameter int unsigned MY_Y = 0,
  parameter int unsigned FIFO_DEPTH = 2
) (
  input  logic clk_i,
  input  logic rst_ni,
  input  logic [tess_noc_pkg::NumPorts-1:0]                      in_valid_i,
  output logic [tess_noc_pkg::NumPorts-1:0]                      in_ready_o,
  input  logic [tess_noc_pkg::NumPorts*tess_flit_pkg::FlitW-1:0]  in_flit_i,
  output logic [tess_noc_pkg::NumPorts-1:0]                      out_valid_o,
  input  logic [tess_noc_pkg::NumPorts-1:0]                      out_ready_i,
  output logic [tess_noc_pkg::NumPorts*tess_flit_pkg::FlitW-1:0]  out_flit_o
);
  localparam int unsigned P = tess_noc_pkg::NumPorts;
  localparam int unsigned W = tess_flit_pkg::FlitW;
  localparam bit HostHere = MY_X == 0 && MY_Y < HOSTS;

  logic [P-1:0]   head_valid;
  logic [P-1:0]   head_pop;
  logic [P*P-1:0] head_route;  // [i*P + o]: head of input i wants output o
  logic [P*W-1:0] head_flit;
  logic [P*P-1:0] gnt;         // [o*P + i]: output o offers input i's head

  // Idle gating (tess_clk_gate): a router with no flit arriving and every queue empty, now
  // and in the cycle before, changes no state at the edge (no push or pop; the arbiters'
  // held grant and hold bit are already clear; the port checks record no wait), so its
  // queues, arbiters and checks are clocked only when the router is busy or just was. A
  // router with a host node is never gated: a host port's valid may follow the harness's
  // inputs after the falling edge.
  logic active, busy_q, gclk;
  assign active = |in_valid_i || |head_valid;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) busy_q <= 1'b1;
    else busy_q <= active;
  end
  tess_clk_gate u_gate (.clk_i, .en_i(active || busy_q || HostHere), .clk_o(gclk));

  for (genvar i = 0; i < P; i++) begin : g_in
    logic [P-1:0] route;
    tess_noc_route #(.X(X), .Y(Y), .HOSTS(HOSTS), .MY_X(MY_X), .MY_Y(MY_Y)) u_route (
      .dst_i  (in_flit_i[i*W + tess_flit_pkg::DstLsb +: tess_flit_pkg::NodeW]),
      .route_o(route)
    );
    tess_noc_fifo #(.WIDTH(P + W), .DEPTH(FIFO_DEPTH)) u_fifo (
      .clk_i(gclk),
      .rst_ni,
      .in_valid_i (in_valid_i[i]),
      .in_ready_o (in_ready_o[i]),
      .in_data_i  ({route, in_flit_i[i*W +: W]}),
      .out_valid_o(head_valid[i]),
      .out_ready_i(head_pop[i]),
      .out_data_o ({head_route[i*P +: P], head_flit[i*W +: W]})
    );
    // Input i's head leaves when the output it wants takes it.
    always_comb begin
      head_pop[i] = 1'b0;
      for (int o = 0; o < P; o++) begin
        if (gnt[o*P + i] && out_ready_i[o]) head_pop[i] = 1'b1;
      end
    end
  end

  // The turns XY routing can take (input i -> output o); the others get no request, no
  // arbiter input and no multiplexer leg. Flits on X (from E or W) may turn anywhere; flits
  // on Y (from N or S) keep going or leave through the local port, except at a router with
  // a host node, where they turn west to it; from the local port anywhere.

  for (genvar o = 0; o < P; o++) begin : g_out
    logic [P-1:0] req, turn_ok;
    always_comb begin
      for (int i = 0; i < P; i++) begin
        case (o)
          tess_noc_pkg::PortE: turn_ok[i] = i == tess_noc_pkg::PortL || i == tess_noc_pkg::PortW;
          tess_noc_pkg::PortW: turn_ok[i] = HostHere || i == tess_noc_pkg::PortL || i == tess_noc_pkg::PortE;
          tess_noc_pkg::PortN: turn_ok[i] = i != tess_noc_pkg::PortN;
          tess_noc_pkg::PortS: turn_ok[i] = i != tess_noc_pkg::PortS;
          default: turn_ok[i] = 1'b1;
        endcase
        req[i] = head_valid[i] && head_route[i*P + o] && turn_ok[i];
      end
    end
    tess_noc_arb #(.N(P)) u_arb (
      .clk_i(gclk),
      .rst_ni,
      .req_i  (req),
      .ready_i(out_ready_i[o]),
      .valid_o(out_valid_o[o]),
      .gnt_o  (gnt[o*P +: P])
    );
    always_comb begin
      out_flit_o[o*W +: W] = '0;
      for (int i = 0; i < P; i++) begin
        if (gnt[o*P + i]) out_flit_o[o*W +: W] = out_flit_o[o*W +: W] | head_flit[i*W +: W];
      end
    end
  end

  // Every port's valid/ready contract, both directions (simulation only).
  for (genvar p = 0; p < P; p++) begin : g_check
    tess_vr_check #(.W(W), .NAME("router input")) u_in (
      .clk_i(gclk), .rst_ni, .valid_i(in_valid_i[p]), .ready_i(in_ready_o[p]), .data_i(in_flit_i[p*W +: W]));
    tess_vr_check #(.W(W), .NAME("router output")) u_out (
      .clk_i(gclk), .rst_ni, .valid_i(out_valid_o[p]), .ready_i(out_ready_i[p]), .data_i(out_flit_o[p*W +: W]));
  end
endmodule
