// Flit well-formedness at a tile's network interface (docs/network.md), checked in
// simulation: a flit the tile injects (an exchange word or a read reply) is a write (a
// whole word: the flit has no byte mask, and no source field to compare with the node id);
// a flit the mesh ejects at a tile is addressed to that tile (XY routing delivers nowhere
// else). Not asserted: what comes from the program or the host (a send list's destination
// node, host-injected flits): bad ones are device errors, not broken RTL. Immediate assertions, like tess_vr_check; empty under SYNTHESIS.
module tess_flit_check #(
  parameter bit          INJECT = 1'b1,   // 1: the tile's injection port; 0: its ejection port
  parameter NAME = "port",
  localparam int unsigned FW = tess_flit_pkg::FlitW
) (
  input logic          clk_i,
  input logic          rst_ni,
  input logic          valid_i,
  input logic [FW-1:0] flit_i,
  input logic [tess_flit_pkg::NodeW-1:0] node_id_i
);
`ifndef SYNTHESIS
  logic [tess_flit_pkg::NodeW-1:0] dst;
  logic [tess_flit_pkg::KindW-1:0] kind;
  assign dst = flit_i[tess_flit_pkg::DstLsb +: tess_flit_pkg::NodeW];
  assign kind = flit_i[tess_flit_pkg::KindLsb +: tess_flit_pkg::KindW];
  always_ff @(posedge clk_i) begin
    if (rst_ni && valid_i) begin
      if (INJECT) begin
        assert (kind == tess_flit_pkg::KindWrite) else $error("%m: %s: kind %0d is not a write", NAME, kind);
      end else begin
        assert (dst == node_id_i) else $error("%m: %s: flit for node %0d ejected at node %0d", NAME, dst, node_id_i);
      end
    end
  end
`endif
endmodule
