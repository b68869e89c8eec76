// matvec: y[r] = dot(a[r*cols .. r*cols + cols), x) for r in [0, rows): a is rows x cols,
// row-major; each row is the fma chain of codelet dot (index order, from +0). On one tile
// this is the partial product of a distributed matrix-vector product (a block of rows
// and columns); reduce_sum adds the partials.
// State (codelets.h): [0] f32* y (rows), [1] const f32* a (rows * cols), [2] const f32* x
// (cols), [3] u32 rows, [4] u32 cols. y must not overlap a or x.
#include "codelets/codelets.h"
#include "runtime/fp_rules.h"
#include "runtime/platform.h"

namespace tessera::fw {

extern "C" void codelet_matvec(uint32_t state_addr) {
  const uint32_t* s = tile_ptr<const uint32_t>(state_addr, kWords_matvec);
  const uint32_t rows = s[3], cols = s[4];
  float* y = tile_ptr<float>(s[0], rows);
  const float* a = tile_ptr<const float>(s[1], static_cast<uint64_t>(rows) * cols);
  const float* x = tile_ptr<const float>(s[2], cols);
  for (uint32_t r = 0; r < rows; ++r) {
    const float* row = a + static_cast<uintptr_t>(r) * cols;
    float acc = 0.0f;
    for (uint32_t c = 0; c < cols; ++c) acc = fp_fma(row[c], x[c], acc);
    y[r] = acc;
  }
}

}  // namespace tessera::fw
