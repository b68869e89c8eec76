// add: dst[i] = a[i] + b[i] for i in [0, n), f32 (RNE). dst may be a or b (in place).
// State (codelets.h): [0] f32* dst, [1] const f32* a, [2] const f32* b, [3] u32 n.
#include "codelets/codelets.h"
#include "runtime/platform.h"

namespace tessera::fw {

extern "C" void codelet_add(uint32_t state_addr) {
  const uint32_t* s = tile_ptr<const uint32_t>(state_addr, kWords_add);
  const uint32_t n = s[3];
  float* dst = tile_ptr<float>(s[0], n);
  const float* a = tile_ptr<const float>(s[1], n);
  const float* b = tile_ptr<const float>(s[2], n);
  for (uint32_t i = 0; i < n; ++i) dst[i] = a[i] + b[i];
}

}  // namespace tessera::fw
