// ewise1_grad: the gradient of ewise1 (the same op numbers), PyTorch's backward kernels
// (CPU, torch 1.13), for i in [0, n) in order, g = dy[i], u = v[i]:
//   op 0 leaky_relu  (u: the forward's input x)   dx[i] = u > 0 ? g : g * p0
//   op 1 sigmoid     (u: the forward's output y)  dx[i] = (g * (1 - u)) * u
//                    (PyTorch's a * (1 - b) * b, three roundings, left to right)
//   op 2 tanh        (u: the forward's output y)  dx[i] = g * fp_fma(-u, u, 1)  (PyTorch's
//                    a * (1 - b * b), whose 1 - b*b its AVX2 build fuses: found by
//                    experiment, bit for bit against torch; two roundings)
//   op 3 clip        (u: the forward's input x)   dx[i] = (u <= p0 || u >= p1) ? +0 : g
//                    (hardtanh_backward's scalar rule: a NaN u passes g)
//   op 4 identity    dx[i] = g (the bits)
// Another op writes nothing.
// State (codelets.h): [0] f32* dx (n), [1] const f32* dy (n), [2] const f32* v (n),
// [3] u32 n, [4] u32 op, [5] f32 p0, [6] f32 p1. dx may be dy or v (in place); otherwise
// no overlaps.
#include "codelets/codelets.h"
#include "runtime/fp_rules.h"
#include "runtime/platform.h"

namespace tessera::fw {

namespace {

template <class Op>
void each(float* dx, const float* dy, const float* v, uint32_t n, Op op) {
  for (uint32_t i = 0; i < n; ++i) dx[i] = op(dy[i], v[i]);
}

}  // namespace

extern "C" void codelet_ewise1_grad(uint32_t state_addr) {
  const uint32_t* s = tile_ptr<const uint32_t>(state_addr, kWords_ewise1_grad);
  const uint32_t n = s[3], op = s[4];
  const float p0 = u2f(s[5]), p1 = u2f(s[6]);
  if (n == 0 || op > 4) return;
  float* dx = tile_ptr<float>(s[0], n);
  const float* dy = tile_ptr<const float>(s[1], n);
  const float* v = tile_ptr<const float>(s[2], n);
  switch (op) {
    case 0: each(dx, dy, v, n, [p0](float g, float u) { return u > 0.0f ? g : g * p0; }); break;
    case 1: each(dx, dy, v, n, [](float g, float u) { return (g * (1.0f - u)) * u; }); break;
    case 2: each(dx, dy, v, n, [](float g, float u) { return g * fp_fma(-u, u, 1.0f); }); break;
    case 3:
      each(dx, dy, v, n, [p0, p1](float g, float u) { return (u <= p0 || u >= p1) ? 0.0f : g; });
      break;
    default: {
      uint32_t* d = tile_ptr<uint32_t>(s[0], n);
      const uint32_t* src = tile_ptr<const uint32_t>(s[1], n);
      for (uint32_t i = 0; i < n; ++i) d[i] = src[i];
    }
  }
}

}  // namespace tessera::fw
