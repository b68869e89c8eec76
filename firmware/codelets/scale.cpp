// scale: dst[i] = src[i] * scale for i in [0, n), f32 (RNE). dst may be src.
// State (codelets.h): [0] f32* dst, [1] const f32* src, [2] u32 n, [3] f32 scale (bits).
#include "codelets/codelets.h"
#include "runtime/fp_rules.h"
#include "runtime/platform.h"

namespace tessera::fw {

extern "C" void codelet_scale(uint32_t state_addr) {
  const uint32_t* s = tile_ptr<const uint32_t>(state_addr, kWords_scale);
  const uint32_t n = s[2];
  const float scale = u2f(s[3]);
  float* dst = tile_ptr<float>(s[0], n);
  const float* src = tile_ptr<const float>(s[1], n);
  for (uint32_t i = 0; i < n; ++i) dst[i] = src[i] * scale;
}

}  // namespace tessera::fw
