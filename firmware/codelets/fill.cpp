// fill: dst[i] = value for i in [0, n) (32-bit words: an f32's bits or an integer).
// State (codelets.h): [0] u32* dst, [1] u32 n, [2] u32 value.
#include "codelets/codelets.h"
#include "runtime/platform.h"

namespace tessera::fw {

extern "C" void codelet_fill(uint32_t state_addr) {
  const uint32_t* s = tile_ptr<const uint32_t>(state_addr, kWords_fill);
  const uint32_t n = s[1], value = s[2];
  uint32_t* dst = tile_ptr<uint32_t>(s[0], n);
  for (uint32_t i = 0; i < n; ++i) dst[i] = value;
}

}  // namespace tessera::fw
