// Machine-mode CSRs (docs/isa.md "CSRs"), trap entry and mret, the counters, fflags
// accrual and the first-trap latch. Reads are combinational for the instruction in E1;
// writes, trap entry and mret take effect at the end of the cycle the instruction leaves E1.
module tess_csr (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        count_i,        // the core is running: mcycle counts
  // CSR instruction in E1
  input  logic [11:0] addr_i,
  input  logic [1:0]  op_i,           // tess_core_pkg::csr_op_e
  input  logic        writes_i,       // the instruction writes (csrrw, or a non-zero rs1/uimm)
  input  logic [31:0] src_i,          // rs1 or the uimm
  input  logic        commit_i,       // it leaves E1 this cycle (no trap)
  output logic [31:0] rdata_o,
  output logic        illegal_o,      // no such CSR, a write to a read-only one, or FP off
  output logic        timing_o,       // rdata_o is the cycle counter (a timing value)
  // Traps and mret, as the instruction leaves E1
  input  logic        trap_i,
  input  logic [31:0] trap_cause_i,
  input  logic [31:0] trap_pc_i,
  input  logic [31:0] trap_tval_i,
  output logic        trap_halts_o,   // this trap halts the tile: mtvec = 0, or its pc is mtvec's
  input  logic        mret_i,
  output logic [31:0] mtvec_o,
  output logic [31:0] mepc_o,
  // FP state
  output logic        fs_on_o,
  output logic [2:0]  frm_o,
  input  logic [4:0]  flags_i,        // flags accrued this cycle (ORed over the stages)
  input  logic        fs_dirty_i,     // an instruction writing an f register leaves E1
  // Counters
  input  logic        instret_i,      // an instruction leaves E1 without trapping
  output logic [63:0] mcycle_o,
  // First-trap latch
  input  logic [31:0] superstep_i,
  output logic        latch_valid_o,
  output logic [31:0] latch_cause_o,
  output logic [31:0] latch_pc_o,
  output logic [31:0] latch_tval_o,
  output logic [31:0] latch_superstep_o
);

  localparam logic [31:0] Misa = 32'h4000_1120;    // RV32 I M F
  localparam logic [31:0] Mimpid = 32'h0001_0000;  // Tessera tile core v1.0
  localparam logic [31:0] MieMask = 32'h0000_0888; // MSIE, MTIE, MEIE

  logic        mie_q, mpie_q;
  logic [1:0]  fs_q;
  logic [31:0] mtvec_q, mepc_q, mcause_q, mtval_q, mscratch_q, mie_reg_q;
  logic [4:0]  fflags_q;
  logic [2:0]  frm_q;
  logic [63:0] mcycle_q, minstret_q;

  logic [31:0] mstatus;
  assign mstatus = {fs_q == 2'b11, 16'd0, fs_q, 2'b11, 3'd0, mpie_q, 3'd0, mie_q, 3'd0};

  // Read side: value and legality.
  logic exists, fp_csr, hpm;
  always_comb begin
    rdata_o = 32'd0;
    exists = 1'b1;
    fp_csr = 1'b0;
    timing_o = 1'b0;
    hpm = (addr_i >= 12'hB03 && addr_i <= 12'hB1F) || (addr_i >= 12'hB83 && addr_i <= 12'hB9F) ||
          (addr_i >= 12'h323 && addr_i <= 12'h33F);
    case (addr_i)
      12'h001: begin rdata_o = {27'd0, fflags_q}; fp_csr = 1'b1; end
      12'h002: begin rdata_o = {29'd0, frm_q}; fp_csr = 1'b1; end
      12'h003: begin rdata_o = {24'd0, frm_q, fflags_q}; fp_csr = 1'b1; end
      12'h300: rdata_o = mstatus;
      12'h310: rdata_o = 32'd0;
      12'h301: rdata_o = Misa;
      12'h304: rdata_o = mie_reg_q;
      12'h344: rdata_o = 32'd0;
      12'h305: rdata_o = mtvec_q;
      12'h340: rdata_o = mscratch_q;
      12'h341: rdata_o = mepc_q;
      12'h342: rdata_o = mcause_q;
      12'h343: rdata_o = mtval_q;
      12'hC00, 12'hB00: begin rdata_o = mcycle_q[31:0]; timing_o = 1'b1; end
      12'hC80, 12'hB80: begin rdata_o = mcycle_q[63:32]; timing_o = 1'b1; end
      // minstret counts instructions, the same on every backend: not a timing value.
      12'hC02, 12'hB02: rdata_o = minstret_q[31:0];
      12'hC82, 12'hB82: rdata_o = minstret_q[63:32];
      12'h320: rdata_o = 32'd0;
      12'hF11, 12'hF12, 12'hF14, 12'hF15: rdata_o = 32'd0;
      12'hF13: rdata_o = Mimpid;
      default: exists = hpm;
    endcase
    illegal_o = !exists || (fp_csr && fs_q == 2'b00) || (writes_i && addr_i[11:10] == 2'b11);
  end

  logic [31:0] wdata;
  always_comb begin
    case (op_i)
      tess_core_pkg::CSR_SET: wdata = rdata_o | src_i;
      tess_core_pkg::CSR_CLEAR: wdata = rdata_o & ~src_i;
      default: wdata = src_i;
    endcase
  end

  logic csr_we;
  assign csr_we = commit_i && writes_i && op_i != tess_core_pkg::CSR_NONE;

  // A trap nothing could recover from halts the tile instead of looping (docs/isa.md
  // "Traps"): one before software installed a handler, or one at the handler's own first
  // instruction. Any other, also one inside the handler, vectors to mtvec.
  assign trap_halts_o = mtvec_q == 32'd0 || trap_pc_i == mtvec_q;
  assign mtvec_o = mtvec_q;
  assign mepc_o = mepc_q;
  assign fs_on_o = fs_q != 2'b00;
  assign frm_o = frm_q;
  assign mcycle_o = mcycle_q;

  logic [4:0] fflags_acc;
  assign fflags_acc = fflags_q | flags_i;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      {mie_q, mpie_q} <= '0;
      fs_q <= 2'b00;
      mtvec_q <= 32'd0;
      mepc_q <= 32'd0;
      mcause_q <= 32'd0;
      mtval_q <= 32'd0;
      mscratch_q <= 32'd0;
      mie_reg_q <= 32'd0;
      fflags_q <= 5'd0;
      frm_q <= 3'd0;
      mcycle_q <= 64'd0;
      minstret_q <= 64'd0;
    end else begin
      // Accrued flags and the FS state they dirty (CSR writes below take precedence; a CSR
      // instruction issues only when no flags are in flight, so the two never meet).
      fflags_q <= fflags_acc;
      if (fflags_acc != fflags_q || fs_dirty_i) fs_q <= 2'b11;
      if (count_i) mcycle_q <= mcycle_q + 64'd1;
      if (instret_i) minstret_q <= minstret_q + 64'd1;

      if (csr_we) begin
        case (addr_i)
          12'h001: begin fflags_q <= wdata[4:0]; fs_q <= 2'b11; end
          12'h002: begin frm_q <= wdata[2:0]; fs_q <= 2'b11; end
          12'h003: begin fflags_q <= wdata[4:0]; frm_q <= wdata[7:5]; fs_q <= 2'b11; end
          12'h300: begin mie_q <= wdata[3]; mpie_q <= wdata[7]; fs_q <= wdata[14:13]; end
          12'h304: mie_reg_q <= wdata & MieMask;
          12'h305: mtvec_q <= {wdata[31:2], 2'b00};
          12'h340: mscratch_q <= wdata;
          12'h341: mepc_q <= {wdata[31:2], 2'b00};
          12'h342: mcause_q <= wdata;
          12'h343: mtval_q <= wdata;
          // The value written is what the next instruction reads.
          12'hB00: mcycle_q <= {mcycle_q[63:32], wdata};
          12'hB80: mcycle_q <= {wdata, mcycle_q[31:0]};
          12'hB02: minstret_q <= {minstret_q[63:32], wdata};
          12'hB82: minstret_q <= {wdata, minstret_q[31:0]};
          default: ;
        endcase
      end

      if (trap_i && !trap_halts_o) begin
        mepc_q <= trap_pc_i;
        mcause_q <= trap_cause_i;
        mtval_q <= trap_tval_i;
        mpie_q <= mie_q;
        mie_q <= 1'b0;
      end
      if (mret_i) begin
        mie_q <= mpie_q;
        mpie_q <= 1'b1;
      end
    end
  end

  // The first-trap latch: sticky until reset.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      latch_valid_o <= 1'b0;
      latch_cause_o <= 32'd0;
      latch_pc_o <= 32'd0;
      latch_tval_o <= 32'd0;
      latch_superstep_o <= 32'd0;
    end else if (trap_i && !latch_valid_o) begin
      latch_valid_o <= 1'b1;
      latch_cause_o <= trap_cause_i;
      latch_pc_o <= trap_pc_i;
      latch_tval_o <= trap_tval_i;
      latch_superstep_o <= superstep_i;
    end
  end
endmodule
