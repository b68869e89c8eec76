// See fpu_harness.h.
#include "tessera/vlt/fpu_harness.h"

// Verilator's runtime headers are not -Wextra clean.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "Vtess_units.h"
#include "verilated.h"
#pragma GCC diagnostic pop

namespace tessera::vlt {

const char* fpu_op_name(FpuOp op) {
  static constexpr const char* kNames[] = {
      "fadd.s",   "fsub.s",    "fmul.s",   "fmadd.s",  "fmsub.s",  "fnmsub.s",
      "fnmadd.s", "fdiv.s",    "fsqrt.s",  "fsgnj.s",  "fsgnjn.s", "fsgnjx.s",
      "fmin.s",   "fmax.s",    "feq.s",    "flt.s",    "fle.s",    "fclass.s",
      "fmv.x.w",  "fmv.w.x",   "fcvt.w.s", "fcvt.wu.s", "fcvt.s.w", "fcvt.s.wu"};
  static_assert(sizeof(kNames) / sizeof(kNames[0]) == kNumFpuOps);
  const int i = static_cast<int>(op);
  return i >= 0 && i < kNumFpuOps ? kNames[i] : "?";
}

int fpu_op_latency(FpuOp op) {
  switch (op) {
    case FpuOp::kAdd:
    case FpuOp::kSub:
    case FpuOp::kMul:
    case FpuOp::kMadd:
    case FpuOp::kMsub:
    case FpuOp::kNmsub:
    case FpuOp::kNmadd:
      return 4;
    case FpuOp::kDiv:
    case FpuOp::kSqrt:
      return 16;
    case FpuOp::kCvtWS:
    case FpuOp::kCvtWuS:
    case FpuOp::kCvtSW:
    case FpuOp::kCvtSWu:
      return 2;
    default:
      return 1;
  }
}

FpuHarness::FpuHarness() : ctx_(std::make_unique<VerilatedContext>()) {
  top_ = std::make_unique<Vtess_units>(ctx_.get(), "tess_units");
  // The model's other benches (the tile, the mesh: sim/vlt/units) are held in reset and never
  // clocked.
  top_->clk_i = 0;
  top_->rst_ni = 0;
  top_->noc_clk_i = 0;
  top_->noc_rst_ni = 0;
  top_->noc_eval_i = 0;
  top_->fpu_clk_i = 0;
  top_->fpu_rst_ni = 1;
  top_->fpu_eval_i = 0;
  top_->eval();
}

FpuHarness::~FpuHarness() { top_->final(); }

void FpuHarness::reset() {
  top_->fpu_rst_ni = 0;
  top_->fpu_issue_i = 0;
  top_->fpu_div_start_i = 0;
  for (int i = 0; i < 2; ++i) {
    top_->fpu_clk_i = 0;
    top_->fpu_eval_i = 1;  // the model takes the data inputs at this edge (sim/vlt/units)
    top_->eval();
    top_->fpu_eval_i = 0;
    clock();
  }
  top_->fpu_rst_ni = 1;
}

FpuOutputs FpuHarness::eval(const FpuInputs& in) {
  top_->fpu_clk_i = 0;
  top_->fpu_issue_i = in.issue;
  top_->fpu_op_i = static_cast<uint8_t>(in.op);
  top_->fpu_rm_i = in.rm;
  top_->fpu_a_i = in.a;
  top_->fpu_b_i = in.b;
  top_->fpu_c_i = in.c;
  top_->fpu_div_start_i = in.div_start;
  top_->fpu_eval_i = 1;  // the model takes the data inputs at this edge (sim/vlt/units)
  top_->eval();
  top_->fpu_eval_i = 0;
  FpuOutputs out;
  out.res[1] = top_->fpu_res1_o;
  out.flags[1] = top_->fpu_flags1_o;
  out.res[2] = top_->fpu_res2_o;
  out.flags[2] = top_->fpu_flags2_o;
  out.res[4] = top_->fpu_res4_o;
  out.flags[4] = top_->fpu_flags4_o;
  out.div_done = top_->fpu_div_done_o;
  out.res_div = top_->fpu_res_div_o;
  out.flags_div = top_->fpu_flags_div_o;
  return out;
}

void FpuHarness::clock() {
  top_->fpu_clk_i = 1;
  top_->eval();
  top_->fpu_clk_i = 0;
  ++cycle_;
}

}  // namespace tessera::vlt
