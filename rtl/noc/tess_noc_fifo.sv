// First-in first-out queue with valid/ready on both sides: a router's input buffer.
// in_ready_o depends on the queue's state only (not on out_ready_i), so no combinational
// path runs from the consumer's ready back to the producer. With DEPTH >= 2 a queue whose
// head leaves every cycle takes a new entry every cycle (push and pop in one cycle).
// The storage has no reset (LUT RAM in synthesis); the pointers and the count do.
module tess_noc_fifo #(
  parameter int unsigned WIDTH = 8,
  parameter int unsigned DEPTH = 2
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
  localparam int unsigned AW = DEPTH > 1 ? $clog2(DEPTH) : 1;
  localparam logic [31:0] Depth32 = DEPTH;
  localparam logic [31:0] Last32 = DEPTH - 1;
  localparam logic [AW-1:0] LastIdx = Last32[AW-1:0];
  localparam logic [AW:0] Full = Depth32[AW:0];

  (* ram_style = "distributed" *) logic [WIDTH-1:0] mem_q [DEPTH];
  logic [AW-1:0] rd_q, wr_q;
  logic [AW:0] cnt_q;
  logic push, pop;

  assign in_ready_o = cnt_q != Full;
  assign out_valid_o = cnt_q != '0;
  assign out_data_o = mem_q[rd_q];
  assign push = in_valid_i && in_ready_o;
  assign pop = out_valid_o && out_ready_i;

  always_ff @(posedge clk_i) begin
    if (push) mem_q[wr_q] <= in_data_i;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rd_q <= '0;
      wr_q <= '0;
      cnt_q <= '0;
    end else begin
      if (push) wr_q <= wr_q == LastIdx ? '0 : wr_q + 1'b1;
      if (pop) rd_q <= rd_q == LastIdx ? '0 : rd_q + 1'b1;
      if (push && !pop) cnt_q <= cnt_q + 1'b1;
      else if (pop && !push) cnt_q <= cnt_q - 1'b1;
    end
  end
endmodule
