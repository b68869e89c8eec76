// avgpool2d_grad: the gradient of avgpool2d (same shapes and window fields), PyTorch's
// avg_pool2d backward (CPU kernel, torch 1.13). dx is [c][h][wd], dy [c][oh][ow],
// row-major. dx = +0 everywhere first; then for every ci, oy, ox in order, with the
// window, pool and divisor of avgpool2d.cpp:
//   g = dy[ci][oy][ox] / f32(divisor)     (one rounding)
//   dx[ci][iy][ix] = dx[ci][iy][ix] + g   for each element inside the window, rows then
//                                         columns in index order
// (a window with no element inside adds nothing).
// State (codelets.h): [0] f32* dx (c*h*wd), [1] const f32* dy (c*oh*ow), [2] u32 c, [3] u32
// h, [4] u32 wd, [5] u32 oh, [6] u32 ow, [7] u32 kh, [8] u32 kw, [9] u32 sh, [10] u32 sw,
// [11] u32 pt (i32), [12] u32 pl (i32), [13] u32 pb, [14] u32 pr, [15] u32
// count_include_pad. dx overlaps nothing.
#include "codelets/codelets.h"
#include "codelets/window.h"
#include "runtime/fp_rules.h"
#include "runtime/platform.h"

namespace tessera::fw {

extern "C" void codelet_avgpool2d_grad(uint32_t state_addr) {
  const uint32_t* s = tile_ptr<const uint32_t>(state_addr, kWords_avgpool2d_grad);
  const uint32_t c = s[2], h = s[3], wd = s[4], oh = s[5], ow = s[6], kh = s[7], kw = s[8];
  const uint32_t sh = s[9], sw = s[10], pt = s[11], pl = s[12], pb = s[13], pr = s[14];
  const bool include_pad = s[15] != 0;
  const uint32_t plane = h * wd;
  float* dx = tile_ptr<float>(s[0], extent(c, h, wd));
  const float* dy = tile_ptr<const float>(s[1], extent(c, oh, ow));
  for (uint32_t i = 0, n = c * plane; i < n; ++i) dx[i] = 0.0f;
  // No dy element (c, oh or ow zero): nothing to add. Return now rather than walk up to
  // 2^32 - 1 empty rows (found by fuzz_control: minutes in one vertex).
  if (no_elements(c, oh, ow)) return;
  for (uint32_t ci = 0; ci < c; ++ci) {
    float* dxc = dx + static_cast<uintptr_t>(ci) * plane;
    for (uint32_t oy = 0; oy < oh; ++oy) {
      const PoolRange ry = pool_range(oy, sh, pt, kh, h, pb);
      for (uint32_t ox = 0; ox < ow; ++ox, ++dy) {
        const PoolRange rx = pool_range(ox, sw, pl, kw, wd, pr);
        if (ry.lo >= ry.hi || rx.lo >= rx.hi) continue;
        // u32 products (no i32 overflow for absurd pads; the inside part is at most h x wd)
        const uint32_t full = static_cast<uint32_t>(ry.full) * static_cast<uint32_t>(rx.full);
        const int32_t count = static_cast<int32_t>(include_pad ? full : static_cast<uint32_t>(ry.hi - ry.lo) * static_cast<uint32_t>(rx.hi - rx.lo));
        const float g = *dy / static_cast<float>(count);
        for (int32_t iy = ry.lo; iy < ry.hi; ++iy) {
          float* row = dxc + static_cast<uintptr_t>(iy) * wd;
          for (int32_t ix = rx.lo; ix < rx.hi; ++ix) row[ix] = row[ix] + g;
        }
      }
    }
  }
}

}  // namespace tessera::fw
