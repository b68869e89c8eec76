// argmax: out[r] = the index of the largest element of row r of src (rows x cols,
// row-major), as a u32: the first such index when several are equal; NaNs are never
// largest; a row of only NaNs (or cols = 0) gives 0. -0 and +0 compare equal.
// State (codelets.h): [0] u32* out (rows), [1] const f32* src, [2] u32 rows, [3] u32 cols.
#include "codelets/codelets.h"
#include "runtime/platform.h"

namespace tessera::fw {

extern "C" void codelet_argmax(uint32_t state_addr) {
  const uint32_t* s = tile_ptr<const uint32_t>(state_addr, kWords_argmax);
  const uint32_t rows = s[2], cols = s[3];
  uint32_t* out = tile_ptr<uint32_t>(s[0], rows);
  const float* src = tile_ptr<const float>(s[1], static_cast<uint64_t>(rows) * cols);
  for (uint32_t r = 0; r < rows; ++r) {
    const float* row = src + static_cast<uintptr_t>(r) * cols;
    uint32_t best = 0;
    bool found = false;
    for (uint32_t c = 0; c < cols; ++c) {
      const float x = row[c];
      if (x != x) continue;  // NaN
      if (!found || x > row[best]) {
        best = c;
        found = true;
      }
    }
    out[r] = best;
  }
}

}  // namespace tessera::fw
