// mac: acc[i] = fma(a[i], b[i], acc[i]) for i in [0, n): one rounding per element.
// State (codelets.h): [0] f32* acc, [1] const f32* a, [2] const f32* b, [3] u32 n.
#include "codelets/codelets.h"
#include "runtime/fp_rules.h"
#include "runtime/platform.h"

namespace tessera::fw {

extern "C" void codelet_mac(uint32_t state_addr) {
  const uint32_t* s = tile_ptr<const uint32_t>(state_addr, kWords_mac);
  const uint32_t n = s[3];
  float* acc = tile_ptr<float>(s[0], n);
  const float* a = tile_ptr<const float>(s[1], n);
  const float* b = tile_ptr<const float>(s[2], n);
  for (uint32_t i = 0; i < n; ++i) acc[i] = fp_fma(a[i], b[i], acc[i]);
}

}  // namespace tessera::fw
