// avgpool2d: average pooling of c planes (one image, or a spatial block), PyTorch's
// avg_pool2d rule (CPU kernel, torch 1.13) with ONNX's separate pads. x is [c][h][wd], y
// [c][oh][ow], row-major. For every ci, oy, ox (i32 arithmetic):
//   hs = oy*sh - pt, he = min(hs + kh, h + pb), ws = ox*sw - pl, we = min(ws + kw, wd + pr)
//   pool = (he - hs) * (we - ws)                    (the window, padding included)
//   hs, ws = max(hs, 0), max(ws, 0); he, we = min(he, h), min(we, wd)   (clipped)
//   if hs >= he or ws >= we: y = +0 (no element inside; as PyTorch)
//   sum = +0 + x[hs][ws] + x[hs][ws+1] + ... (rows, then columns, in index order)
//   y = sum / f32(count_include_pad != 0 ? pool : (he - hs) * (we - ws))
// each + and the / rounded once (RNE). GlobalAveragePool is kh = h, kw = wd, no pads.
// pt and pl are i32 (two's complement in the field; negative for a block inside x), pb
// and pr >= 0.
// State (codelets.h): [0] f32* y (c*oh*ow), [1] const f32* x (c*h*wd), [2] u32 c, [3] u32 h,
// [4] u32 wd, [5] u32 oh, [6] u32 ow, [7] u32 kh, [8] u32 kw, [9] u32 sh, [10] u32 sw,
// [11] u32 pt (i32), [12] u32 pl (i32), [13] u32 pb, [14] u32 pr, [15] u32
// count_include_pad. y overlaps nothing.
#include "codelets/codelets.h"
#include "codelets/window.h"
#include "runtime/fp_rules.h"
#include "runtime/platform.h"

namespace tessera::fw {

extern "C" void codelet_avgpool2d(uint32_t state_addr) {
  const uint32_t* s = tile_ptr<const uint32_t>(state_addr, kWords_avgpool2d);
  const uint32_t c = s[2], h = s[3], wd = s[4], oh = s[5], ow = s[6], kh = s[7], kw = s[8];
  const uint32_t sh = s[9], sw = s[10], pt = s[11], pl = s[12], pb = s[13], pr = s[14];
  const bool include_pad = s[15] != 0;
  const uint32_t plane = h * wd;
  float* y = tile_ptr<float>(s[0], extent(c, oh, ow));
  const float* x = tile_ptr<const float>(s[1], extent(c, h, wd));
  // Nothing to write (an extent is zero): return now rather than walk up to 2^32 - 1 empty
  // rows or channels (fuzz_control found that runaway in avgpool2d_grad and maxpool2d_grad).
  if (no_elements(c, oh, ow)) return;
  for (uint32_t ci = 0; ci < c; ++ci) {
    const float* xc = x + static_cast<uintptr_t>(ci) * plane;
    for (uint32_t oy = 0; oy < oh; ++oy) {
      const PoolRange ry = pool_range(oy, sh, pt, kh, h, pb);
      for (uint32_t ox = 0; ox < ow; ++ox, ++y) {
        const PoolRange rx = pool_range(ox, sw, pl, kw, wd, pr);
        if (ry.lo >= ry.hi || rx.lo >= rx.hi) {
          *y = 0.0f;
          continue;
        }
        float sum = 0.0f;
        for (int32_t iy = ry.lo; iy < ry.hi; ++iy) {
          const float* row = xc + static_cast<uintptr_t>(iy) * wd;
          for (int32_t ix = rx.lo; ix < rx.hi; ++ix) sum = sum + row[ix];
        }
        // u32 products (no i32 overflow for absurd pads; the inside part is at most h x wd)
        const uint32_t full = static_cast<uint32_t>(ry.full) * static_cast<uint32_t>(rx.full);
        const int32_t count = static_cast<int32_t>(include_pad ? full : static_cast<uint32_t>(ry.hi - ry.lo) * static_cast<uint32_t>(rx.hi - rx.lo));
        *y = sum / static_cast<float>(count);
      }
    }
  }
}

}  // namespace tessera::fw
