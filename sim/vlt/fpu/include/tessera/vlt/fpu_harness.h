// Cycle-level C++ harness around the Verilated tess_fpu (rtl/tile/fpu; the fpu_* ports of the
// unit-bench model tess_units, sim/vlt/units): drive the inputs of one cycle, read the
// outputs that cycle produces, then clock.
#pragma once

#include <cstdint>
#include <memory>

class Vtess_units;
class VerilatedContext;

namespace tessera::vlt {

// Mirrors tess_fpu_pkg::fpu_op_e (same order, same encoding).
enum class FpuOp : uint8_t {
  kAdd, kSub, kMul,
  kMadd, kMsub, kNmsub, kNmadd,
  kDiv, kSqrt,
  kSgnj, kSgnjn, kSgnjx, kMin, kMax,
  kEq, kLt, kLe, kClass, kMvXW, kMvWX,
  kCvtWS, kCvtWuS, kCvtSW, kCvtSWu,
  kCount
};
inline constexpr int kNumFpuOps = static_cast<int>(FpuOp::kCount);
const char* fpu_op_name(FpuOp op);
// Result latency of the pipelined classes (1, 2 or 4: add, sub, mul and the fma forms share
// one FMA pipeline); 16 for div/sqrt.
int fpu_op_latency(FpuOp op);

struct FpuInputs {
  bool issue = false;
  FpuOp op = FpuOp::kSgnj;
  uint8_t rm = 0;
  uint32_t a = 0, b = 0, c = 0;
  bool div_start = false;
};

struct FpuOutputs {
  uint32_t res[5] = {};    // res[1], res[2], res[4]: the latency-1, 2, 4 result ports (0, 3 unused)
  uint8_t flags[5] = {};
  bool div_done = false;
  uint32_t res_div = 0;
  uint8_t flags_div = 0;
};

class FpuHarness {
 public:
  FpuHarness();
  ~FpuHarness();
  FpuHarness(const FpuHarness&) = delete;
  FpuHarness& operator=(const FpuHarness&) = delete;

  // Holds rst_ni low for two clock edges.
  void reset();
  // Applies the inputs of the current cycle with the clock low and returns what the design
  // outputs in this cycle (combinational outputs included).
  FpuOutputs eval(const FpuInputs& in);
  // Rising clock edge: the registers take the values computed from the last eval().
  void clock();
  uint64_t cycle() const { return cycle_; }

 private:
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Vtess_units> top_;  // its fpu_* ports (sim/vlt/units)
  uint64_t cycle_ = 0;
};

}  // namespace tessera::vlt
