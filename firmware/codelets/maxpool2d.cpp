// maxpool2d: max pooling of c planes (one image, or a spatial block). x is [c][h][wd], y
// [c][oh][ow], row-major. For every ci, oy, ox: the window's elements x[ci][iy][ix] with
// iy = oy*sh + ky - ph, ix = ox*sw + kx - pw for ky < kh, kx < kw, those inside the plane
// only (padding never wins), in index order (ky, then kx); PyTorch's rule picks one: the
// first element, replaced by a later one when that is larger (>) or a NaN. y is the picked
// element itself (its bits: a NaN keeps its payload, -0 and +0 stay as they are). A window
// with no element inside gives -inf. ph and pw are i32 (two's complement in the field).
// State (codelets.h): [0] f32* y (c*oh*ow), [1] const f32* x (c*h*wd), [2] u32 c, [3] u32 h,
// [4] u32 wd, [5] u32 oh, [6] u32 ow, [7] u32 kh, [8] u32 kw, [9] u32 sh, [10] u32 sw,
// [11] u32 ph (i32), [12] u32 pw (i32). y overlaps nothing.
#include "codelets/codelets.h"
#include "codelets/window.h"
#include "runtime/fp_rules.h"
#include "runtime/platform.h"
#if !defined(__riscv)
#include "runtime/native_simd.h"
#endif

namespace tessera::fw {

extern "C" void codelet_maxpool2d(uint32_t state_addr) {
  const uint32_t* s = tile_ptr<const uint32_t>(state_addr, kWords_maxpool2d);
  const uint32_t c = s[2], h = s[3], wd = s[4], oh = s[5], ow = s[6], kh = s[7], kw = s[8];
  const uint32_t sh = s[9], sw = s[10], ph = s[11], pw = s[12];
  const uint32_t plane = h * wd;
  uint32_t* y = tile_ptr<uint32_t>(s[0], extent(c, oh, ow));
  const float* x = tile_ptr<const float>(s[1], extent(c, h, wd));
  // Nothing to write (an extent is zero): return now rather than walk up to 2^32 - 1 empty
  // rows or channels (fuzz_control found that runaway in avgpool2d_grad and maxpool2d_grad).
  if (no_elements(c, oh, ow)) return;
#if !defined(__riscv)
  // The same picks, eight output columns at once (native_simd.h).
  if (simd::enabled() && simd::maxpool2d(y, x, {c, h, wd, oh, ow, kh, kw, sh, sw, ph, pw})) return;
#endif
  for (uint32_t ci = 0; ci < c; ++ci) {
    const float* xc = x + static_cast<uintptr_t>(ci) * plane;
    for (uint32_t oy = 0; oy < oh; ++oy) {
      const uint32_t iy0 = oy * sh - ph;
      const Span ry = inside(iy0, 1, kh, h);
      for (uint32_t ox = 0; ox < ow; ++ox, ++y) {
        const uint32_t ix0 = ox * sw - pw;
        const uint32_t at = max_pick(xc, wd, iy0, ry, ix0, inside(ix0, 1, kw, wd));
        *y = at == UINT32_MAX ? 0xff800000u : f2u(xc[at]);
      }
    }
  }
}

}  // namespace tessera::fw
