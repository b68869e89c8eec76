// add_bias: dst[r][c] = src[r][c] + bias[c] for r < rows, c < cols (row-major), f32 RNE:
// a fully-connected layer's bias, broadcast over the batch. dst may be src (in place).
// State (codelets.h): [0] f32* dst, [1] const f32* src, [2] const f32* bias, [3] u32 rows,
// [4] u32 cols.
#include "codelets/codelets.h"
#include "runtime/platform.h"

namespace tessera::fw {

extern "C" void codelet_add_bias(uint32_t state_addr) {
  const uint32_t* s = tile_ptr<const uint32_t>(state_addr, kWords_add_bias);
  const uint32_t rows = s[3], cols = s[4];
  const uint64_t n = static_cast<uint64_t>(rows) * cols;
  float* dst = tile_ptr<float>(s[0], n);
  const float* src = tile_ptr<const float>(s[1], n);
  const float* bias = tile_ptr<const float>(s[2], cols);
  if (n == 0) return;  // empty: not 2^32 - 1 passes over empty rows
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t c = 0; c < cols; ++c) {
      const uintptr_t i = static_cast<uintptr_t>(r) * cols + c;
      dst[i] = src[i] + bias[c];
    }
}

}  // namespace tessera::fw
