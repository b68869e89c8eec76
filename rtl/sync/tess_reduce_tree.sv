// A registered reduction tree (docs/machine-rtl.md, "Machine-wide trees"): N leaves of W bits
// each, reduced to one W-bit value through STAGES register levels, so that the logic between
// two registers spans one group of leaves and not the whole machine.
//
// Stage s (1..STAGES) reduces groups of FAN consecutive nodes of stage s-1 (stage 0: the
// leaves) and registers the result: node j of stage s is the reduction of leaves
// [j*FAN^s, (j+1)*FAN^s). FAN is the smallest fan-in with FAN^STAGES >= N, so a deeper tree
// has narrower stages. out_o is the reduction of the leaves as they were STAGES cycles
// earlier (each stage one cycle); STAGES = 0 is the plain combinational reduction.
//
// OP
//   0  bitwise OR (an AND is the OR of the inverted leaves, inverted)
//   1  sum modulo 2^W (the caller makes W wide enough for the total)
//   2  first: the lowest-index leaf whose top bit (W-1, "set") is 1, with the rest of its
//      bits (an index and a payload of the caller's choosing); top bit 0 if no leaf is set
//      (the other bits are then those of the last leaf and mean nothing)
// The three are associative, so grouping the leaves changes no result, only the latency.
//
// Registers reset to 0 (asynchronously, rst_ni): for a little while after a reset the output
// is the reduction of zero leaves, which the users allow for (the barrier acts on nothing
// until its hold has passed, the counts see no handshake while the tiles are in reset).
module tess_reduce_tree #(
  parameter int unsigned N = 4,
  parameter int unsigned W = 1,
  parameter int unsigned OP = 0,
  parameter int unsigned STAGES = 1
) (
  input  logic           clk_i,
  input  logic           rst_ni,
  input  logic [N*W-1:0] in_i,
  output logic [W-1:0]   out_o
);
  localparam int unsigned Fan = tess_sync_pkg::fan(N, STAGES);

  // Nodes of stage s: ceil(N / FAN^s).
  function automatic integer nodes_at(input integer s);
    integer m, k;
    begin
      m = N;
      for (k = 0; k < s; k = k + 1) m = (m + Fan - 1) / Fan;
      nodes_at = m;
    end
  endfunction

  // a: the node of lower index.
  function automatic logic [W-1:0] combine(input logic [W-1:0] a, input logic [W-1:0] b);
    begin
      if (OP == 1) combine = a + b;
      else if (OP == 2) combine = a[W-1] ? a : b;
      else combine = a | b;
    end
  endfunction

  if (STAGES == 0) begin : g_flat
    logic unused_clk;  // no register
    assign unused_clk = clk_i ^ rst_ni;
    always_comb begin
      out_o = '0;
      for (int i = 0; i < N; i++) out_o = combine(out_o, in_i[i*W +: W]);
    end
  end else begin : g_tree
    // Level s (bits [s*N*W +: N*W]): stage s's nodes, packed from its bit 0 (the rest 0);
    // level 0 the leaves.
    localparam int unsigned LW = N * W;
    logic [(STAGES+1)*LW-1:0] lvl;
    assign lvl[0 +: LW] = in_i;
    for (genvar s = 1; s <= STAGES; s++) begin : g_stage
      localparam int unsigned NP = nodes_at(s - 1);
      localparam int unsigned NN = nodes_at(s);
      logic [NN*W-1:0] d, q;
      always_comb begin
        for (int j = 0; j < NN; j++) begin
          d[j*W +: W] = '0;
          for (int k = 0; k < Fan; k++) begin
            if (j * Fan + k < NP) d[j*W +: W] = combine(d[j*W +: W], lvl[(s-1)*LW + (j*Fan + k)*W +: W]);
          end
        end
      end
      always_ff @(posedge clk_i or negedge rst_ni) begin
        if (!rst_ni) q <= '0;
        else q <= d;
      end
      if (NN < N) begin : g_pad
        // The padding a node at a time: as one vector it passes 8K bits on big targets, which
        // the simulator takes for a mistake (WIDTHCONCAT).
        assign lvl[s*LW +: NN*W] = q;
        for (genvar j = NN; j < N; j++) begin : g_zero
          assign lvl[s*LW + j*W +: W] = '0;
        end
      end else begin : g_full
        assign lvl[s*LW +: LW] = q;
      end
    end
    assign out_o = lvl[STAGES*LW +: W];
    if (N > 1) begin : g_unused
      logic unused_nodes;  // the last stage's padding
      assign unused_nodes = ^lvl[STAGES*LW + W +: LW - W];
    end
  end

`ifndef SYNTHESIS
  // The tree against the plain reduction delayed by STAGES cycles (immediate assertions, as
  // tess_vr_check): the grouping changes nothing, every leaf counts once, the latency is
  // STAGES.
  if (STAGES > 0) begin : g_check
    logic [W-1:0] flat;
    logic [STAGES*W-1:0] hist_q;  // [i*W +: W]: the reduction of i + 1 cycles ago
    always_comb begin
      flat = '0;
      for (int i = 0; i < N; i++) flat = combine(flat, in_i[i*W +: W]);
    end
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        hist_q <= '0;
      end else begin
        assert (out_o == hist_q[(STAGES-1)*W +: W])
          else $error("%m: tree output %h, the reduction of %0d cycles ago %h", out_o, STAGES,
                      hist_q[(STAGES-1)*W +: W]);
        hist_q[0 +: W] <= flat;
        for (int i = 1; i < STAGES; i++) hist_q[i*W +: W] <= hist_q[(i-1)*W +: W];
      end
    end
  end
`endif
endmodule
