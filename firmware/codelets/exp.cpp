// exp: dst[i] = fp_expf(src[i]) for i in [0, n) (runtime/fp_rules.h: the project's own
// exp, identical bits in both builds; NaN gives the canonical NaN). dst may be src.
// State (codelets.h): [0] f32* dst, [1] const f32* src, [2] u32 n.
#include "codelets/codelets.h"
#include "runtime/fp_rules.h"
#include "runtime/platform.h"

namespace tessera::fw {

extern "C" void codelet_exp(uint32_t state_addr) {
  const uint32_t* s = tile_ptr<const uint32_t>(state_addr, kWords_exp);
  const uint32_t n = s[2];
  float* dst = tile_ptr<float>(s[0], n);
  const float* src = tile_ptr<const float>(s[1], n);
  for (uint32_t i = 0; i < n; ++i) dst[i] = fp_expf(src[i]);
}

}  // namespace tessera::fw
