// A link between two routers: LATENCY register stages (tess_link_stage, two-entry skid
// buffers) with valid/ready back-pressure; a flit takes LATENCY cycles through it and the
// link moves one flit per cycle. LATENCY = 0 is a plain wire.
module tess_link #(
  parameter int unsigned WIDTH = 8,
  parameter int unsigned LATENCY = 1
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
  if (LATENCY == 0) begin : g_wire
    assign out_valid_o = in_valid_i;
    assign in_ready_o = out_ready_i;
    assign out_data_o = in_data_i;
  end else begin : g_stages
    // Stage s takes from position s and drives position s + 1.
    logic [LATENCY:0] valid, ready;
    logic [(LATENCY+1)*WIDTH-1:0] data;
    assign valid[0] = in_valid_i;
    assign in_ready_o = ready[0];
    assign data[0 +: WIDTH] = in_data_i;
    for (genvar s = 0; s < LATENCY; s++) begin : g_stage
      tess_link_stage #(.WIDTH(WIDTH)) u_stage (
        .clk_i,
        .rst_ni,
        .in_valid_i (valid[s]),
        .in_ready_o (ready[s]),
        .in_data_i  (data[s*WIDTH +: WIDTH]),
        .out_valid_o(valid[s+1]),
        .out_ready_i(ready[s+1]),
        .out_data_o (data[(s+1)*WIDTH +: WIDTH])
      );
    end
    assign out_valid_o = valid[LATENCY];
    assign ready[LATENCY] = out_ready_i;
    assign out_data_o = data[LATENCY*WIDTH +: WIDTH];
  end
endmodule
