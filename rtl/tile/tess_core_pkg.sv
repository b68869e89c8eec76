// Types shared by the core's modules: the decoded instruction and the unit operations.
package tess_core_pkg;
  typedef enum logic [3:0] {
    ALU_ADD, ALU_SUB, ALU_SLL, ALU_SLT, ALU_SLTU, ALU_XOR, ALU_SRL, ALU_SRA, ALU_OR, ALU_AND
  } alu_op_e;

  typedef enum logic [1:0] { OPA_RS1, OPA_PC, OPA_ZERO } opa_sel_e;

  // Where an instruction's result comes from.
  typedef enum logic [2:0] {
    RES_ALU, RES_LINK, RES_CSR, RES_LOAD, RES_MUL, RES_DIV, RES_FPU
  } res_sel_e;

  typedef enum logic [1:0] { CSR_NONE, CSR_WRITE, CSR_SET, CSR_CLEAR } csr_op_e;

  // Memory access sizes: funct3[1:0] of loads and stores.
  localparam logic [1:0] SZ_B = 2'd0, SZ_H = 2'd1, SZ_W = 2'd2;

  typedef struct packed {
    // Enum-valued fields are plain vectors: yosys 0.23 cannot name another package's types
    // inside a struct. op: tess_insn_pkg::insn_e, cls: insn_class_e, fpu_op: fpu_op_e.
    logic [6:0]  op;
    logic [4:0]  cls;
    logic        illegal;     // no instruction of the ISA has this encoding
    logic        rs1_en, rs1_fp;
    logic        rs2_en, rs2_fp;
    logic        rs3_en;      // always an f register
    logic        rd_en, rd_fp; // writes rd (never x0)
    logic [31:0] imm;
    alu_op_e     alu_op;
    opa_sel_e    opa_sel;
    logic        opb_imm;
    res_sel_e    res_sel;
    logic        branch, jal, jalr, mret, ecall, ebreak, fencei;
    logic        load, store;
    logic [1:0]  mem_size;
    logic        mem_unsigned;
    csr_op_e     csr_op;
    logic        csr_imm;     // the rs1 field is the source value (csrr*i)
    logic        fp;          // needs mstatus.FS != Off
    logic        uses_rm;     // has a rounding-mode field to resolve
    logic [4:0]  fpu_op;
    logic        fpu_iter;    // fdiv / fsqrt: iterative in E1
    logic        flags_late;  // its flags take more than one cycle (the scoreboard's fflags slot)
    logic [5:0]  lat_issue;   // cycles in the issue slot (arch/latency.toml)
    logic [5:0]  lat_result;  // cycles from issue until a dependant may issue
  } dec_t;
  // Its width, for ports (yosys 0.23 takes no package types on ports); tess_core checks
  // it against $bits(dec_t) in simulation.
  localparam int DecW = 98;
endpackage
