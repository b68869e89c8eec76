// dot: out[0] = sum of a[i] * b[i], as the fma chain acc = fma(a[i], b[i], acc) for
// i = 0, 1, ..., n-1 starting from acc = +0 (so n = 0 gives +0). No reassociation: the
// order is part of the result.
// State (codelets.h): [0] f32* out (one word), [1] const f32* a, [2] const f32* b, [3] u32 n.
#include "codelets/codelets.h"
#include "runtime/fp_rules.h"
#include "runtime/platform.h"

namespace tessera::fw {

extern "C" void codelet_dot(uint32_t state_addr) {
  const uint32_t* s = tile_ptr<const uint32_t>(state_addr, kWords_dot);
  const uint32_t n = s[3];
  float* out = tile_ptr<float>(s[0]);
  const float* a = tile_ptr<const float>(s[1], n);
  const float* b = tile_ptr<const float>(s[2], n);
  float acc = 0.0f;
  for (uint32_t i = 0; i < n; ++i) acc = fp_fma(a[i], b[i], acc);
  *out = acc;
}

}  // namespace tessera::fw
