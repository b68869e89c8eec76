// The AXI4-Lite rules of the register port (docs/kernel.md), checked in simulation: on each
// of the five channels, once VALID is raised it stays, with the same payload, until READY
// takes it (AW, W and AR are the host's side of the contract, B and R the kernel's); a
// write response only for a write whose address and data were both taken; a read response
// only for a read address taken. Immediate assertions, like tess_vr_check; empty under
// SYNTHESIS.
module tess_axil_check (
  input logic        clk_i,
  input logic        rst_ni,
  input logic        awvalid_i,
  input logic        awready_i,
  input logic [11:0] awaddr_i,
  input logic        wvalid_i,
  input logic        wready_i,
  input logic [35:0] w_i,       // {wstrb, wdata}
  input logic        bvalid_i,
  input logic        bready_i,
  input logic [1:0]  bresp_i,
  input logic        arvalid_i,
  input logic        arready_i,
  input logic [11:0] araddr_i,
  input logic        rvalid_i,
  input logic        rready_i,
  input logic [33:0] r_i        // {rresp, rdata}
);
  tess_vr_check #(.W(12), .NAME("AXI4-Lite AW")) u_aw (
    .clk_i, .rst_ni, .valid_i(awvalid_i), .ready_i(awready_i), .data_i(awaddr_i));
  tess_vr_check #(.W(36), .NAME("AXI4-Lite W")) u_w (
    .clk_i, .rst_ni, .valid_i(wvalid_i), .ready_i(wready_i), .data_i(w_i));
  tess_vr_check #(.W(2), .NAME("AXI4-Lite B")) u_b (
    .clk_i, .rst_ni, .valid_i(bvalid_i), .ready_i(bready_i), .data_i(bresp_i));
  tess_vr_check #(.W(12), .NAME("AXI4-Lite AR")) u_ar (
    .clk_i, .rst_ni, .valid_i(arvalid_i), .ready_i(arready_i), .data_i(araddr_i));
  tess_vr_check #(.W(34), .NAME("AXI4-Lite R")) u_r (
    .clk_i, .rst_ni, .valid_i(rvalid_i), .ready_i(rready_i), .data_i(r_i));
`ifndef SYNTHESIS
  // Handshakes so far on AW, W, B, AR and R (wrapping counters: only differences matter).
  logic [31:0] aw_n, w_n, b_n, ar_n, r_n;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      aw_n <= '0;
      w_n <= '0;
      b_n <= '0;
      ar_n <= '0;
      r_n <= '0;
    end else begin
      if (bvalid_i) begin
        assert (aw_n != b_n && w_n != b_n)
          else $error("%m: AXI4-Lite B: a write response before the write's address and data were taken");
      end
      if (rvalid_i) begin
        assert (ar_n != r_n) else $error("%m: AXI4-Lite R: a read response before its address was taken");
      end
      aw_n <= aw_n + 32'(awvalid_i && awready_i);
      w_n <= w_n + 32'(wvalid_i && wready_i);
      b_n <= b_n + 32'(bvalid_i && bready_i);
      ar_n <= ar_n + 32'(arvalid_i && arready_i);
      r_n <= r_n + 32'(rvalid_i && rready_i);
    end
  end
`endif
endmodule
