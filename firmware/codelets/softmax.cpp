// softmax: each row of src (rows x cols, row-major) into dst: m = the row's fp_max (NaNs
// skipped as fp_max does), e[c] = fp_expf(src[c] - m), s = e[0] + e[1] + ... left to right,
// dst[c] = e[c] / s (RNE). A row with a NaN or an infinity gives NaNs as IEEE arithmetic
// does. dst may be src (in place).
// State (codelets.h): [0] f32* dst, [1] const f32* src, [2] u32 rows, [3] u32 cols.
#include "codelets/codelets.h"
#include "runtime/fp_rules.h"
#include "runtime/platform.h"

namespace tessera::fw {

extern "C" void codelet_softmax(uint32_t state_addr) {
  const uint32_t* s = tile_ptr<const uint32_t>(state_addr, kWords_softmax);
  const uint32_t rows = s[2], cols = s[3];
  if (rows == 0 || cols == 0) return;  // empty: not 4 G passes over empty rows (fuzz_control)
  const uint64_t n = static_cast<uint64_t>(rows) * cols;
  float* dst = tile_ptr<float>(s[0], n);
  const float* src = tile_ptr<const float>(s[1], n);
  for (uint32_t r = 0; r < rows; ++r) {
    const uintptr_t base = static_cast<uintptr_t>(r) * cols;
    float m = src[base];
    for (uint32_t c = 1; c < cols; ++c) m = fp_max(m, src[base + c]);
    float sum = 0.0f;
    for (uint32_t c = 0; c < cols; ++c) {
      const float e = fp_expf(src[base + c] - m);
      dst[base + c] = e;
      sum = c == 0 ? e : sum + e;
    }
    for (uint32_t c = 0; c < cols; ++c) dst[base + c] = dst[base + c] / sum;
  }
}

}  // namespace tessera::fw
