// XY route of one flit at router (MY_X, MY_Y) of an X x Y mesh with HOSTS host nodes:
// route_o is one-hot over the router's ports (tess_noc_pkg::Port*). Tiles are nodes
// 0..X*Y-1 at (id % X, id / X); host node X*Y+h hangs off the west port of router (0, h)
// and routes as if at (-1, h): first along X to column 0, then along Y to row h, then west.
// A destination that is no node (>= X*Y + HOSTS) is delivered to the local port of the
// router it enters (the senders check destinations; docs/network.md).
// Combinational; a router computes it as a flit enters its input queue.
module tess_noc_route #(
  parameter int unsigned X = 4,
  parameter int unsigned Y = 4,
  parameter int unsigned HOSTS = 0,
  parameter int unsigned MY_X = 0,
  parameter int unsigned MY_Y = 0
) (
  input  logic [tess_flit_pkg::NodeW-1:0]    dst_i,
  output logic [tess_noc_pkg::NumPorts-1:0] route_o
);
  localparam logic [31:0] Tiles = X * Y;
  localparam logic [31:0] Nodes = X * Y + HOSTS;
  localparam logic [31:0] RowFirst = MY_Y * X;        // first tile of my row
  localparam logic [31:0] RowEnd = (MY_Y + 1) * X;    // first tile of the next row
  localparam logic [31:0] HostMine = X * Y + MY_Y;    // the host node of my row (if any)

  logic [31:0] dst;
  logic is_tile, is_host;
  logic col_east, col_west;  // a tile destination in a column east / west of mine
  logic row_south, row_north;

  assign dst = {{(32 - tess_flit_pkg::NodeW){1'b0}}, dst_i};
  assign is_tile = dst < Tiles;
  assign is_host = !is_tile && dst < Nodes;

  // Column and row without a divider or subtractor: only comparisons with constants.
  // Tile d is in row r when r*X <= d < (r+1)*X; its column is east of mine when
  // d > r*X + MY_X. Host node h counts as row h, column -1.
  always_comb begin
    col_east = 1'b0;
    col_west = 1'b0;
    for (int r = 0; r < Y; r++) begin
      if (dst >= r * X && dst < (r + 1) * X) begin
        col_east = dst > r * X + MY_X;
        col_west = dst < r * X + MY_X;
      end
    end
    if (!is_tile) begin
      col_east = 1'b0;
      col_west = is_host && MY_X > 0;
    end
  end
  assign row_south = is_tile ? dst >= RowEnd : is_host && dst > HostMine;
  assign row_north = is_tile ? dst < RowFirst : is_host && dst < HostMine;

  always_comb begin
    route_o = '0;
    if (col_east) route_o[tess_noc_pkg::PortE] = 1'b1;
    else if (col_west) route_o[tess_noc_pkg::PortW] = 1'b1;
    else if (row_south) route_o[tess_noc_pkg::PortS] = 1'b1;
    else if (row_north) route_o[tess_noc_pkg::PortN] = 1'b1;
    else if (is_host) route_o[tess_noc_pkg::PortW] = 1'b1;
    else route_o[tess_noc_pkg::PortL] = 1'b1;
  end
endmodule
