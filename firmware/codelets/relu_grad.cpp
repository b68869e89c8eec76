// relu_grad: dx[i] = dy[i] if y[i] > 0, else +0, for i in [0, n): the gradient of relu
// through its OUTPUT y, as PyTorch's threshold_backward(dy, y, 0) (y > 0 ? dy : 0). A NaN
// y is not > 0 and gives +0, as in PyTorch; a NaN dy where y > 0 passes through (the
// canonical NaN, see below); -0 and +0 in y both give +0. Computed on the bits, so no FP
// operation is involved: y > 0 is "sign clear, not +0, not a NaN", and a NaN dy is stored
// as the canonical NaN so both builds give the same bits.
// State (codelets.h): [0] f32* dx, [1] const f32* dy, [2] const f32* y, [3] u32 n.
// dx may be dy or y (in place); otherwise the arrays must not overlap.
#include "codelets/codelets.h"
#include "runtime/fp_rules.h"
#include "runtime/platform.h"

namespace tessera::fw {

extern "C" void codelet_relu_grad(uint32_t state_addr) {
  const uint32_t* s = tile_ptr<const uint32_t>(state_addr, kWords_relu_grad);
  const uint32_t n = s[3];
  uint32_t* dx = tile_ptr<uint32_t>(s[0], n);
  const uint32_t* dy = tile_ptr<const uint32_t>(s[1], n);
  const uint32_t* y = tile_ptr<const uint32_t>(s[2], n);
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t yi = y[i], g = dy[i];
    const bool positive = static_cast<int32_t>(yi) > 0 && yi <= 0x7f800000u;  // (0, +inf]
    dx[i] = !positive ? 0u : (g & 0x7fffffffu) > 0x7f800000u ? kCanonicalNaN : g;
  }
}

}  // namespace tessera::fw
