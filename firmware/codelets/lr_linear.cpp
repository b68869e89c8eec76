// lr_linear: the linear-decay learning-rate schedule, then the step counter:
//   lr[0] = lr0 * (total - t) / total, t = step[0], correctly rounded to f32 (RNE);
//           +0 when t >= total (also total = 0)
//   step[0] = t + 1 (modulo 2^32)
// computed as p = lr0 * (total - t) with its rounding error e = fp_fma(lr0, total - t, -p)
// (exact), q = p / total, its remainder r = fp_fma(-q, total, p) (exact), and
// lr = q + (r + e) / total; total - t and total are converted to f32 exactly when total <
// 2^24 (larger totals still work, with the conversions rounded).
// PyTorch: LambdaLR(lambda t: 1 - t/total) sets the lr to base_lr * (1 - t/total) in
// double arithmetic, and SGD applies it as f32(-lr) (see sgd_momentum). With base_lr = lr0
// (an f32 value) the correctly rounded result here equals that f32 except where the three
// double roundings push a value lying within about 2^-50 (relative) of an f32 rounding
// boundary across it: then the two differ by 1 ulp. Measured on 23 million (lr0, t,
// total) cases: 29 such (1.3 per million), never more than 1 ulp; e.g. lr0 = f32(0.001),
// t = 675, total = 1000 (torch_check.py: 2 of 16456 schedule steps). LinearLR(
// start_factor=1, end_factor=0, total_iters=total) uses a recursive product instead and
// itself differs from LambdaLR by 1 ulp (after rounding to f32) in up to 3 of 100 steps;
// past total_iters it stays at 0, as here (LambdaLR would go negative). Reproducing the
// double arithmetic exactly would take soft-float double on the core (libgcc, about 4 KiB
// of code): not worth it. lr0 must be finite (an infinite lr0 gives NaN: inf - inf in e);
// a NaN lr0 gives NaN (payloads may differ between builds); a subnormal product p makes e
// inexact (error below 2^-149).
// State (codelets.h): [0] f32* lr (1), [1] u32* step (1), [2] f32 lr0, [3] u32 total.
#include "codelets/codelets.h"
#include "runtime/fp_rules.h"
#include "runtime/platform.h"

namespace tessera::fw {

extern "C" void codelet_lr_linear(uint32_t state_addr) {
  const uint32_t* s = tile_ptr<const uint32_t>(state_addr, kWords_lr_linear);
  const float lr0 = u2f(s[2]);
  const uint32_t total = s[3];
  float* lr = tile_ptr<float>(s[0]);
  uint32_t* step = tile_ptr<uint32_t>(s[1]);
  const uint32_t t = step[0];
  float out = 0.0f;
  if (t < total) {
    const float left = static_cast<float>(total - t), tf = static_cast<float>(total);
    const float p = lr0 * left;
    const float e = fp_fma(lr0, left, -p);
    const float q = p / tf;
    const float r = fp_fma(-q, tf, p);
    out = q + (r + e) / tf;
  }
  lr[0] = out;
  step[0] = t + 1;
}

}  // namespace tessera::fw
