// The tile core: RV32IMF + Zicsr + Zifencei, machine mode, in order, single issue.
// Stages F (pc to SRAM port A), M (the word in the SRAM's read register), D (word out of
// the SRAM's output register, or out of the fetch's queue while E1 waits; decode), E1
// (issue), E2, E3, E4, W. Loads read SRAM port B in E1 and take its output register's word
// in E3 (docs/timing.md, path 2). A redirect decided in E1 reaches the fetch from a
// register, in E2 (path 3).
// Only the fetch (F, D and its queue) and E1 stall; E2..W always advance, so each unit's
// result arrives in a fixed stage and the cycles per instruction class equal
// arch/latency.toml (docs/tile-rtl.md).
module tess_core #(
  parameter int unsigned SramBytes = 65536,
  parameter int unsigned Aw = $clog2(SramBytes / 4)
) (
  input  logic          clk_i,
  input  logic          rst_ni,          // the core's reset (the tile holds it while run_i = 0)
  input  logic [31:0]   boot_pc_i,
  // Instruction fetch: SRAM port A
  output logic [Aw-1:0] imem_addr_o,
  input  logic [31:0]   imem_rdata_i,
  // Loads and stores: SRAM port B (gnt_i = 0 while an external access takes the port)
  output logic          dmem_req_o,
  output logic [3:0]    dmem_we_o,
  output logic [Aw-1:0] dmem_addr_o,
  output logic [31:0]   dmem_wdata_o,
  input  logic          dmem_gnt_i,
  input  logic [31:0]   dmem_rdata_i,
  // The tile register block
  output logic          rb_req_o,
  output logic          rb_we_o,
  output logic [10:0]   rb_offset_o,
  output logic [31:0]   rb_wdata_o,
  output logic          rb_commit_o,
  input  logic          rb_ready_i,
  input  logic          rb_fault_i,
  input  logic [31:0]   rb_rdata_i,
  input  logic          rb_timing_i,
  input  logic          rb_exit_i,       // this cycle's committed store wrote EXIT
  input  logic [31:0]   superstep_i,
  output logic [63:0]   mcycle_o,
  output logic          latch_valid_o,
  output logic [31:0]   latch_cause_o,
  output logic [31:0]   latch_pc_o,
  output logic [31:0]   latch_tval_o,
  output logic [31:0]   latch_superstep_o,
  // Halt
  output logic          halted_o,
  output logic          halt_exit_o,
  output logic [31:0]   halt_code_o,
  // Retire port (docs/tile-rtl.md)
  output logic          retire_valid_o,
  output logic [31:0]   retire_pc_o,
  output logic [31:0]   retire_insn_o,
  output logic          retire_trap_o,
  output logic [31:0]   retire_cause_o,
  output logic [31:0]   retire_tval_o,
  output logic          retire_halt_o,
  output logic          retire_rd_we_o,
  output logic          retire_rd_fp_o,
  output logic [4:0]    retire_rd_o,
  output logic [31:0]   retire_rd_wdata_o,
  output logic          retire_timing_o,
  output logic          retire_mem_re_o,
  output logic          retire_mem_we_o,
  output logic [31:0]   retire_mem_addr_o,
  output logic [3:0]    retire_mem_be_o,
  output logic [31:0]   retire_mem_wdata_o,
  output logic [31:0]   retire_mem_rdata_o,
  output logic [4:0]    retire_flags_o,
  output logic [63:0]   retire_cycle_o
);

  localparam logic [31:0] CauseMisalignedFetch = 32'd0, CauseFetchAccess = 32'd1,
                          CauseIllegal = 32'd2, CauseBreakpoint = 32'd3,
                          CauseMisalignedLoad = 32'd4, CauseLoadAccess = 32'd5,
                          CauseMisalignedStore = 32'd6, CauseStoreAccess = 32'd7,
                          CauseEcallM = 32'd11;

  function automatic logic in_sram(input logic [31:0] addr);
    in_sram = (addr - tess_arch_pkg::SRAM_BASE) < SramBytes;
  endfunction

  // ---- State ------------------------------------------------------------------------------
  logic        halted_q;
  logic        d_valid, d_fault;
  logic [31:0] d_pc;
  logic        e1_valid_q, e1_fault_q;
  logic [31:0] e1_pc_q, e1_insn_q;
  tess_core_pkg::dec_t        e1_dec_q;
  logic [5:0]  e1_cnt_q;                 // cycles spent issuing (multi-cycle classes)
  // An instruction in E2, E3, E4 or W, one signal per field and stage: its result is in
  // `res` once the instruction is older than `ready_age` cycles (the age of E2 is 1, of W 4);
  // units that finish after E1 write it on the way (`prod`: the stage whose output it is,
  // 1 = E1). A stage holds only the fields that it or a later stage reads: the issue logic
  // reads E2 to E4, the load lanes E3, the register files and the retire port W. (As one
  // packed struct the record was a 293-bit value that a simulator rebuilds field by field,
  // word by word, in every stage every cycle.)
  logic        e2_valid_q, e3_valid_q, e4_valid_q, w_valid_q;
  logic [31:0] e2_pc_q, e3_pc_q, e4_pc_q, w_pc_q;
  logic [31:0] e2_insn_q, e3_insn_q, e4_insn_q, w_insn_q;
  logic        e2_trap_q, e3_trap_q, e4_trap_q, w_trap_q;
  logic [31:0] e2_cause_q, e3_cause_q, e4_cause_q, w_cause_q;
  logic [31:0] e2_tval_q, e3_tval_q, e4_tval_q, w_tval_q;
  logic        e2_halt_q, e3_halt_q, e4_halt_q, w_halt_q;
  logic        e2_rd_en_q, e3_rd_en_q, e4_rd_en_q, w_rd_en_q;   // writes rd (never x0)
  logic        e2_rd_fp_q, e3_rd_fp_q, e4_rd_fp_q, w_rd_fp_q;
  logic [4:0]  e2_rd_q, e3_rd_q, e4_rd_q, w_rd_q;
  logic [31:0] e2_res_q, e3_res_q, e4_res_q, w_res_q;
  logic [2:0]  e2_prod_q, e3_prod_q, e4_prod_q;
  logic        e2_fpu_q, e3_fpu_q, e4_fpu_q;  // the F unit produces the result (else the load path or the multiplier)
  logic [5:0]  e2_ready_age_q, e3_ready_age_q, e4_ready_age_q;
  logic        e2_flags_late_q, e3_flags_late_q, e4_flags_late_q;
  logic [4:0]  e2_flags_q, e3_flags_q, e4_flags_q, w_flags_q;
  logic        e2_timing_q, e3_timing_q, e4_timing_q, w_timing_q;
  logic        e2_mem_re_q, e3_mem_re_q, e4_mem_re_q, w_mem_re_q;
  logic        e2_mem_we_q, e3_mem_we_q, e4_mem_we_q, w_mem_we_q;
  logic        e2_mem_rb_q, e3_mem_rb_q;
  logic [1:0]  e2_mem_size_q, e3_mem_size_q;
  logic        e2_mem_unsigned_q, e3_mem_unsigned_q;
  logic [31:0] e2_mem_addr_q, e3_mem_addr_q, e4_mem_addr_q, w_mem_addr_q;
  logic [3:0]  e2_mem_be_q, e3_mem_be_q, e4_mem_be_q, w_mem_be_q;
  logic [31:0] e2_mem_wdata_q, e3_mem_wdata_q, e4_mem_wdata_q, w_mem_wdata_q;
  logic [31:0] e2_mem_rdata_q, e3_mem_rdata_q, e4_mem_rdata_q, w_mem_rdata_q;

  // ---- E1: operands -----------------------------------------------------------------------
  logic [31:0] x_a, x_b, f_a, f_b, f_c;
  logic        w_x_we, w_f_we;
  assign w_x_we = w_valid_q && !w_trap_q && w_rd_en_q && !w_rd_fp_q;
  assign w_f_we = w_valid_q && !w_trap_q && w_rd_en_q && w_rd_fp_q;

  logic [4:0] rs1, rs2, rs3;
  assign rs1 = e1_insn_q[19:15];
  assign rs2 = e1_insn_q[24:20];
  assign rs3 = e1_insn_q[31:27];

  logic [31:0] x_c_unused;
  tess_regfile #(.ZeroReg(1'b1)) u_xregs (
    .clk_i, .rst_ni,
    .raddr_a_i(rs1), .raddr_b_i(rs2), .raddr_c_i(5'd0),
    .rdata_a_o(x_a), .rdata_b_o(x_b), .rdata_c_o(x_c_unused),
    .we_i(w_x_we), .waddr_i(w_rd_q), .wdata_i(w_res_q)
  );
  tess_regfile #(.ZeroReg(1'b0)) u_fregs (
    .clk_i, .rst_ni,
    .raddr_a_i(rs1), .raddr_b_i(rs2), .raddr_c_i(rs3),
    .rdata_a_o(f_a), .rdata_b_o(f_b), .rdata_c_o(f_c),
    .we_i(w_f_we), .waddr_i(w_rd_q), .wdata_i(w_res_q)
  );

  // Forwarding: the youngest in-flight writer of a source supplies it, once its result is
  // ready (age >= ready_age); before that the source is not ready and E1 waits. (Macros
  // over a stage's signals: `s` is its prefix, e2 ... e4.)
