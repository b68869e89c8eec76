// A clock gate for simulation speed (docs/machine-rtl.md, "Simulation speed"). No flop
// behind it may change state at an edge en_i does not enable (each user says why; its
// own enables or an idle condition), so the logic is the same with or without the gate: on
// the FPGA (TESS_SIM_CLOCK_GATES undefined) clk_o is clk_i; in the Verilated models
// (TESS_SIM_CLOCK_GATES defined) clk_o rises only at the edges en_i enables, and the
// simulator evaluates the flops behind it, and the logic that reads only them, at those
// edges alone.
//
// en_i is sampled while clk_i is low (a latch, as a standard clock-gating cell), so it must
// be settled before the falling edge: a function of flops on clk_i, not of the harness's
// inputs.
module tess_clk_gate (
  input  logic clk_i,
  input  logic en_i,
  output logic clk_o
);
`ifdef TESS_SIM_CLOCK_GATES
  logic en_l;
  always_latch begin
    if (!clk_i) en_l = en_i;
  end
  assign clk_o = clk_i & en_l;
`else
  /* verilator lint_off UNUSEDSIGNAL */
  logic unused_en;
  assign unused_en = en_i;
  /* verilator lint_on UNUSEDSIGNAL */
  assign clk_o = clk_i;
`endif
endmodule
