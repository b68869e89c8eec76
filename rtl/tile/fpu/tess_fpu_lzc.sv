// Leading-zero counter.
//
// cnt_o is the number of zero bits above the most significant one of in_i (WIDTH when
// in_i is zero). Purely combinational.
module tess_fpu_lzc #(
  parameter int unsigned WIDTH = 32,
  parameter int unsigned CNT_W = $clog2(WIDTH + 1)
) (
  input  logic [WIDTH-1:0] in_i,
  output logic [CNT_W-1:0] cnt_o
);

  logic [31:0] cnt;

  // Scan from the LSB up so that the last (most significant) one found wins.
  always_comb begin
    cnt = WIDTH;
    for (int unsigned i = 0; i < WIDTH; i++) begin
      if (in_i[i]) begin
        cnt = WIDTH - 1 - i;
      end
    end
  end

  assign cnt_o = cnt[CNT_W-1:0];

  /* verilator lint_off UNUSEDSIGNAL */
  // Only the low CNT_W bits of the 32-bit scan variable are meaningful.
  logic unused_cnt;
  assign unused_cnt = ^cnt[31:CNT_W];
  /* verilator lint_on UNUSEDSIGNAL */

endmodule
