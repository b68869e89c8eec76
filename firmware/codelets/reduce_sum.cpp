// reduce_sum: out[i] = in[i] + in[n + i] + ... + in[(k-1)*n + i], added left to right
// (out[i] = in[i], then out[i] += in[j*n + i] for j = 1..k-1), for i in [0, n): the sum
// of k partial vectors of length n, stored one after the other. k = 0 gives +0.
// State (codelets.h): [0] f32* out (n), [1] const f32* in (k * n), [2] u32 n, [3] u32 k.
// out may be the first partial (in) itself; otherwise it must not overlap in.
#include "codelets/codelets.h"
#include "runtime/platform.h"
#if !defined(__riscv)
#include "runtime/native_simd.h"
#endif

namespace tessera::fw {

extern "C" void codelet_reduce_sum(uint32_t state_addr) {
  const uint32_t* s = tile_ptr<const uint32_t>(state_addr, kWords_reduce_sum);
  const uint32_t n = s[2], k = s[3];
  float* out = tile_ptr<float>(s[0], n);
  const float* in = tile_ptr<const float>(s[1], static_cast<uint64_t>(n) * k);
#if !defined(__riscv)
  if (simd::enabled()) {  // the same operations, eight elements at once (native_simd.h)
    simd::reduce_sum(out, in, n, k);
    return;
  }
#endif
  for (uint32_t i = 0; i < n; ++i) {
    float acc = k > 0 ? in[i] : 0.0f;
    for (uint32_t j = 1; j < k; ++j) acc = acc + in[static_cast<uintptr_t>(j) * n + i];
    out[i] = acc;
  }
}

}  // namespace tessera::fw
