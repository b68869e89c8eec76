// copy: dst[i] = src[i] for i in [0, n), as 32-bit words (any data). dst and src must
// not overlap unless dst == src.
// State (codelets.h): [0] u32* dst, [1] const u32* src, [2] u32 n.
#include "codelets/codelets.h"
#include "runtime/platform.h"

namespace tessera::fw {

extern "C" void codelet_copy(uint32_t state_addr) {
  const uint32_t* s = tile_ptr<const uint32_t>(state_addr, kWords_copy);
  const uint32_t n = s[2];
  uint32_t* dst = tile_ptr<uint32_t>(s[0], n);
  const uint32_t* src = tile_ptr<const uint32_t>(s[1], n);
  for (uint32_t i = 0; i < n; ++i) dst[i] = src[i];
}

}  // namespace tessera::fw
