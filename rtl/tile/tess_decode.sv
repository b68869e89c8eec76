// Instruction word -> control fields. Which words are instructions, and their latency
// class, come from the emulator's table (tess_insn_pkg, rendered from insns.def); this
// module only says what each instruction does with the pipeline.
module tess_decode (
  input  logic [31:0]            insn_i,
  output logic [tess_core_pkg::DecW-1:0] dec_o   // a tess_core_pkg::dec_t
);

  logic [31:0] imm_i, imm_s, imm_b, imm_u, imm_j;
  assign imm_i = {{20{insn_i[31]}}, insn_i[31:20]};
  assign imm_s = {{20{insn_i[31]}}, insn_i[31:25], insn_i[11:7]};
  assign imm_b = {{19{insn_i[31]}}, insn_i[31], insn_i[7], insn_i[30:25], insn_i[11:8], 1'b0};
  assign imm_u = {insn_i[31:12], 12'd0};
  assign imm_j = {{11{insn_i[31]}}, insn_i[31], insn_i[19:12], insn_i[20], insn_i[30:21], 1'b0};

  tess_insn_pkg::insn_e       op;
  tess_insn_pkg::insn_class_e cls;
  assign op = tess_insn_pkg::insn_match(insn_i);
  assign cls = tess_insn_pkg::insn_class(op);

  tess_core_pkg::dec_t d;
  always_comb begin
    d = '0;
    d.op = op;
    d.cls = cls;
    d.lat_issue = tess_insn_pkg::class_issue(cls);
    d.lat_result = tess_insn_pkg::class_result(cls);
    d.illegal = (op == tess_insn_pkg::I_ILLEGAL);
    d.alu_op = tess_core_pkg::ALU_ADD;
    d.opa_sel = tess_core_pkg::OPA_RS1;
    d.res_sel = tess_core_pkg::RES_ALU;
    d.mem_size = insn_i[13:12];
    d.mem_unsigned = insn_i[14];
    d.fpu_op = tess_fpu_pkg::FPU_ADD;
    d.csr_op = tess_core_pkg::CSR_NONE;

    // Operand shapes.
    case (op)
      tess_insn_pkg::I_LUI: begin d.rd_en = 1'b1; d.opa_sel = tess_core_pkg::OPA_ZERO; d.opb_imm = 1'b1; d.imm = imm_u; end
      tess_insn_pkg::I_AUIPC: begin d.rd_en = 1'b1; d.opa_sel = tess_core_pkg::OPA_PC; d.opb_imm = 1'b1; d.imm = imm_u; end
      tess_insn_pkg::I_JAL: begin d.rd_en = 1'b1; d.jal = 1'b1; d.imm = imm_j; d.res_sel = tess_core_pkg::RES_LINK; end
      tess_insn_pkg::I_JALR: begin d.rd_en = 1'b1; d.rs1_en = 1'b1; d.jalr = 1'b1; d.imm = imm_i; d.res_sel = tess_core_pkg::RES_LINK; end
      tess_insn_pkg::I_BEQ, tess_insn_pkg::I_BNE, tess_insn_pkg::I_BLT, tess_insn_pkg::I_BGE, tess_insn_pkg::I_BLTU, tess_insn_pkg::I_BGEU: begin
        d.rs1_en = 1'b1; d.rs2_en = 1'b1; d.branch = 1'b1; d.imm = imm_b;
      end
      tess_insn_pkg::I_LB, tess_insn_pkg::I_LH, tess_insn_pkg::I_LW, tess_insn_pkg::I_LBU, tess_insn_pkg::I_LHU: begin
        d.rd_en = 1'b1; d.rs1_en = 1'b1; d.load = 1'b1; d.imm = imm_i; d.res_sel = tess_core_pkg::RES_LOAD;
      end
      tess_insn_pkg::I_FLW: begin
        d.rd_en = 1'b1; d.rd_fp = 1'b1; d.rs1_en = 1'b1; d.load = 1'b1; d.imm = imm_i;
        d.res_sel = tess_core_pkg::RES_LOAD; d.fp = 1'b1;
      end
      tess_insn_pkg::I_SB, tess_insn_pkg::I_SH, tess_insn_pkg::I_SW: begin d.rs1_en = 1'b1; d.rs2_en = 1'b1; d.store = 1'b1; d.imm = imm_s; end
      tess_insn_pkg::I_FSW: begin
        d.rs1_en = 1'b1; d.rs2_en = 1'b1; d.rs2_fp = 1'b1; d.store = 1'b1; d.imm = imm_s; d.fp = 1'b1;
      end
      tess_insn_pkg::I_ADDI, tess_insn_pkg::I_SLTI, tess_insn_pkg::I_SLTIU, tess_insn_pkg::I_XORI, tess_insn_pkg::I_ORI, tess_insn_pkg::I_ANDI: begin
        d.rd_en = 1'b1; d.rs1_en = 1'b1; d.opb_imm = 1'b1; d.imm = imm_i;
      end
      tess_insn_pkg::I_SLLI, tess_insn_pkg::I_SRLI, tess_insn_pkg::I_SRAI: begin
        d.rd_en = 1'b1; d.rs1_en = 1'b1; d.opb_imm = 1'b1; d.imm = {27'd0, insn_i[24:20]};
      end
      tess_insn_pkg::I_ADD, tess_insn_pkg::I_SUB, tess_insn_pkg::I_SLL, tess_insn_pkg::I_SLT, tess_insn_pkg::I_SLTU, tess_insn_pkg::I_XOR, tess_insn_pkg::I_SRL, tess_insn_pkg::I_SRA, tess_insn_pkg::I_OR, tess_insn_pkg::I_AND: begin
        d.rd_en = 1'b1; d.rs1_en = 1'b1; d.rs2_en = 1'b1;
      end
      tess_insn_pkg::I_MUL, tess_insn_pkg::I_MULH, tess_insn_pkg::I_MULHSU, tess_insn_pkg::I_MULHU: begin
        d.rd_en = 1'b1; d.rs1_en = 1'b1; d.rs2_en = 1'b1; d.res_sel = tess_core_pkg::RES_MUL;
      end
      tess_insn_pkg::I_DIV, tess_insn_pkg::I_DIVU, tess_insn_pkg::I_REM, tess_insn_pkg::I_REMU: begin
        d.rd_en = 1'b1; d.rs1_en = 1'b1; d.rs2_en = 1'b1; d.res_sel = tess_core_pkg::RES_DIV;
      end
      tess_insn_pkg::I_CSRRW, tess_insn_pkg::I_CSRRS, tess_insn_pkg::I_CSRRC: begin
        d.rd_en = 1'b1; d.rs1_en = 1'b1; d.res_sel = tess_core_pkg::RES_CSR; d.imm = {20'd0, insn_i[31:20]};
      end
      tess_insn_pkg::I_CSRRWI, tess_insn_pkg::I_CSRRSI, tess_insn_pkg::I_CSRRCI: begin
        d.rd_en = 1'b1; d.csr_imm = 1'b1; d.res_sel = tess_core_pkg::RES_CSR; d.imm = {20'd0, insn_i[31:20]};
      end
      tess_insn_pkg::I_ECALL: d.ecall = 1'b1;
      tess_insn_pkg::I_EBREAK: d.ebreak = 1'b1;
      tess_insn_pkg::I_MRET: d.mret = 1'b1;
      tess_insn_pkg::I_FENCE_I: d.fencei = 1'b1;
      // The F extension: fd/rd, sources from the f or x file.
      tess_insn_pkg::I_FMADD_S, tess_insn_pkg::I_FMSUB_S, tess_insn_pkg::I_FNMSUB_S, tess_insn_pkg::I_FNMADD_S: begin
        d.rd_en = 1'b1; d.rd_fp = 1'b1; d.rs1_en = 1'b1; d.rs1_fp = 1'b1; d.rs2_en = 1'b1;
        d.rs2_fp = 1'b1; d.rs3_en = 1'b1; d.uses_rm = 1'b1;
      end
      tess_insn_pkg::I_FADD_S, tess_insn_pkg::I_FSUB_S, tess_insn_pkg::I_FMUL_S, tess_insn_pkg::I_FDIV_S: begin
        d.rd_en = 1'b1; d.rd_fp = 1'b1; d.rs1_en = 1'b1; d.rs1_fp = 1'b1; d.rs2_en = 1'b1;
        d.rs2_fp = 1'b1; d.uses_rm = 1'b1;
      end
      tess_insn_pkg::I_FSQRT_S: begin d.rd_en = 1'b1; d.rd_fp = 1'b1; d.rs1_en = 1'b1; d.rs1_fp = 1'b1; d.uses_rm = 1'b1; end
      tess_insn_pkg::I_FSGNJ_S, tess_insn_pkg::I_FSGNJN_S, tess_insn_pkg::I_FSGNJX_S, tess_insn_pkg::I_FMIN_S, tess_insn_pkg::I_FMAX_S: begin
        d.rd_en = 1'b1; d.rd_fp = 1'b1; d.rs1_en = 1'b1; d.rs1_fp = 1'b1; d.rs2_en = 1'b1; d.rs2_fp = 1'b1;
      end
      tess_insn_pkg::I_FEQ_S, tess_insn_pkg::I_FLT_S, tess_insn_pkg::I_FLE_S: begin
        d.rd_en = 1'b1; d.rs1_en = 1'b1; d.rs1_fp = 1'b1; d.rs2_en = 1'b1; d.rs2_fp = 1'b1;
      end
      tess_insn_pkg::I_FCVT_W_S, tess_insn_pkg::I_FCVT_WU_S: begin d.rd_en = 1'b1; d.rs1_en = 1'b1; d.rs1_fp = 1'b1; d.uses_rm = 1'b1; end
      tess_insn_pkg::I_FMV_X_W, tess_insn_pkg::I_FCLASS_S: begin d.rd_en = 1'b1; d.rs1_en = 1'b1; d.rs1_fp = 1'b1; end
      tess_insn_pkg::I_FCVT_S_W, tess_insn_pkg::I_FCVT_S_WU: begin d.rd_en = 1'b1; d.rd_fp = 1'b1; d.rs1_en = 1'b1; d.uses_rm = 1'b1; end
      tess_insn_pkg::I_FMV_W_X: begin d.rd_en = 1'b1; d.rd_fp = 1'b1; d.rs1_en = 1'b1; end
      default: ;  // fence, fence.tso, wfi: no operands; illegal words: nothing
    endcase

    // ALU operations.
    case (op)
      tess_insn_pkg::I_SUB: d.alu_op = tess_core_pkg::ALU_SUB;
      tess_insn_pkg::I_SLL, tess_insn_pkg::I_SLLI: d.alu_op = tess_core_pkg::ALU_SLL;
      tess_insn_pkg::I_SLT, tess_insn_pkg::I_SLTI: d.alu_op = tess_core_pkg::ALU_SLT;
      tess_insn_pkg::I_SLTU, tess_insn_pkg::I_SLTIU: d.alu_op = tess_core_pkg::ALU_SLTU;
      tess_insn_pkg::I_XOR, tess_insn_pkg::I_XORI: d.alu_op = tess_core_pkg::ALU_XOR;
      tess_insn_pkg::I_SRL, tess_insn_pkg::I_SRLI: d.alu_op = tess_core_pkg::ALU_SRL;
      tess_insn_pkg::I_SRA, tess_insn_pkg::I_SRAI: d.alu_op = tess_core_pkg::ALU_SRA;
      tess_insn_pkg::I_OR, tess_insn_pkg::I_ORI: d.alu_op = tess_core_pkg::ALU_OR;
      tess_insn_pkg::I_AND, tess_insn_pkg::I_ANDI: d.alu_op = tess_core_pkg::ALU_AND;
      default: d.alu_op = tess_core_pkg::ALU_ADD;
    endcase

    // CSR operations.
    case (op)
      tess_insn_pkg::I_CSRRW, tess_insn_pkg::I_CSRRWI: d.csr_op = tess_core_pkg::CSR_WRITE;
      tess_insn_pkg::I_CSRRS, tess_insn_pkg::I_CSRRSI: d.csr_op = tess_core_pkg::CSR_SET;
      tess_insn_pkg::I_CSRRC, tess_insn_pkg::I_CSRRCI: d.csr_op = tess_core_pkg::CSR_CLEAR;
      default: d.csr_op = tess_core_pkg::CSR_NONE;
    endcase

    // FPU operations.
    d.fp = d.fp || (d.cls == tess_insn_pkg::CLS_FMA) || (d.cls == tess_insn_pkg::CLS_FADD) || (d.cls == tess_insn_pkg::CLS_FMUL) ||
           (d.cls == tess_insn_pkg::CLS_FDIV) || (d.cls == tess_insn_pkg::CLS_FSQRT) || (d.cls == tess_insn_pkg::CLS_FMOVE) || (d.cls == tess_insn_pkg::CLS_FCVT);
    d.flags_late = (d.cls == tess_insn_pkg::CLS_FMA) || (d.cls == tess_insn_pkg::CLS_FADD) || (d.cls == tess_insn_pkg::CLS_FMUL) ||
                   (d.cls == tess_insn_pkg::CLS_FDIV) || (d.cls == tess_insn_pkg::CLS_FSQRT) || (d.cls == tess_insn_pkg::CLS_FCVT);
    d.fpu_iter = (op == tess_insn_pkg::I_FDIV_S) || (op == tess_insn_pkg::I_FSQRT_S);
    if (d.fp && !d.load && !d.store) d.res_sel = tess_core_pkg::RES_FPU;
    case (op)
      tess_insn_pkg::I_FSUB_S: d.fpu_op = tess_fpu_pkg::FPU_SUB;
      tess_insn_pkg::I_FMUL_S: d.fpu_op = tess_fpu_pkg::FPU_MUL;
      tess_insn_pkg::I_FMADD_S: d.fpu_op = tess_fpu_pkg::FPU_MADD;
      tess_insn_pkg::I_FMSUB_S: d.fpu_op = tess_fpu_pkg::FPU_MSUB;
      tess_insn_pkg::I_FNMSUB_S: d.fpu_op = tess_fpu_pkg::FPU_NMSUB;
      tess_insn_pkg::I_FNMADD_S: d.fpu_op = tess_fpu_pkg::FPU_NMADD;
      tess_insn_pkg::I_FDIV_S: d.fpu_op = tess_fpu_pkg::FPU_DIV;
      tess_insn_pkg::I_FSQRT_S: d.fpu_op = tess_fpu_pkg::FPU_SQRT;
      tess_insn_pkg::I_FSGNJ_S: d.fpu_op = tess_fpu_pkg::FPU_SGNJ;
      tess_insn_pkg::I_FSGNJN_S: d.fpu_op = tess_fpu_pkg::FPU_SGNJN;
      tess_insn_pkg::I_FSGNJX_S: d.fpu_op = tess_fpu_pkg::FPU_SGNJX;
      tess_insn_pkg::I_FMIN_S: d.fpu_op = tess_fpu_pkg::FPU_MIN;
      tess_insn_pkg::I_FMAX_S: d.fpu_op = tess_fpu_pkg::FPU_MAX;
      tess_insn_pkg::I_FEQ_S: d.fpu_op = tess_fpu_pkg::FPU_EQ;
      tess_insn_pkg::I_FLT_S: d.fpu_op = tess_fpu_pkg::FPU_LT;
      tess_insn_pkg::I_FLE_S: d.fpu_op = tess_fpu_pkg::FPU_LE;
      tess_insn_pkg::I_FCLASS_S: d.fpu_op = tess_fpu_pkg::FPU_CLASS;
      tess_insn_pkg::I_FMV_X_W: d.fpu_op = tess_fpu_pkg::FPU_MV_X_W;
      tess_insn_pkg::I_FMV_W_X: d.fpu_op = tess_fpu_pkg::FPU_MV_W_X;
      tess_insn_pkg::I_FCVT_W_S: d.fpu_op = tess_fpu_pkg::FPU_CVT_W_S;
      tess_insn_pkg::I_FCVT_WU_S: d.fpu_op = tess_fpu_pkg::FPU_CVT_WU_S;
      tess_insn_pkg::I_FCVT_S_W: d.fpu_op = tess_fpu_pkg::FPU_CVT_S_W;
      tess_insn_pkg::I_FCVT_S_WU: d.fpu_op = tess_fpu_pkg::FPU_CVT_S_WU;
      default: d.fpu_op = tess_fpu_pkg::FPU_ADD;
    endcase

    // x0 is never written.
    if (!d.rd_fp && insn_i[11:7] == 5'd0) d.rd_en = 1'b0;
    dec_o = d;
  end
endmodule
