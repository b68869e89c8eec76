// See fpu_harness.h.
#include "tessera/vlt/fpu_harness.h"

// Verilator's runtime headers are not -Wextra clean.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "Vtess_fpu.h"
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
      return 3;
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
  top_ = std::make_unique<Vtess_fpu>(ctx_.get(), "tess_fpu");
  top_->clk_i = 0;
  top_->rst_ni = 1;
  top_->eval();
}

FpuHarness::~FpuHarness() { top_->final(); }

void FpuHarness::reset() {
  top_->rst_ni = 0;
  top_->issue_i = 0;
  top_->div_start_i = 0;
  for (int i = 0; i < 2; ++i) {
    top_->clk_i = 0;
    top_->eval();
    clock();
  }
  top_->rst_ni = 1;
}

FpuOutputs FpuHarness::eval(const FpuInputs& in) {
  top_->clk_i = 0;
  top_->issue_i = in.issue;
  top_->op_i = static_cast<uint8_t>(in.op);
  top_->rm_i = in.rm;
  top_->a_i = in.a;
  top_->b_i = in.b;
  top_->c_i = in.c;
  top_->div_start_i = in.div_start;
  top_->eval();
  FpuOutputs out;
  out.res[1] = top_->res1_o;
  out.flags[1] = top_->flags1_o;
  out.res[2] = top_->res2_o;
  out.flags[2] = top_->flags2_o;
  out.res[3] = top_->res3_o;
  out.flags[3] = top_->flags3_o;
  out.res[4] = top_->res4_o;
  out.flags[4] = top_->flags4_o;
  out.div_done = top_->div_done_o;
  out.res_div = top_->res_div_o;
  out.flags_div = top_->flags_div_o;
  return out;
}

void FpuHarness::clock() {
  top_->clk_i = 1;
  top_->eval();
  top_->clk_i = 0;
  ++cycle_;
}

}  // namespace tessera::vlt
