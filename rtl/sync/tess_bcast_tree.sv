// A registered distribution tree (docs/machine-rtl.md, "Machine-wide trees"): one W-bit
// value to N leaves through STAGES register levels, so that every leaf sees it in the same
// cycle, STAGES cycles after in_i (STAGES = 0: wires), and no register drives more than FAN
// others. Stage s (1..STAGES) has ceil(N / FAN^(STAGES-s)) registers, node j fed by node
// j / FAN of stage s-1; the last stage has one register per leaf, next to its tile. FAN is
// the smallest with FAN^STAGES >= N.
//
// The machine's pulses (release, go) and levels (run, abort) go through one of these; its
// reset through another, with in_i = 1: every register is cleared asynchronously by rst_ni
// and the 1 reaches every leaf STAGES cycles after rst_ni rises (a reset tree: assertion
// at once, release synchronous and local to each tile).
//
// The registers of one stage hold the same value; `keep` stops synthesis from merging them
// back into one register with the fan-out this tree is there to split.
module tess_bcast_tree #(
  parameter int unsigned N = 4,
  parameter int unsigned W = 1,
  parameter int unsigned STAGES = 1
) (
  input  logic           clk_i,
  input  logic           rst_ni,
  input  logic [W-1:0]   in_i,
  output logic [N*W-1:0] out_o
);
  localparam int unsigned Fan = tess_sync_pkg::fan(N, STAGES);
  localparam integer StagesI = STAGES;

  // Registers of stage s: ceil(N / FAN^(STAGES-s)).
  function automatic integer nodes_at(input integer s);
    integer m, k;
    begin
      m = N;
      for (k = s; k < StagesI; k = k + 1) m = (m + Fan - 1) / Fan;
      nodes_at = m;
    end
  endfunction

  if (STAGES == 0) begin : g_flat
    logic unused_clk;  // no register
    assign unused_clk = clk_i ^ rst_ni;
    assign out_o = {N{in_i}};
  end else begin : g_tree
    // Level s (bits [s*N*W +: N*W]): stage s's registers from its bit 0 (the rest 0).
    localparam int unsigned LW = N * W;
    logic [(STAGES+1)*LW-1:0] lvl;
    if (N > 1) begin : g_root_pad
      // The padding a node at a time: as one vector it passes 8K bits on big targets, which
      // the simulator takes for a mistake (WIDTHCONCAT).
      assign lvl[0 +: W] = in_i;
      for (genvar j = 1; j < N; j++) begin : g_zero
        assign lvl[j*W +: W] = '0;
      end
    end else begin : g_root
      assign lvl[0 +: LW] = in_i;
    end
    for (genvar s = 1; s <= STAGES; s++) begin : g_stage
      localparam int unsigned NN = nodes_at(s);
      (* keep = "true" *) logic [NN*W-1:0] q;
      always_ff @(posedge clk_i or negedge rst_ni) begin
        if (!rst_ni) begin
          q <= '0;
        end else begin
          for (int j = 0; j < NN; j++) q[j*W +: W] <= lvl[(s-1)*LW + (j / Fan)*W +: W];
        end
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
    assign out_o = lvl[STAGES*LW +: LW];
    logic unused_pad;  // the inner stages' padding above their registers
    assign unused_pad = ^lvl[STAGES*LW-1:0];
  end

`ifndef SYNTHESIS
  // Every leaf equals in_i of STAGES cycles ago (immediate assertions, as tess_vr_check).
  if (STAGES > 0) begin : g_check
    logic [STAGES*W-1:0] hist_q;  // [i*W +: W]: in_i of i + 1 cycles ago
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        hist_q <= '0;
      end else begin
        for (int i = 0; i < N; i++) begin
          assert (out_o[i*W +: W] == hist_q[(STAGES-1)*W +: W])
            else $error("%m: leaf %0d has %h, the input of %0d cycles ago was %h", i, out_o[i*W +: W], STAGES,
                        hist_q[(STAGES-1)*W +: W]);
        end
        hist_q[0 +: W] <= in_i;
        for (int i = 1; i < STAGES; i++) hist_q[i*W +: W] <= hist_q[(i-1)*W +: W];
      end
    end
  end
`endif
endmodule
