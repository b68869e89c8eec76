// maxpool2d_grad: the gradient of maxpool2d (same x, shapes and window fields). dx, x are
// [c][h][wd], dy [c][oh][ow], row-major. dx = +0 everywhere first; then for every ci, oy,
// ox in order, the element maxpool2d picks in the window (PyTorch's rule, see
// maxpool2d.cpp) gets dx[ci][pick] = dx[ci][pick] + dy[ci][oy][ox] (overlapping windows add
// in output order); a window with no element inside adds nothing. As PyTorch's
// max_pool2d backward (scatter-add of dy at the forward's indices).
// State (codelets.h): [0] f32* dx (c*h*wd), [1] const f32* dy (c*oh*ow), [2] const f32* x
// (c*h*wd), [3] u32 c, [4] u32 h, [5] u32 wd, [6] u32 oh, [7] u32 ow, [8] u32 kh, [9] u32
// kw, [10] u32 sh, [11] u32 sw, [12] u32 ph (i32), [13] u32 pw (i32). dx overlaps nothing.
#include "codelets/codelets.h"
#include "codelets/window.h"
#include "runtime/fp_rules.h"
#include "runtime/platform.h"

namespace tessera::fw {

extern "C" void codelet_maxpool2d_grad(uint32_t state_addr) {
  const uint32_t* s = tile_ptr<const uint32_t>(state_addr, kWords_maxpool2d_grad);
  const uint32_t c = s[3], h = s[4], wd = s[5], oh = s[6], ow = s[7], kh = s[8], kw = s[9];
  const uint32_t sh = s[10], sw = s[11], ph = s[12], pw = s[13];
  const uint32_t plane = h * wd;
  float* dx = tile_ptr<float>(s[0], extent(c, h, wd));
  const float* dy = tile_ptr<const float>(s[1], extent(c, oh, ow));
  const float* x = tile_ptr<const float>(s[2], extent(c, h, wd));
  for (uint32_t i = 0, n = c * plane; i < n; ++i) dx[i] = 0.0f;
  // No dy element: nothing to add. Return now rather than walk up to 2^32 - 1 empty rows
  // (fuzz_control found that runaway here as in avgpool2d_grad).
  if (no_elements(c, oh, ow)) return;
  for (uint32_t ci = 0; ci < c; ++ci) {
    const float* xc = x + static_cast<uintptr_t>(ci) * plane;
    float* dxc = dx + static_cast<uintptr_t>(ci) * plane;
    for (uint32_t oy = 0; oy < oh; ++oy) {
      const uint32_t iy0 = oy * sh - ph;
      const Span ry = inside(iy0, 1, kh, h);
      for (uint32_t ox = 0; ox < ow; ++ox, ++dy) {
        const uint32_t ix0 = ox * sw - pw;
        const uint32_t at = max_pick(xc, wd, iy0, ry, ix0, inside(ix0, 1, kw, wd));
        if (at != UINT32_MAX) dxc[at] = dxc[at] + *dy;
      }
    }
  }
}

}  // namespace tessera::fw
