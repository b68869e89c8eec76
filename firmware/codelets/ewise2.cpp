// ewise2: a binary element-wise op with broadcasting of b: for i in [0, n), in order,
//   dst[i] = a[i] OP b[(i / inner) % bn]
// (bn = n, inner = 1: element-wise; bn = 1: a scalar b; bn = C, inner = H*W: per channel
// of [N][C][H][W]). OP by op: 0 a + b, 1 a - b, 2 a * b, 3 a / b (each rounded once, RNE,
// IEEE specials), 4 fp_max(a, b), 5 fp_min(a, b) (RISC-V fmax/fmin: a NaN operand is
// ignored, -0 < +0). Another op, bn = 0 or inner = 0 writes nothing. dst may be a (in
// place); otherwise dst overlaps nothing.
// State (codelets.h): [0] f32* dst (n), [1] const f32* a (n), [2] const f32* b (bn),
// [3] u32 n, [4] u32 bn, [5] u32 inner, [6] u32 op.
#include "codelets/codelets.h"
#include "runtime/fp_rules.h"
#include "runtime/platform.h"

namespace tessera::fw {

namespace {

// The loop over i with b's index kept by counters (no division per element).
template <class Op>
void broadcast(float* dst, const float* a, const float* b, uint32_t n, uint32_t bn, uint32_t inner,
               Op op) {
  uint32_t j = 0, k = 0;
  for (uint32_t i = 0; i < n; ++i) {
    dst[i] = op(a[i], b[j]);
    if (++k == inner) {
      k = 0;
      if (++j == bn) j = 0;
    }
  }
}

}  // namespace

extern "C" void codelet_ewise2(uint32_t state_addr) {
  const uint32_t* s = tile_ptr<const uint32_t>(state_addr, kWords_ewise2);
  const uint32_t n = s[3], bn = s[4], inner = s[5], op = s[6];
  if (n == 0 || bn == 0 || inner == 0 || op > 5) return;
  float* dst = tile_ptr<float>(s[0], n);
  const float* a = tile_ptr<const float>(s[1], n);
  const float* b = tile_ptr<const float>(s[2], bn);
  switch (op) {
    case 0: broadcast(dst, a, b, n, bn, inner, [](float u, float v) { return u + v; }); break;
    case 1: broadcast(dst, a, b, n, bn, inner, [](float u, float v) { return u - v; }); break;
    case 2: broadcast(dst, a, b, n, bn, inner, [](float u, float v) { return u * v; }); break;
    case 3: broadcast(dst, a, b, n, bn, inner, [](float u, float v) { return u / v; }); break;
    case 4: broadcast(dst, a, b, n, bn, inner, [](float u, float v) { return fp_max(u, v); }); break;
    default: broadcast(dst, a, b, n, bn, inner, [](float u, float v) { return fp_min(u, v); }); break;
  }
}

}  // namespace tessera::fw
