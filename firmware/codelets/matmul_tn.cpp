// matmul_tn: c[i][j] = sum over p of a[p][i] * b[p][j] for i < m, j < n: c = a^T b with a
// stored k x m and b k x n, c m x n, all row-major (the weight gradient X^T dY of a
// fully-connected layer y = x W with W stored in x out: a = X (batch x in), b = dY (batch x
// out), p runs over the batch). Each c[i][j] is the fma chain over p in index order from
// +0, as matmul and dot: acc = fp_fma(a[p][i], b[p][j], acc), so c[i][j] equals matmul's
// result on the explicitly transposed a, bit for bit. NaNs and infinities propagate as fmaf
// makes them (NaN payloads may differ between the builds); k = 0 gives +0.
// State (codelets.h): [0] f32* c (m*n), [1] const f32* a (k*m), [2] const f32* b (k*n),
// [3] u32 m, [4] u32 k, [5] u32 n. c must not overlap a or b.
#include "codelets/codelets.h"
#include "runtime/fp_rules.h"
#include "runtime/platform.h"
#if !defined(__riscv)
#include "runtime/native_simd.h"
#endif

namespace tessera::fw {

extern "C" void codelet_matmul_tn(uint32_t state_addr) {
  const uint32_t* s = tile_ptr<const uint32_t>(state_addr, kWords_matmul_tn);
  const uint32_t m = s[3], k = s[4], n = s[5];
  // An empty c asks for nothing: not 2^32 - 1 passes over empty rows (as matmul).
  if (m == 0 || n == 0) return;
  float* c = tile_ptr<float>(s[0], static_cast<uint64_t>(m) * n);
  const float* a = tile_ptr<const float>(s[1], static_cast<uint64_t>(k) * m);
  const float* b = tile_ptr<const float>(s[2], static_cast<uint64_t>(k) * n);
#if !defined(__riscv)
  if (simd::enabled()) {  // the same chains, several columns at once (native_simd.h)
    simd::matmul(c, n, a, 1, m, b, n, m, k, n);
    return;
  }
#endif
  for (uint32_t i = 0; i < m; ++i)
    for (uint32_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (uint32_t p = 0; p < k; ++p)
        acc = fp_fma(a[static_cast<uintptr_t>(p) * m + i], b[static_cast<uintptr_t>(p) * n + j], acc);
      c[static_cast<uintptr_t>(i) * n + j] = acc;
    }
}

}  // namespace tessera::fw
