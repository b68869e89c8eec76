// The exchange network: an X x Y mesh of tess_router with HOSTS host nodes on its west edge
// (docs/network.md). Flits are tess_flit_pkg::FlitW-bit vectors (tess_noc_pkg.sv).
//
// Nodes: tile n = y * X + x sits at router (x, y); host node h (node id X*Y + h, h < HOSTS
// <= Y) is attached to the west port of router (0, h). Routing is XY (X first, then Y); a
// host node routes as if at (-1, h).
//
// Parameters
//   X, Y          mesh columns and rows (T = X * Y tiles)
//   HOSTS         host nodes, 0..Y
//   LINK_LATENCY  register stages on each router-to-router link (0 = wire); a hop costs
//                 1 + LINK_LATENCY cycles
//   FIFO_DEPTH    flits per router input queue (>= 2 for full throughput)
//
// Reset: rst_ni[n] resets router n and the links it drives (and so the host node at its west
// port); the machine drives each from its tile's leaf of the reset tree, all rising in the
// same cycle (docs/machine-rtl.md). A lone mesh ties them together.
//
// Ports (every port valid/ready: a flit moves in a cycle where valid and ready are both 1;
// a sender keeps valid and the flit until it moves; flit n is bits [n*FlitW +: FlitW])
//   tile_in_valid_i[T], tile_in_ready_o[T], tile_in_flit_i[T*FlitW]        tile n injects
//   tile_out_valid_o[T], tile_out_ready_i[T], tile_out_flit_o[T*FlitW]     tile n receives
//   host_in_valid_i[H], host_in_ready_o[H], host_in_flit_i[H*FlitW]        host node h injects
//   host_out_valid_o[H], host_out_ready_i[H], host_out_flit_o[H*FlitW]     host node h receives
// The *_ready_o of an injection port is a flop (the input queue is not full); the
// *_valid_o/*_flit_o of an ejection port do not depend on its *_ready_i and stay stable
// while a flit waits. The mesh cannot deadlock as long as every receiver eventually takes
// what it is offered (docs/network.md). HOSTS = 0 still has one-bit host ports (tie them off).
module tess_mesh #(
  parameter int unsigned X = 4,
  parameter int unsigned Y = 4,
  parameter int unsigned HOSTS = 2,
  parameter int unsigned LINK_LATENCY = 1,
  parameter int unsigned FIFO_DEPTH = 2,
  localparam int unsigned T = X * Y,
  localparam int unsigned H = HOSTS > 0 ? HOSTS : 1  // port width
) (
  input  logic         clk_i,
  input  logic [T-1:0] rst_ni,  // per router

  input  logic [T-1:0]                     tile_in_valid_i,
  output logic [T-1:0]                     tile_in_ready_o,
  input  logic [T*tess_flit_pkg::FlitW-1:0] tile_in_flit_i,
  output logic [T-1:0]                     tile_out_valid_o,
  input  logic [T-1:0]                     tile_out_ready_i,
  output logic [T*tess_flit_pkg::FlitW-1:0] tile_out_flit_o,

  input  logic [H-1:0]                     host_in_valid_i,
  output logic [H-1:0]                     host_in_ready_o,
  input  logic [H*tess_flit_pkg::FlitW-1:0] host_in_flit_i,
  output logic [H-1:0]                     host_out_valid_o,
  input  logic [H-1:0]                     host_out_ready_i,
  output logic [H*tess_flit_pkg::FlitW-1:0] host_out_flit_o
);
  localparam int unsigned P = tess_noc_pkg::NumPorts;
  localparam int unsigned W = tess_flit_pkg::FlitW;
  localparam int unsigned PL = tess_noc_pkg::PortL;
  localparam int unsigned PN = tess_noc_pkg::PortN;
  localparam int unsigned PE = tess_noc_pkg::PortE;
  localparam int unsigned PS = tess_noc_pkg::PortS;
  localparam int unsigned PW = tess_noc_pkg::PortW;

  // Router n = y * X + x, port p: bit n*P + p, flit bits [(n*P + p)*W +: W].
  logic [T*P-1:0]   r_in_valid, r_in_ready, r_out_valid, r_out_ready;
  logic [T*P*W-1:0] r_in_flit, r_out_flit;

  for (genvar y = 0; y < Y; y++) begin : g_row
    for (genvar x = 0; x < X; x++) begin : g_col
      localparam int unsigned N = y * X + x;

      tess_router #(
        .X(X), .Y(Y), .HOSTS(HOSTS), .MY_X(x), .MY_Y(y), .FIFO_DEPTH(FIFO_DEPTH)
      ) u_router (
        .clk_i,
        .rst_ni     (rst_ni[N]),
        .in_valid_i (r_in_valid[N*P +: P]),
        .in_ready_o (r_in_ready[N*P +: P]),
        .in_flit_i  (r_in_flit[N*P*W +: P*W]),
        .out_valid_o(r_out_valid[N*P +: P]),
        .out_ready_i(r_out_ready[N*P +: P]),
        .out_flit_o (r_out_flit[N*P*W +: P*W])
      );

      // Local port: the tile.
      assign r_in_valid[N*P + PL] = tile_in_valid_i[N];
      assign tile_in_ready_o[N] = r_in_ready[N*P + PL];
      assign r_in_flit[(N*P + PL)*W +: W] = tile_in_flit_i[N*W +: W];
      assign tile_out_valid_o[N] = r_out_valid[N*P + PL];
      assign r_out_ready[N*P + PL] = tile_out_ready_i[N];
      assign tile_out_flit_o[N*W +: W] = r_out_flit[(N*P + PL)*W +: W];

      // Each output feeds a link to the facing input of the neighbour; at the edge the
      // output is open (XY routing never sends there: ready tied high, checked in
      // simulation below) and the input idle.
      if (x + 1 < X) begin : g_east
        tess_link #(.WIDTH(W), .LATENCY(LINK_LATENCY)) u_link (
          .clk_i, .rst_ni(rst_ni[N]),
          .in_valid_i (r_out_valid[N*P + PE]),
          .in_ready_o (r_out_ready[N*P + PE]),
          .in_data_i  (r_out_flit[(N*P + PE)*W +: W]),
          .out_valid_o(r_in_valid[(N+1)*P + PW]),
          .out_ready_i(r_in_ready[(N+1)*P + PW]),
          .out_data_o (r_in_flit[((N+1)*P + PW)*W +: W])
        );
      end else begin : g_east_edge
        assign r_out_ready[N*P + PE] = 1'b1;
        assign r_in_valid[N*P + PE] = 1'b0;
        assign r_in_flit[(N*P + PE)*W +: W] = '0;
      end

      if (x > 0) begin : g_west
        tess_link #(.WIDTH(W), .LATENCY(LINK_LATENCY)) u_link (
          .clk_i, .rst_ni(rst_ni[N]),
          .in_valid_i (r_out_valid[N*P + PW]),
          .in_ready_o (r_out_ready[N*P + PW]),
          .in_data_i  (r_out_flit[(N*P + PW)*W +: W]),
          .out_valid_o(r_in_valid[(N-1)*P + PE]),
          .out_ready_i(r_in_ready[(N-1)*P + PE]),
          .out_data_o (r_in_flit[((N-1)*P + PE)*W +: W])
        );
      end else if (y < HOSTS) begin : g_host
        // Host node y on the west port of router (0, y).
        assign r_in_valid[N*P + PW] = host_in_valid_i[y];
        assign host_in_ready_o[y] = r_in_ready[N*P + PW];
        assign r_in_flit[(N*P + PW)*W +: W] = host_in_flit_i[y*W +: W];
        assign host_out_valid_o[y] = r_out_valid[N*P + PW];
        assign r_out_ready[N*P + PW] = host_out_ready_i[y];
        assign host_out_flit_o[y*W +: W] = r_out_flit[(N*P + PW)*W +: W];
      end else begin : g_west_edge
        assign r_out_ready[N*P + PW] = 1'b1;
        assign r_in_valid[N*P + PW] = 1'b0;
        assign r_in_flit[(N*P + PW)*W +: W] = '0;
      end

      if (y + 1 < Y) begin : g_south
        tess_link #(.WIDTH(W), .LATENCY(LINK_LATENCY)) u_link (
          .clk_i, .rst_ni(rst_ni[N]),
          .in_valid_i (r_out_valid[N*P + PS]),
          .in_ready_o (r_out_ready[N*P + PS]),
          .in_data_i  (r_out_flit[(N*P + PS)*W +: W]),
          .out_valid_o(r_in_valid[(N+X)*P + PN]),
          .out_ready_i(r_in_ready[(N+X)*P + PN]),
          .out_data_o (r_in_flit[((N+X)*P + PN)*W +: W])
        );
      end else begin : g_south_edge
        assign r_out_ready[N*P + PS] = 1'b1;
        assign r_in_valid[N*P + PS] = 1'b0;
        assign r_in_flit[(N*P + PS)*W +: W] = '0;
      end

      if (y > 0) begin : g_north
        tess_link #(.WIDTH(W), .LATENCY(LINK_LATENCY)) u_link (
          .clk_i, .rst_ni(rst_ni[N]),
          .in_valid_i (r_out_valid[N*P + PN]),
          .in_ready_o (r_out_ready[N*P + PN]),
          .in_data_i  (r_out_flit[(N*P + PN)*W +: W]),
          .out_valid_o(r_in_valid[(N-X)*P + PS]),
          .out_ready_i(r_in_ready[(N-X)*P + PS]),
          .out_data_o (r_in_flit[((N-X)*P + PS)*W +: W])
        );
      end else begin : g_north_edge
        assign r_out_ready[N*P + PN] = 1'b1;
        assign r_in_valid[N*P + PN] = 1'b0;
        assign r_in_flit[(N*P + PN)*W +: W] = '0;
      end
    end
  end

  // HOSTS = 0: the one-bit host ports are unused.
  if (HOSTS == 0) begin : g_no_host
    assign host_in_ready_o = 1'b0;
    assign host_out_valid_o = 1'b0;
    assign host_out_flit_o = '0;
  end

`ifndef SYNTHESIS
  // A flit leaving through an open edge port is lost: XY routing must never do that.
  // The edge inputs are tied to idle, so their ready outputs are not needed either.
  logic [T*P-1:0] edge_out;
  always_comb begin
    edge_out = '0;
    for (int n = 0; n < T; n++) begin
      if (n % X == X - 1) edge_out[n*P + PE] = 1'b1;
      if (n % X == 0 && n / X >= HOSTS) edge_out[n*P + PW] = 1'b1;
      if (n / X == Y - 1) edge_out[n*P + PS] = 1'b1;
      if (n / X == 0) edge_out[n*P + PN] = 1'b1;
    end
  end
  always_ff @(posedge clk_i) begin
    if (|(r_out_valid & edge_out)) begin
      $error("tess_mesh: a flit left through an open edge port (out_valid %h)", r_out_valid & edge_out);
    end
  end

  initial begin
    if (HOSTS > Y) $error("tess_mesh: HOSTS (%0d) must not exceed Y (%0d)", HOSTS, Y);
  end
`endif
endmodule
