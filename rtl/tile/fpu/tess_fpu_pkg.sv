// Tessera tile FPU: operation codes and shared constants.
//
// The operation set is the RISC-V "F" extension (binary32). The latency class of each
// operation (docs/tile-rtl.md) decides which result port of tess_fpu carries its result.
package tess_fpu_pkg;

  typedef enum logic [4:0] {
    FPU_ADD, FPU_SUB, FPU_MUL,                      // class fadd / fmul: latency 4 (the FMA pipeline)
    FPU_MADD, FPU_MSUB, FPU_NMSUB, FPU_NMADD,       // class fma: latency 4
    FPU_DIV, FPU_SQRT,                              // iterative, 16 cycles
    FPU_SGNJ, FPU_SGNJN, FPU_SGNJX, FPU_MIN, FPU_MAX,
    FPU_EQ, FPU_LT, FPU_LE, FPU_CLASS, FPU_MV_X_W, FPU_MV_W_X,   // class fmove: latency 1
    FPU_CVT_W_S, FPU_CVT_WU_S, FPU_CVT_S_W, FPU_CVT_S_WU           // class fcvt: latency 2
  } fpu_op_e;

  // Rounding modes (frm encoding).
  localparam logic [2:0] RM_RNE = 3'd0;
  localparam logic [2:0] RM_RTZ = 3'd1;
  localparam logic [2:0] RM_RDN = 3'd2;
  localparam logic [2:0] RM_RUP = 3'd3;
  localparam logic [2:0] RM_RMM = 3'd4;

  // fflags bit positions.
  localparam int unsigned FLAG_NX = 0;
  localparam int unsigned FLAG_UF = 1;
  localparam int unsigned FLAG_OF = 2;
  localparam int unsigned FLAG_DZ = 3;
  localparam int unsigned FLAG_NV = 4;

  localparam logic [31:0] CANONICAL_NAN = 32'h7fc0_0000;

endpackage
