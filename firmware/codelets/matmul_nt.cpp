// matmul_nt: c[i][j] = sum over p of a[i][p] * b[j][p] for i < m, j < n: c = a b^T with a
// m x k and b n x k, c m x n, all row-major (the input gradient dY W^T of a fully-connected
// layer y = x W with W stored in x out: a = dY (batch x out), b = W (in x out), p runs over
// the outputs). Each c[i][j] is the fma chain over p in index order from +0, as matmul and
// dot: acc = fp_fma(a[i][p], b[j][p], acc), so c[i][j] equals matmul's result on the
// explicitly transposed b, bit for bit. NaNs and infinities propagate as fmaf makes them
// (NaN payloads may differ between the builds); k = 0 gives +0.
// State (codelets.h): [0] f32* c (m*n), [1] const f32* a (m*k), [2] const f32* b (n*k),
// [3] u32 m, [4] u32 k, [5] u32 n. c must not overlap a or b.
#include "codelets/codelets.h"
#include "runtime/fp_rules.h"
#include "runtime/platform.h"
#if !defined(__riscv)
#include "runtime/native_simd.h"
#endif

namespace tessera::fw {

extern "C" void codelet_matmul_nt(uint32_t state_addr) {
  const uint32_t* s = tile_ptr<const uint32_t>(state_addr, kWords_matmul_nt);
  const uint32_t m = s[3], k = s[4], n = s[5];
  // An empty c asks for nothing: not 2^32 - 1 passes over empty rows (as matmul).
  if (m == 0 || n == 0) return;
  float* c = tile_ptr<float>(s[0], static_cast<uint64_t>(m) * n);
  const float* a = tile_ptr<const float>(s[1], static_cast<uint64_t>(m) * k);
  const float* b = tile_ptr<const float>(s[2], static_cast<uint64_t>(n) * k);
#if !defined(__riscv)
  if (simd::enabled()) {  // the same chains, several columns at once (native_simd.h)
    simd::matmul_nt(c, a, b, m, k, n);
    return;
  }
#endif
  for (uint32_t i = 0; i < m; ++i) {
    const float* row = a + static_cast<uintptr_t>(i) * k;
    for (uint32_t j = 0; j < n; ++j) {
      const float* col = b + static_cast<uintptr_t>(j) * k;
      float acc = 0.0f;
      for (uint32_t p = 0; p < k; ++p) acc = fp_fma(row[p], col[p], acc);
      c[static_cast<uintptr_t>(i) * n + j] = acc;
    }
  }
}

}  // namespace tessera::fw
