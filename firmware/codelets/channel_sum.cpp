// channel_sum: out[ci] = start + src[ci][0] + src[ci][1] + ... + src[ci][hw-1], added left
// to right, where start = out[ci] if accumulate != 0, else +0 (so +0 + -0 gives +0); for
// ci in [0, c). src is [c][hw] row-major: the sum over each channel's plane, a conv bias's
// gradient from dy (with accumulate set, image after image into one out).
// State (codelets.h): [0] f32* out (c), [1] const f32* src (c*hw), [2] u32 c, [3] u32 hw,
// [4] u32 accumulate. out overlaps nothing.
#include "codelets/codelets.h"
#include "runtime/platform.h"

namespace tessera::fw {

extern "C" void codelet_channel_sum(uint32_t state_addr) {
  const uint32_t* s = tile_ptr<const uint32_t>(state_addr, kWords_channel_sum);
  const uint32_t c = s[2], hw = s[3], accumulate = s[4];
  float* out = tile_ptr<float>(s[0], c);
  const float* src = tile_ptr<const float>(s[1], static_cast<uint64_t>(c) * hw);
  for (uint32_t ci = 0; ci < c; ++ci) {
    float acc = accumulate ? out[ci] : 0.0f;
    const float* p = src + static_cast<uintptr_t>(ci) * hw;
    for (uint32_t i = 0; i < hw; ++i) acc = acc + p[i];
    out[ci] = acc;
  }
}

}  // namespace tessera::fw
