// The contract of a valid/ready port (docs/network.md "Router"), checked in simulation: once
// the sender raises valid, valid and the payload stay until a cycle with ready takes them.
// Immediate assertions on the previous cycle's state (Verilator 5.006 has no `##N`). The
// models of sim/vlt are built with --assert, so a violation stops the simulation with the
// port's instance name. Empty under SYNTHESIS.
module tess_vr_check #(
  parameter int unsigned W = 1,
  parameter NAME = "port"
) (
  input logic         clk_i,
  input logic         rst_ni,
  input logic         valid_i,
  input logic         ready_i,
  input logic [W-1:0] data_i
);
`ifndef SYNTHESIS
  logic         waiting_q;  // last cycle: valid without ready
  logic [W-1:0] data_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      waiting_q <= 1'b0;
      data_q <= '0;
    end else begin
      if (waiting_q) begin
        assert (valid_i) else $error("%m: %s: valid fell before ready took the payload", NAME);
        assert (!valid_i || data_i == data_q)
          else $error("%m: %s: payload changed while waiting for ready (%h -> %h)", NAME, data_q, data_i);
      end
      waiting_q <= valid_i && !ready_i;
      data_q <= data_i;
    end
  end
`endif
endmodule
