// One register stage of a link: a two-entry skid buffer. The output (valid and flit) comes
// from a flop; in_ready_o is a flop too (the skid entry is empty), so a chain of stages has
// no combinational path through valid or ready, and still moves one flit per cycle: when
// the output stalls, the flit already accepted in that cycle lands in the skid entry.
// Flits are neither lost nor duplicated: every accepted flit is held in exactly one of the
// two entries until the output takes it, in order (the skid entry is behind the main one).
module tess_link_stage #(
  parameter int unsigned WIDTH = 8
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             in_valid_i,
  output logic             in_ready_o,
  input  logic [WIDTH-1:0] in_data_i,
  output logic             out_valid_o,
  input  logic             out_ready_i,
  output logic [WIDTH-1:0] out_data_o
);
  logic main_valid_q, skid_valid_q;
  logic [WIDTH-1:0] main_q, skid_q;
  logic push, pop;

  assign in_ready_o = !skid_valid_q;
  assign out_valid_o = main_valid_q;
  assign out_data_o = main_q;
  assign push = in_valid_i && !skid_valid_q;
  assign pop = main_valid_q && out_ready_i;

  // Idle gating (tess_clk_gate): with nothing arriving and nothing held, no flop changes.
  logic gclk;
  tess_clk_gate u_gate (.clk_i, .en_i(in_valid_i || main_valid_q), .clk_o(gclk));

  always_ff @(posedge gclk or negedge rst_ni) begin
    if (!rst_ni) begin
      main_valid_q <= 1'b0;
      skid_valid_q <= 1'b0;
    end else if (pop) begin
      // The skid entry (if any) moves up; otherwise a new flit (if any) takes its place.
      // (push and skid_valid_q exclude each other.)
      main_valid_q <= skid_valid_q || push;
      skid_valid_q <= 1'b0;
    end else if (push) begin
      if (main_valid_q) skid_valid_q <= 1'b1;
      else main_valid_q <= 1'b1;
    end
  end

  // Data flops carry no reset; they are read only while their valid bit is set.
  always_ff @(posedge gclk) begin
    if (pop) begin
      if (skid_valid_q) main_q <= skid_q;
      else if (push) main_q <= in_data_i;
    end else if (push) begin
      if (main_valid_q) skid_q <= in_data_i;
      else main_q <= in_data_i;
    end
  end
endmodule
