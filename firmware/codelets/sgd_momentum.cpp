// sgd_momentum: one step of PyTorch's SGD with momentum (dampening 0, no Nesterov, no
// weight decay), for i in [0, n):
//   v[i] = v[i] * momentum        (rounded: buf.mul_(momentum))
//   v[i] = v[i] + g[i]            (rounded: buf.add_(grad))
//   w[i] = fp_fma(v[i], -lr[0], w[i])   (one rounding: param.add_(buf, alpha=-lr))
// lr is a pointer to one f32 in tile memory (lr_linear or the host writes it each step).
// What PyTorch does, found by experiment (torch 1.13 CPU, AVX2 kernels, torch.optim.SGD
// with foreach=False and with the default foreach; tests/firmware/torch_check.py checks
// it): a Python-float scalar is rounded to f32 before the kernel runs (momentum as
// f32(momentum), alpha as f32(-lr)), mul_ and add_ are separate kernels (two roundings),
// and add_ with alpha computes param + alpha * buf as one fused multiply-add (AVX2
// vfmadd, also in the loop tail). Hence this codelet gives PyTorch's bits exactly when
// momentum = f32(momentum) and lr[0] = f32(lr) (-f32(lr) = f32(-lr): negation is exact).
// (On a CPU without FMA PyTorch's default kernels round param + alpha*buf twice.)
// The first step: PyTorch's buffer starts as a copy of the gradient; starting from v = 0
// here gives the same v (0 * momentum + g = g) except that a g of -0 gives v = +0, which
// changes w only when w is +-0 and then only its sign. Special values follow IEEE
// arithmetic (NaN payloads may differ between builds).
// State (codelets.h): [0] f32* w (n), [1] f32* v (n), [2] const f32* g (n), [3] const f32*
// lr (1), [4] u32 n, [5] f32 momentum. w, v and g must not overlap.
#include "codelets/codelets.h"
#include "runtime/fp_rules.h"
#include "runtime/platform.h"
#if !defined(__riscv)
#include "runtime/native_simd.h"
#endif

namespace tessera::fw {

extern "C" void codelet_sgd_momentum(uint32_t state_addr) {
  const uint32_t* s = tile_ptr<const uint32_t>(state_addr, kWords_sgd_momentum);
  const uint32_t n = s[4];
  const float momentum = u2f(s[5]);
  float* w = tile_ptr<float>(s[0], n);
  float* v = tile_ptr<float>(s[1], n);
  const float* g = tile_ptr<const float>(s[2], n);
  const float alpha = -tile_ptr<const float>(s[3])[0];
#if !defined(__riscv)
  if (simd::enabled()) {  // the same operations, eight elements at once (native_simd.h)
    simd::sgd_momentum(w, v, g, n, momentum, alpha);
    return;
  }
#endif
  for (uint32_t i = 0; i < n; ++i) {
    float vi = v[i] * momentum;
    vi = vi + g[i];
    v[i] = vi;
    w[i] = fp_fma(vi, alpha, w[i]);
  }
}

}  // namespace tessera::fw
