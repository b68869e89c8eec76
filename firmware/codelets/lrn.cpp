// lrn: local response normalization across channels (ONNX LRN) of one image: x and y are
// [c][hw] row-major. For every ci, p (ci outer), with the window of channels
// [ci - floor((size-1)/2), ci + ceil((size-1)/2)] clipped to [0, c) (ONNX's; for an odd
// size the same as PyTorch's local_response_norm, for an even one PyTorch's window is one
// channel lower):
//   sq   = +0 + x[j0][p]*x[j0][p] + x[j0+1][p]*x[j0+1][p] + ...   (each square rounded,
//          then added in channel order: PyTorch squares, then sums)
//   base = (sq / f32(size)) * alpha + bias     (PyTorch's order: the average over the
//          window of size channels, padding counted, times alpha, plus k; three roundings)
//   y[ci][p] = x[ci][p] / fp_expf(beta * fp_logf(base))       (base^beta)
// The power goes through the firmware's fp_logf (<= 0.81 ulp) and fp_expf (<= 1.06 ulp):
// the product beta*log(base) carries an absolute error of about |beta*log(base)| ulps of
// 1, so for the usual base near 1..2 and beta 0.75 base^beta is within about 2 ulps.
// base = 0 gives 0^beta = 0 (beta > 0) and x/0; NaNs propagate. size = 0 is read as 1.
// State (codelets.h): [0] f32* y (c*hw), [1] const f32* x (c*hw), [2] u32 c, [3] u32 hw,
// [4] u32 size, [5] f32 alpha, [6] f32 beta, [7] f32 bias. y overlaps nothing.
#include "codelets/codelets.h"
#include "runtime/fp_rules.h"
#include "runtime/platform.h"

namespace tessera::fw {

extern "C" void codelet_lrn(uint32_t state_addr) {
  const uint32_t* s = tile_ptr<const uint32_t>(state_addr, kWords_lrn);
  const uint32_t c = s[2], hw = s[3], size = s[4] ? s[4] : 1;
  const float alpha = u2f(s[5]), beta = u2f(s[6]), bias = u2f(s[7]);
  const float fsize = static_cast<float>(size);
  const uint32_t before = (size - 1) / 2, after = size / 2;  // floor, ceil of (size-1)/2
  float* y = tile_ptr<float>(s[0], extent(c, hw));
  const float* x = tile_ptr<const float>(s[1], extent(c, hw));
  // Nothing to write (an extent is zero): return now rather than walk up to 2^32 - 1 empty
  // rows or channels (fuzz_control found that runaway in avgpool2d_grad and maxpool2d_grad).
  if (no_elements(c, hw)) return;
  for (uint32_t ci = 0; ci < c; ++ci) {
    const uint32_t lo = ci > before ? ci - before : 0;
    const uint32_t hi = c - ci > after ? ci + after + 1 : c;
    for (uint32_t p = 0; p < hw; ++p) {
      float sq = 0.0f;
      const float* xp = x + static_cast<uintptr_t>(lo) * hw + p;
      for (uint32_t j = lo; j < hi; ++j, xp += hw) sq = sq + *xp * *xp;
      const float base = (sq / fsize) * alpha + bias;
      const uintptr_t at = static_cast<uintptr_t>(ci) * hw + p;
      y[at] = x[at] / fp_expf(beta * fp_logf(base));
    }
  }
}

}  // namespace tessera::fw
