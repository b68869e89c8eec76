// matmul: c[i][j] = sum over p of a[i][p] * b[p][j] for i < m, j < n: a is m x k, b is
// k x n, c is m x n, all row-major; each c[i][j] is the fma chain over p in index order
// from +0 (as dot). On one tile this is a partial product of a distributed matmul (a block
// of rows, columns and the reduction); reduce_sum adds partials over the reduction.
// State (codelets.h): [0] f32* c (m*n), [1] const f32* a (m*k), [2] const f32* b (k*n),
// [3] u32 m, [4] u32 k, [5] u32 n. c must not overlap a or b.
#include "codelets/codelets.h"
#include "runtime/fp_rules.h"
#include "runtime/platform.h"
#if !defined(__riscv)
#include "runtime/native_simd.h"
#endif

namespace tessera::fw {

extern "C" void codelet_matmul(uint32_t state_addr) {
  const uint32_t* s = tile_ptr<const uint32_t>(state_addr, kWords_matmul);
  const uint32_t m = s[3], k = s[4], n = s[5];
  // An empty c asks for nothing: without this, m = 2^32 - 1 with n = 0 looped 4 G times
  // over empty rows (the fuzzer's finding: one vertex held native mode for minutes).
  if (m == 0 || n == 0) return;
  float* c = tile_ptr<float>(s[0], static_cast<uint64_t>(m) * n);
  const float* a = tile_ptr<const float>(s[1], static_cast<uint64_t>(m) * k);
  const float* b = tile_ptr<const float>(s[2], static_cast<uint64_t>(k) * n);
#if !defined(__riscv)
  if (simd::enabled()) {  // the same chains, several columns at once (native_simd.h)
    simd::matmul(c, n, a, k, 1, b, n, m, k, n);
    return;
  }
#endif
  for (uint32_t i = 0; i < m; ++i) {
    const float* row = a + static_cast<uintptr_t>(i) * k;
    for (uint32_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (uint32_t p = 0; p < k; ++p) acc = fp_fma(row[p], b[static_cast<uintptr_t>(p) * n + j], acc);
      c[static_cast<uintptr_t>(i) * n + j] = acc;
    }
  }
}

}  // namespace tessera::fw