`define TESS_WRITES(s, fp, r) (s``_valid_q && !s``_trap_q && s``_rd_en_q && s``_rd_fp_q == (fp) && s``_rd_q == (r))
`define TESS_FLAGS_PENDING(s, age) (s``_valid_q && !s``_trap_q && s``_flags_late_q && s``_ready_age_q > (age))

  logic        src_stall;
  logic [31:0] op_a, op_b, op_c;

  always_comb begin : forward
    logic [31:0] a, b, c;
    logic        wait_a, wait_b, wait_c;
    a = e1_dec_q.rs1_fp ? f_a : x_a;
    b = e1_dec_q.rs2_fp ? f_b : x_b;
    c = f_c;
    {wait_a, wait_b, wait_c} = 3'b000;
    // Oldest first, so that younger writers override.
    if (`TESS_WRITES(e4, e1_dec_q.rs1_fp, rs1)) begin a = e4_res_q; wait_a = e4_ready_age_q > 6'd3; end
    if (`TESS_WRITES(e3, e1_dec_q.rs1_fp, rs1)) begin a = e3_res_q; wait_a = e3_ready_age_q > 6'd2; end
    if (`TESS_WRITES(e2, e1_dec_q.rs1_fp, rs1)) begin a = e2_res_q; wait_a = e2_ready_age_q > 6'd1; end
    if (`TESS_WRITES(e4, e1_dec_q.rs2_fp, rs2)) begin b = e4_res_q; wait_b = e4_ready_age_q > 6'd3; end
    if (`TESS_WRITES(e3, e1_dec_q.rs2_fp, rs2)) begin b = e3_res_q; wait_b = e3_ready_age_q > 6'd2; end
    if (`TESS_WRITES(e2, e1_dec_q.rs2_fp, rs2)) begin b = e2_res_q; wait_b = e2_ready_age_q > 6'd1; end
    if (`TESS_WRITES(e4, 1'b1, rs3)) begin c = e4_res_q; wait_c = e4_ready_age_q > 6'd3; end
    if (`TESS_WRITES(e3, 1'b1, rs3)) begin c = e3_res_q; wait_c = e3_ready_age_q > 6'd2; end
    if (`TESS_WRITES(e2, 1'b1, rs3)) begin c = e2_res_q; wait_c = e2_ready_age_q > 6'd1; end
    op_a = a;
    op_b = b;
    op_c = c;
    src_stall = (e1_dec_q.rs1_en && wait_a) || (e1_dec_q.rs2_en && wait_b) ||
                (e1_dec_q.rs3_en && wait_c);
  end

  // A CSR instruction waits for the FP flags still in flight (the fflags scoreboard slot).
  logic flags_stall;
  assign flags_stall = (e1_dec_q.csr_op != tess_core_pkg::CSR_NONE) &&
      (`TESS_FLAGS_PENDING(e2, 6'd1) || `TESS_FLAGS_PENDING(e3, 6'd2) ||
       `TESS_FLAGS_PENDING(e4, 6'd3));

  // ---- E1: execute ------------------------------------------------------------------------
  logic [31:0] alu_a, alu_b, alu_res;
  logic        br_taken;
  always_comb begin
    case (e1_dec_q.opa_sel)
      tess_core_pkg::OPA_PC: alu_a = e1_pc_q;
      tess_core_pkg::OPA_ZERO: alu_a = 32'd0;
      default: alu_a = op_a;
    endcase
    alu_b = e1_dec_q.opb_imm ? e1_dec_q.imm : op_b;
  end
  tess_alu u_alu (
    .op_i(e1_dec_q.alu_op), .a_i(alu_a), .b_i(alu_b), .result_o(alu_res),
    .br_funct3_i(e1_insn_q[14:12]), .br_taken_o(br_taken)
  );

  // CSRs
  logic [31:0] csr_rdata, mtvec, mepc;
  logic        csr_illegal, csr_timing, trap_halts, fs_on;
  logic [2:0]  frm;
  logic        csr_writes;
  logic [31:0] csr_src;
  assign csr_src = e1_dec_q.csr_imm ? {27'd0, rs1} : op_a;
  assign csr_writes = (e1_dec_q.csr_op == tess_core_pkg::CSR_WRITE) || (rs1 != 5'd0);

  // Rounding mode: the instruction's field, or frm when it says dynamic.
  logic [2:0] rm;
  assign rm = (e1_insn_q[14:12] == 3'b111) ? frm : e1_insn_q[14:12];

  // Memory address and its checks.
  logic [31:0] mem_addr;
  logic        mem_misaligned, mem_sram, mem_rb, mem_access;
  assign mem_addr = op_a + e1_dec_q.imm;
  assign mem_misaligned = (e1_dec_q.mem_size == tess_core_pkg::SZ_H && mem_addr[0]) ||
                          (e1_dec_q.mem_size == tess_core_pkg::SZ_W && mem_addr[1:0] != 2'b00);
  assign mem_sram = in_sram(mem_addr);
  assign mem_rb = mem_addr >= tess_arch_pkg::REGS_BASE && e1_dec_q.mem_size == tess_core_pkg::SZ_W;
  assign mem_access = e1_dec_q.load || e1_dec_q.store;

  // Next pc of jumps, branches and mret.
  logic [31:0] jump_target, pc_plus4;
  logic        jumps;
  assign pc_plus4 = e1_pc_q + 32'd4;
  always_comb begin
    jumps = 1'b0;
    jump_target = pc_plus4;
    if (e1_dec_q.jal) begin jumps = 1'b1; jump_target = e1_pc_q + e1_dec_q.imm; end
    else if (e1_dec_q.jalr) begin jumps = 1'b1; jump_target = (op_a + e1_dec_q.imm) & ~32'd1; end
    else if (e1_dec_q.branch && br_taken) begin jumps = 1'b1; jump_target = e1_pc_q + e1_dec_q.imm; end
    else if (e1_dec_q.mret) begin jumps = 1'b1; jump_target = mepc; end
  end

  // Traps, in the emulator's order of checks.
  logic        trap;
  logic [31:0] trap_cause, trap_tval;
  logic        illegal;
  assign illegal = e1_dec_q.illegal || (e1_dec_q.fp && !fs_on) ||
                   (e1_dec_q.uses_rm && rm > 3'd4) ||
                   ((e1_dec_q.csr_op != tess_core_pkg::CSR_NONE) && csr_illegal);
  always_comb begin
    trap = 1'b1;
    trap_cause = 32'd0;
    trap_tval = 32'd0;
    if (e1_fault_q) begin
      trap_cause = CauseFetchAccess; trap_tval = e1_pc_q;
    end else if (illegal) begin
      trap_cause = CauseIllegal;
      trap_tval = (e1_insn_q[1:0] == 2'b11) ? e1_insn_q : {16'd0, e1_insn_q[15:0]};
    end else if (e1_dec_q.ecall) begin
      trap_cause = CauseEcallM;
    end else if (e1_dec_q.ebreak) begin
      trap_cause = CauseBreakpoint; trap_tval = e1_pc_q;
    end else if (jumps && jump_target[1:0] != 2'b00) begin
      trap_cause = CauseMisalignedFetch; trap_tval = jump_target;
    end else if (mem_access && mem_misaligned) begin
      trap_cause = e1_dec_q.store ? CauseMisalignedStore : CauseMisalignedLoad; trap_tval = mem_addr;
    end else if (mem_access && !mem_sram && (!mem_rb || rb_fault_i)) begin
      trap_cause = e1_dec_q.store ? CauseStoreAccess : CauseLoadAccess; trap_tval = mem_addr;
    end else begin
      trap = 1'b0;
    end
  end

  // Issue: operands ready, then the class's issue cycles, the memory port, a blocking
  // register. A trap leaves at once. Nothing issues in the cycle a redirect reaches the
  // fetch: E1 then holds the instruction fetched behind the one that redirected.
  logic        redirect_q;   // the redirect decided in E1 last cycle, into the fetch now
  logic [31:0] redirect_pc_q;
  logic ready, multi, mem_wait, last_cycle, fire;
  assign ready = e1_valid_q && !halted_q && !redirect_q && !src_stall && !flags_stall;
  assign multi = (e1_dec_q.cls == tess_insn_pkg::CLS_DIV) || e1_dec_q.fpu_iter;
  assign last_cycle = !multi || (e1_cnt_q == e1_dec_q.lat_issue - 6'd1);
  assign mem_wait = mem_access && (mem_sram ? !dmem_gnt_i : !rb_ready_i);
  assign fire = ready && (trap || (last_cycle && !mem_wait));

  logic commit;  // leaves E1 and completes (no trap)
  assign commit = fire && !trap;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) e1_cnt_q <= 6'd0;
    else if (fire || !e1_valid_q) e1_cnt_q <= 6'd0;
    else if (ready && multi && !trap) e1_cnt_q <= e1_cnt_q + 6'd1;
  end
  logic unit_start;
  assign unit_start = ready && multi && !trap && e1_cnt_q == 6'd0;

  // Integer multiply and divide.
  logic [31:0] mul_res, div_res;
  tess_mul u_mul (
    .clk_i, .issue_i(commit && e1_dec_q.res_sel == tess_core_pkg::RES_MUL), .op_i(e1_insn_q[13:12]),
    .a_i(op_a), .b_i(op_b), .result_o(mul_res)
  );
  tess_div u_div (
    .clk_i, .rst_ni, .start_i(unit_start && e1_dec_q.cls == tess_insn_pkg::CLS_DIV), .op_i(e1_insn_q[13:12]),
    .a_i(op_a), .b_i(op_b), .result_o(div_res)
  );

  // The F unit.
  logic [31:0] fpu_res1, fpu_res2, fpu_res4, fpu_res_div;
  logic [4:0]  fpu_flags1, fpu_flags2, fpu_flags4, fpu_flags_div;
  logic        fpu_div_done;
  tess_fpu u_fpu (
    .clk_i, .rst_ni,
    .issue_i(commit && e1_dec_q.res_sel == tess_core_pkg::RES_FPU), .op_i(e1_dec_q.fpu_op), .rm_i(rm),
    .a_i(op_a), .b_i(op_b), .c_i(op_c),
    .res1_o(fpu_res1), .flags1_o(fpu_flags1), .res2_o(fpu_res2), .flags2_o(fpu_flags2),
    .res4_o(fpu_res4), .flags4_o(fpu_flags4),
    .div_start_i(unit_start && e1_dec_q.fpu_iter), .div_done_o(fpu_div_done),
    .res_div_o(fpu_res_div), .flags_div_o(fpu_flags_div)
  );

  // The E1 result and flags.
  logic [31:0] e1_res;
  logic [4:0]  e1_flags;
  always_comb begin
    e1_flags = 5'd0;
    case (e1_dec_q.res_sel)
      tess_core_pkg::RES_LINK: e1_res = pc_plus4;
      tess_core_pkg::RES_CSR: e1_res = csr_rdata;
      tess_core_pkg::RES_LOAD: e1_res = rb_rdata_i;    // a register-block load: its data now; SRAM data in E3
      tess_core_pkg::RES_DIV: e1_res = div_res;
      tess_core_pkg::RES_FPU: begin
        if (e1_dec_q.fpu_iter) begin e1_res = fpu_res_div; e1_flags = fpu_flags_div; end
        else begin e1_res = fpu_res1; e1_flags = fpu_flags1; end
      end
      default: e1_res = alu_res;
    endcase
  end

  // Where each class's result is produced: structural, and equal to the latency table
  // (checked below in simulation).
  logic [2:0] prod;
  always_comb begin
    case (e1_dec_q.cls)
      tess_insn_pkg::CLS_FCVT: prod = 3'd2;
      tess_insn_pkg::CLS_LOAD: prod = 3'd3;
      tess_insn_pkg::CLS_FADD, tess_insn_pkg::CLS_FMUL, tess_insn_pkg::CLS_FMA,
      tess_insn_pkg::CLS_MUL: prod = 3'd4;
      default: prod = 3'd1;
    endcase
  end
  logic [5:0] ready_age;
  // A class that holds the issue slot for several cycles has its result that much sooner
  // after it leaves E1.
  assign ready_age = (e1_dec_q.lat_result >= e1_dec_q.lat_issue) ?
                     e1_dec_q.lat_result - e1_dec_q.lat_issue + 6'd1 : 6'd1;
`ifndef SYNTHESIS
  initial begin
    if ($bits(tess_core_pkg::dec_t) != tess_core_pkg::DecW)
      $fatal(1, "tess_core_pkg::DecW is %0d, dec_t has %0d bits", tess_core_pkg::DecW,
             $bits(tess_core_pkg::dec_t));
  end
  always_ff @(posedge clk_i) begin
    // (Gated by reset: with random initial state the core's reset may start low, and the
    // flops take their reset values only at the first clock edge.)
    if (rst_ni && e1_valid_q && {3'd0, prod} != ready_age && e1_dec_q.cls != tess_insn_pkg::CLS_FENCEI &&
        !e1_dec_q.illegal && !e1_fault_q)
      $error("tess_core: class %0d produces in E%0d but arch/latency.toml says %0d",
             e1_dec_q.cls, prod, ready_age);
    if (rst_ni && commit && e1_dec_q.fpu_iter && !fpu_div_done)
      $error("tess_core: fdiv/fsqrt left E1 before the FPU was done (latency table vs tess_fpu)");
  end
`endif

  // ---- CSR file -----------------------------------------------------------------------------
  logic [4:0] accrue;
  logic       trap_taken;
  assign trap_taken = fire && trap;
  tess_csr u_csr (
    .clk_i, .rst_ni, .count_i(!halted_o),  // until the last instruction has retired
    .addr_i(e1_insn_q[31:20]), .op_i(e1_dec_q.csr_op), .writes_i(csr_writes), .src_i(csr_src),
    .commit_i(commit), .rdata_o(csr_rdata), .illegal_o(csr_illegal), .timing_o(csr_timing),
    .trap_i(trap_taken), .trap_cause_i(trap_cause), .trap_pc_i(e1_pc_q), .trap_tval_i(trap_tval),
    .trap_halts_o(trap_halts), .mret_i(commit && e1_dec_q.mret), .mtvec_o(mtvec), .mepc_o(mepc),
    .fs_on_o(fs_on), .frm_o(frm), .flags_i(accrue),
    .fs_dirty_i(commit && e1_dec_q.rd_en && e1_dec_q.rd_fp),
    .instret_i(commit), .mcycle_o(mcycle_o), .superstep_i(superstep_i),
    .latch_valid_o, .latch_cause_o, .latch_pc_o, .latch_tval_o, .latch_superstep_o
  );

  // ---- Memory requests from E1 ---------------------------------------------------------------
  logic [3:0]  st_be;
  logic [31:0] st_data;
  always_comb begin
    case (e1_dec_q.mem_size)
      tess_core_pkg::SZ_B: begin st_be = 4'b0001 << mem_addr[1:0]; st_data = {4{op_b[7:0]}}; end
      tess_core_pkg::SZ_H: begin st_be = mem_addr[1] ? 4'b1100 : 4'b0011; st_data = {2{op_b[15:0]}}; end
      default: begin st_be = 4'b1111; st_data = op_b; end
    endcase
  end
  logic mem_go;  // the access may go out this cycle (no trap, operands ready, last cycle)
  assign mem_go = ready && !trap && mem_access;
  assign dmem_req_o = mem_go && mem_sram;
  assign dmem_we_o = (e1_dec_q.store && commit && mem_sram) ? st_be : 4'b0000;
  assign dmem_addr_o = mem_addr[Aw+1:2];
  assign dmem_wdata_o = st_data;
  // Presented before the trap decision (which depends on rb_fault_i); acts only on commit.
  assign rb_req_o = e1_valid_q && mem_access && mem_rb && !mem_sram && !mem_misaligned;
  assign rb_we_o = e1_dec_q.store;
  assign rb_offset_o = mem_addr[10:0];
  assign rb_wdata_o = op_b;
  assign rb_commit_o = commit;

  // ---- Redirects, halt ---------------------------------------------------------------------
  // A redirect (taken branch or jump, mret, fence.i, trap) is decided in E1 and registered:
  // the fetch takes it from redirect_q and redirect_pc_q in the next cycle, when the
  // instruction is in E2 (docs/timing.md, path 3). So the forwarding multiplexer, the adder
  // and the branch compare end at these flops: the fetch pc's new value and the flush of the
  // fetch's queue come from flops (E1's issue decision still moves the queue, path 1); the
  // cost is one more refetch cycle (arch/latency.toml, taken_penalty 4).
  logic        redirect;
  logic [31:0] redirect_pc;
  logic        halt_now;
  always_comb begin
    redirect = 1'b0;
    redirect_pc = mtvec;
    halt_now = 1'b0;
    if (trap_taken) begin
      if (trap_halts) halt_now = 1'b1;
      else redirect = 1'b1;
    end else if (commit) begin
      if (e1_dec_q.fencei) begin redirect = 1'b1; redirect_pc = pc_plus4; end
      else if (jumps && jump_target != pc_plus4) begin redirect = 1'b1; redirect_pc = jump_target; end
      if (e1_dec_q.store && rb_exit_i) halt_now = 1'b1;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) redirect_q <= 1'b0;
    else redirect_q <= redirect;
  end
  always_ff @(posedge clk_i) redirect_pc_q <= redirect_pc;  // read only with redirect_q

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      halted_q <= 1'b0;
      halt_exit_o <= 1'b0;
      halt_code_o <= 32'd0;
    end else if (halt_now && !halted_q) begin
      halted_q <= 1'b1;
      halt_exit_o <= !trap_taken;
      halt_code_o <= trap_taken ? trap_cause : rb_wdata_o;
    end
  end

  // ---- F and D ---------------------------------------------------------------------------
  logic e1_free;   // E1 takes a new instruction at the end of this cycle
  assign e1_free = !e1_valid_q || fire;
  tess_core_pkg::dec_t d_dec;
  logic [31:0] d_word;  // D's word: port A's output, or the fetch's holding register
  tess_decode u_decode (.insn_i(d_word), .dec_o(d_dec));

  logic stop;      // nothing younger may enter E1
  assign stop = halted_q || halt_now;
  tess_fetch #(.SramBytes(SramBytes)) u_fetch (
    .clk_i, .rst_ni, .boot_pc_i, .stop_i(stop), .redirect_i(redirect_q), .redirect_pc_i(redirect_pc_q),
    .e1_free_i(e1_free), .imem_addr_o, .imem_rdata_i, .d_valid_o(d_valid), .d_pc_o(d_pc),
    .d_word_o(d_word), .d_fault_o(d_fault)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      e1_valid_q <= 1'b0;
      e1_fault_q <= 1'b0;
      e1_pc_q <= 32'd0;
      e1_insn_q <= 32'd0;
      e1_dec_q <= '0;
    end else if (stop || redirect_q) begin
      e1_valid_q <= 1'b0;
    end else if (e1_free) begin
      e1_valid_q <= d_valid;
      e1_fault_q <= d_fault;
      e1_pc_q <= d_pc;
      e1_insn_q <= d_fault ? 32'd0 : d_word;
      e1_dec_q <= d_fault ? '0 : d_dec;  // a fetch fault has no operands
    end
  end

  // ---- E2..W ----------------------------------------------------------------------------------
  // What enters E2: the memory access's fields are zero for an instruction without one, or
  // that traps.
  logic        e2_rd_en_d, e2_flags_late_d, e2_timing_d, e2_mem_re_d, e2_mem_we_d, e2_mem_on;
  logic [4:0]  e2_flags_d;
  logic [31:0] e2_mem_addr_d, e2_mem_wdata_d, e2_mem_rdata_d;
  logic [3:0]  e2_mem_be_d;
  assign e2_rd_en_d = e1_dec_q.rd_en && !trap;
  assign e2_flags_late_d = e1_dec_q.flags_late && !trap;
  assign e2_flags_d = (trap || prod != 3'd1) ? 5'd0 : e1_flags;
  assign e2_timing_d = (e1_dec_q.csr_op != tess_core_pkg::CSR_NONE && csr_timing) || (e1_dec_q.load && mem_rb && rb_timing_i);
  assign e2_mem_re_d = e1_dec_q.load && !trap;
  assign e2_mem_we_d = e1_dec_q.store && !trap;
  assign e2_mem_on = (e1_dec_q.load || e1_dec_q.store) && !trap;
  assign e2_mem_addr_d = e2_mem_on ? mem_addr : 32'd0;
  assign e2_mem_be_d = !e2_mem_on ? 4'd0 : e1_dec_q.store ? st_be : 4'b1111;
  assign e2_mem_wdata_d = e2_mem_on ? st_data & {{8{st_be[3]}}, {8{st_be[2]}}, {8{st_be[1]}}, {8{st_be[0]}}} : 32'd0;
  assign e2_mem_rdata_d = e2_mem_on ? rb_rdata_i : 32'd0;

  // Load data in E3: the word from SRAM port B's output register (read in E1, two cycles
  // ago), or the register block's (captured in E1), then the lanes. The SRAM's output is a
  // flop, so this path is the lane shift and sign extension into E4 alone.
  logic [31:0] load_word, load_val;
  assign load_word = e3_mem_rb_q ? e3_mem_rdata_q : dmem_rdata_i;
  always_comb begin : load_lanes
    logic [31:0] sh;
    sh = load_word >> {e3_mem_addr_q[1:0], 3'b000};
    case (e3_mem_size_q)
      tess_core_pkg::SZ_B: load_val = e3_mem_unsigned_q ? {24'd0, sh[7:0]} : {{24{sh[7]}}, sh[7:0]};
      tess_core_pkg::SZ_H: load_val = e3_mem_unsigned_q ? {16'd0, sh[15:0]} : {{16{sh[15]}}, sh[15:0]};
      default: load_val = load_word;
    endcase
  end

  // Results are produced in E1, E2 (fcvt), E3 (loads) or E4 (the FMA pipeline: fadd, fmul,
  // fma; the multiplier); every other field moves on unchanged.
  logic        e3_fcvt, e4_load, w_late;
  logic [31:0] e3_res_d, e4_res_d, e4_mem_rdata_d, w_res_d;
  logic [4:0]  e3_flags_d, w_flags_d;
  assign e3_fcvt = e2_valid_q && !e2_trap_q && e2_prod_q == 3'd2;
  assign e3_res_d = e3_fcvt ? fpu_res2 : e2_res_q;
  assign e3_flags_d = e3_fcvt ? fpu_flags2 : e2_flags_q;
  assign e4_load = e3_valid_q && !e3_trap_q && e3_prod_q == 3'd3;
  assign e4_res_d = e4_load ? load_val : e3_res_q;
  assign e4_mem_rdata_d = e4_load ? load_word : e3_mem_rdata_q;
  assign w_late = e4_valid_q && !e4_trap_q && e4_prod_q == 3'd4;
  assign w_res_d = !w_late ? e4_res_q : e4_fpu_q ? fpu_res4 : mul_res;
  assign w_flags_d = (w_late && e4_fpu_q) ? fpu_flags4 : e4_flags_q;

  // Flags accrue in the stage that produces them.
  assign accrue = (commit ? e2_flags_d : 5'd0) | e3_flags_d & {5{e2_prod_q == 3'd2 && e2_valid_q}} |
                  w_flags_d & {5{e4_prod_q == 3'd4 && e4_valid_q}};

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      {e2_valid_q, e3_valid_q, e4_valid_q, w_valid_q} <= '0;
      {e2_pc_q, e3_pc_q, e4_pc_q, w_pc_q} <= '0;
      {e2_insn_q, e3_insn_q, e4_insn_q, w_insn_q} <= '0;
      {e2_trap_q, e3_trap_q, e4_trap_q, w_trap_q} <= '0;
      {e2_cause_q, e3_cause_q, e4_cause_q, w_cause_q} <= '0;
      {e2_tval_q, e3_tval_q, e4_tval_q, w_tval_q} <= '0;
      {e2_halt_q, e3_halt_q, e4_halt_q, w_halt_q} <= '0;
      {e2_rd_en_q, e3_rd_en_q, e4_rd_en_q, w_rd_en_q} <= '0;
      {e2_rd_fp_q, e3_rd_fp_q, e4_rd_fp_q, w_rd_fp_q} <= '0;
      {e2_rd_q, e3_rd_q, e4_rd_q, w_rd_q} <= '0;
      {e2_res_q, e3_res_q, e4_res_q, w_res_q} <= '0;
      {e2_prod_q, e3_prod_q, e4_prod_q} <= '0;
      {e2_fpu_q, e3_fpu_q, e4_fpu_q} <= '0;
      {e2_ready_age_q, e3_ready_age_q, e4_ready_age_q} <= '0;
      {e2_flags_late_q, e3_flags_late_q, e4_flags_late_q} <= '0;
      {e2_flags_q, e3_flags_q, e4_flags_q, w_flags_q} <= '0;
      {e2_timing_q, e3_timing_q, e4_timing_q, w_timing_q} <= '0;
      {e2_mem_re_q, e3_mem_re_q, e4_mem_re_q, w_mem_re_q} <= '0;
      {e2_mem_we_q, e3_mem_we_q, e4_mem_we_q, w_mem_we_q} <= '0;
      {e2_mem_rb_q, e3_mem_rb_q} <= '0;
      {e2_mem_size_q, e3_mem_size_q} <= '0;
      {e2_mem_unsigned_q, e3_mem_unsigned_q} <= '0;
      {e2_mem_addr_q, e3_mem_addr_q, e4_mem_addr_q, w_mem_addr_q} <= '0;
      {e2_mem_be_q, e3_mem_be_q, e4_mem_be_q, w_mem_be_q} <= '0;
      {e2_mem_wdata_q, e3_mem_wdata_q, e4_mem_wdata_q, w_mem_wdata_q} <= '0;
      {e2_mem_rdata_q, e3_mem_rdata_q, e4_mem_rdata_q, w_mem_rdata_q} <= '0;
    end else begin
      e2_valid_q <= fire;
      e2_pc_q <= e1_pc_q;
      e2_insn_q <= e1_insn_q;
      e2_trap_q <= trap;
      e2_cause_q <= trap_cause;
      e2_tval_q <= trap_tval;
      e2_halt_q <= halt_now;
      e2_rd_en_q <= e2_rd_en_d;
      e2_rd_fp_q <= e1_dec_q.rd_fp;
      e2_rd_q <= e1_insn_q[11:7];
      e2_res_q <= e1_res;
      e2_prod_q <= prod;
      e2_fpu_q <= e1_dec_q.res_sel == tess_core_pkg::RES_FPU;
      e2_ready_age_q <= ready_age;
      e2_flags_late_q <= e2_flags_late_d;
      e2_flags_q <= e2_flags_d;
      e2_timing_q <= e2_timing_d;
      e2_mem_re_q <= e2_mem_re_d;
      e2_mem_we_q <= e2_mem_we_d;
      e2_mem_rb_q <= !mem_sram;
      e2_mem_size_q <= e1_dec_q.mem_size;
      e2_mem_unsigned_q <= e1_dec_q.mem_unsigned;
      e2_mem_addr_q <= e2_mem_addr_d;
      e2_mem_be_q <= e2_mem_be_d;
      e2_mem_wdata_q <= e2_mem_wdata_d;
      e2_mem_rdata_q <= e2_mem_rdata_d;

      e3_valid_q <= e2_valid_q;
      e3_pc_q <= e2_pc_q;
      e3_insn_q <= e2_insn_q;
      e3_trap_q <= e2_trap_q;
      e3_cause_q <= e2_cause_q;
      e3_tval_q <= e2_tval_q;
      e3_halt_q <= e2_halt_q;
      e3_rd_en_q <= e2_rd_en_q;
      e3_rd_fp_q <= e2_rd_fp_q;
      e3_rd_q <= e2_rd_q;
      e3_res_q <= e3_res_d;
      e3_prod_q <= e2_prod_q;
      e3_fpu_q <= e2_fpu_q;
      e3_ready_age_q <= e2_ready_age_q;
      e3_flags_late_q <= e2_flags_late_q;
      e3_flags_q <= e3_flags_d;
      e3_timing_q <= e2_timing_q;
      e3_mem_re_q <= e2_mem_re_q;
      e3_mem_we_q <= e2_mem_we_q;
      e3_mem_rb_q <= e2_mem_rb_q;
      e3_mem_size_q <= e2_mem_size_q;
      e3_mem_unsigned_q <= e2_mem_unsigned_q;
      e3_mem_addr_q <= e2_mem_addr_q;
      e3_mem_be_q <= e2_mem_be_q;
      e3_mem_wdata_q <= e2_mem_wdata_q;
      e3_mem_rdata_q <= e2_mem_rdata_q;

      e4_valid_q <= e3_valid_q;
      e4_pc_q <= e3_pc_q;
      e4_insn_q <= e3_insn_q;
      e4_trap_q <= e3_trap_q;
      e4_cause_q <= e3_cause_q;
      e4_tval_q <= e3_tval_q;
      e4_halt_q <= e3_halt_q;
      e4_rd_en_q <= e3_rd_en_q;
      e4_rd_fp_q <= e3_rd_fp_q;
      e4_rd_q <= e3_rd_q;
      e4_res_q <= e4_res_d;
      e4_prod_q <= e3_prod_q;
      e4_fpu_q <= e3_fpu_q;
      e4_ready_age_q <= e3_ready_age_q;
      e4_flags_late_q <= e3_flags_late_q;
      e4_flags_q <= e3_flags_q;
      e4_timing_q <= e3_timing_q;
      e4_mem_re_q <= e3_mem_re_q;
      e4_mem_we_q <= e3_mem_we_q;
      e4_mem_addr_q <= e3_mem_addr_q;
      e4_mem_be_q <= e3_mem_be_q;
      e4_mem_wdata_q <= e3_mem_wdata_q;
      e4_mem_rdata_q <= e4_mem_rdata_d;

      w_valid_q <= e4_valid_q;
      w_pc_q <= e4_pc_q;
      w_insn_q <= e4_insn_q;
      w_trap_q <= e4_trap_q;
      w_cause_q <= e4_cause_q;
      w_tval_q <= e4_tval_q;
      w_halt_q <= e4_halt_q;
      w_rd_en_q <= e4_rd_en_q;
      w_rd_fp_q <= e4_rd_fp_q;
      w_rd_q <= e4_rd_q;
      w_res_q <= w_res_d;
      w_flags_q <= w_flags_d;
      w_timing_q <= e4_timing_q;
      w_mem_re_q <= e4_mem_re_q;
      w_mem_we_q <= e4_mem_we_q;
      w_mem_addr_q <= e4_mem_addr_q;
      w_mem_be_q <= e4_mem_be_q;
      w_mem_wdata_q <= e4_mem_wdata_q;
      w_mem_rdata_q <= e4_mem_rdata_q;
    end
  end

  // ---- Retire -----------------------------------------------------------------------------
  // The lock-step harnesses' port: nothing on the FPGA reads it. Tied off in synthesis, so
  // the fields that ride the pipeline only to be retired (the instruction word, the memory
  // access's address and data, the flags) leave no flops, even when a tile is synthesized
  // alone (scripts/area).
`ifdef SYNTHESIS
  assign {retire_valid_o, retire_pc_o, retire_insn_o, retire_trap_o, retire_cause_o, retire_tval_o, retire_halt_o,
          retire_rd_we_o, retire_rd_fp_o, retire_rd_o, retire_rd_wdata_o, retire_timing_o, retire_mem_re_o,
          retire_mem_we_o, retire_mem_addr_o, retire_mem_be_o, retire_mem_wdata_o, retire_mem_rdata_o, retire_flags_o,
          retire_cycle_o} = '0;
`else
  assign retire_valid_o = w_valid_q;
  assign retire_pc_o = w_pc_q;
  assign retire_insn_o = w_insn_q;
  assign retire_trap_o = w_trap_q;
  assign retire_cause_o = w_cause_q;
  assign retire_tval_o = w_tval_q;
  assign retire_halt_o = w_halt_q;
  assign retire_rd_we_o = w_valid_q && !w_trap_q && w_rd_en_q;
  assign retire_rd_fp_o = w_rd_fp_q;
  assign retire_rd_o = w_rd_q;
  assign retire_rd_wdata_o = w_res_q;
  assign retire_timing_o = w_timing_q;
  assign retire_mem_re_o = w_mem_re_q;
  assign retire_mem_we_o = w_mem_we_q;
  assign retire_mem_addr_o = w_mem_addr_q;
  assign retire_mem_be_o = w_mem_be_q;
  assign retire_mem_wdata_o = w_mem_wdata_q;
  assign retire_mem_rdata_o = w_mem_rdata_q;
  assign retire_flags_o = w_flags_q;
  assign retire_cycle_o = mcycle_o;
`endif

  assign halted_o = halted_q && !e2_valid_q && !e3_valid_q && !e4_valid_q && !w_valid_q;
`undef TESS_WRITES
`undef TESS_FLAGS_PENDING
endmodule
