// Flit well-formedness at a tile's network interface (docs/network.md), checked in
// simulation: a flit the tile injects (an exchange word or a read reply) is a whole-word
// write from this node; a flit the mesh ejects at a tile is addressed to that tile (XY
// routing delivers nowhere else). Not asserted: what comes from the program or the host (a
// send list's destination node, host-injected flits): bad ones are device errors, not
// broken RTL. Immediate assertions, like tess_vr_check; empty under SYNTHESIS.
module tess_flit_check #(
  parameter bit          INJECT = 1'b1,   // 1: the tile's injection port; 0: its ejection port
  parameter NAME = "port",
  localparam int unsigned FW = tess_flit_pkg::FlitW
) (
  input logic          clk_i,
  input logic          rst_ni,
  input logic          valid_i,
  input logic [FW-1:0] flit_i,
  input logic [15:0]   node_id_i
);
`ifndef SYNTHESIS
  logic [tess_flit_pkg::NodeW-1:0] src, dst;
  logic [tess_flit_pkg::KindW-1:0] kind;
  logic [tess_flit_pkg::MaskW-1:0] mask;
  assign mask = flit_i[tess_flit_pkg::MaskLsb +: tess_flit_pkg::MaskW];
  assign src = flit_i[tess_flit_pkg::SrcLsb +: tess_flit_pkg::NodeW];
  assign dst = flit_i[tess_flit_pkg::DstLsb +: tess_flit_pkg::NodeW];
  assign kind = flit_i[tess_flit_pkg::KindLsb +: tess_flit_pkg::KindW];
  always_ff @(posedge clk_i) begin
    if (rst_ni && valid_i) begin
      if (INJECT) begin
        assert (src == node_id_i) else $error("%m: %s: source %0d is not this node %0d", NAME, src, node_id_i);
        assert (kind == tess_flit_pkg::KindWrite) else $error("%m: %s: kind %0d is not a write", NAME, kind);
        assert (mask == 4'hF) else $error("%m: %s: byte mask %h is not the whole word", NAME, mask);
      end else begin
        assert (dst == node_id_i) else $error("%m: %s: flit for node %0d ejected at node %0d", NAME, dst, node_id_i);
      end
    end
  end
`endif
endmodule
