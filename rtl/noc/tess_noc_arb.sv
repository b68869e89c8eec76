// Round-robin arbiter of one router output. req_i[i]: input i's head flit wants this output.
// valid_o = any request; gnt_o (one-hot) names the input whose flit is offered. After a
// transfer (valid_o && ready_i) the input just served gets the lowest priority. While an
// offered flit waits (valid_o && !ready_i) the grant is held, so the output's flit stays
// stable until it is taken (AXI-Stream rule); the request it holds cannot go away, because an
// input's head leaves only through its grant. valid_o and gnt_o do not depend on ready_i.
module tess_noc_arb #(
  parameter int unsigned N = 5
) (
  input  logic         clk_i,
  input  logic         rst_ni,
  input  logic [N-1:0] req_i,
  input  logic         ready_i,
  output logic         valid_o,
  output logic [N-1:0] gnt_o
);
  localparam logic [N-1:0] One = {{(N - 1){1'b0}}, 1'b1};
  localparam logic [N-1:0] Top = {1'b1, {(N - 1){1'b0}}};

  logic [N-1:0] last_q;    // one-hot: the input served last
  logic [N-1:0] held_q;    // the grant held while its flit waits
  logic hold_q;
  logic [N-1:0] higher;    // inputs after last_q in the round-robin order
  logic [N-1:0] masked;
  logic [N-1:0] pick;

  // For last_q = bit j: (last_q << 1) - 1 sets bits 0..j, its complement bits j+1..N-1.
  assign higher = ~((last_q << 1) - One);
  assign masked = req_i & higher;
  // Lowest set bit: x & -x.
  assign pick = |masked ? (masked & (~masked + One)) : (req_i & (~req_i + One));
  assign gnt_o = hold_q ? held_q : pick;
  assign valid_o = |req_i;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      last_q <= Top;
      held_q <= '0;
      hold_q <= 1'b0;
    end else begin
      hold_q <= valid_o && !ready_i;
      held_q <= gnt_o;
      if (valid_o && ready_i) last_q <= gnt_o;
    end
  end
endmodule
