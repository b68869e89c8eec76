// conv2d_grad_weight: the gradient of conv2d with respect to its weights, from one image
// (or a spatial block). x is [cin][h][wd], dy [cout][oh][ow], dw [cout][cin][kh][kw], all
// row-major, with conv2d's window coordinates iy = oy*sh + ky*dh - ph, ix = ox*sw + kx*dw
// - pw. For every co, ci, ky, kx (in that order):
//   acc = accumulate != 0 ? dw[co][ci][ky][kx] : +0
//   for oy, then ox (index order), if 0 <= iy < h and 0 <= ix < wd:
//     acc = fp_fma(dy[co][oy][ox], x[ci][iy][ix], acc)
//   dw[co][ci][ky][kx] = acc
// With accumulate set, one tile sums several images into dw: image after image, the same
// bits as one fma chain over the images' terms in that order. ph and pw are i32 (two's
// complement in the u32 field). (The bias gradient is channel_sum of dy.)
// State (codelets.h): [0] f32* dweight (cout*cin*kh*kw; "dw" above: the field's name
// differs from the dilation's, [16] dw), [1] const f32* x (cin*h*wd), [2] const
// f32* dy (cout*oh*ow), [3] u32 cin, [4] u32 h, [5] u32 wd, [6] u32 cout, [7] u32 oh,
// [8] u32 ow, [9] u32 kh, [10] u32 kw, [11] u32 sh, [12] u32 sw, [13] u32 ph (i32),
// [14] u32 pw (i32), [15] u32 dh, [16] u32 dw, [17] u32 accumulate. dw overlaps nothing.
#include "codelets/codelets.h"
#include "codelets/window.h"
#include "runtime/fp_rules.h"
#include "runtime/platform.h"

namespace tessera::fw {

extern "C" void codelet_conv2d_grad_weight(uint32_t state_addr) {
  const uint32_t* s = tile_ptr<const uint32_t>(state_addr, kWords_conv2d_grad_weight);
  const uint32_t cin = s[3], h = s[4], wd = s[5], cout = s[6], oh = s[7], ow = s[8];
  const uint32_t kh = s[9], kw = s[10], sh = s[11], sw = s[12], ph = s[13], pw = s[14];
  const uint32_t dh = s[15], dwl = s[16], accumulate = s[17];
  const uint32_t plane = h * wd, oplane = oh * ow;
  float* dw = tile_ptr<float>(s[0], extent(cout, cin, kh, kw));
  const float* x = tile_ptr<const float>(s[1], extent(cin, h, wd));
  const float* dy = tile_ptr<const float>(s[2], extent(cout, oh, ow));
  // Nothing to write (an extent is zero): return now rather than walk up to 2^32 - 1 empty
  // rows or channels (fuzz_control found that runaway in avgpool2d_grad and maxpool2d_grad).
  if (no_elements(cout, cin, kh, kw)) return;
  float* out = dw;
  for (uint32_t co = 0; co < cout; ++co) {
    const float* dyc = dy + static_cast<uintptr_t>(co) * oplane;
    for (uint32_t ci = 0; ci < cin; ++ci) {
      const float* xc = x + static_cast<uintptr_t>(ci) * plane;
      for (uint32_t ky = 0; ky < kh; ++ky) {
        const uint32_t iy0 = ky * dh - ph;  // iy of oy = 0
        const Span ry = inside(iy0, sh, oh, h);
        for (uint32_t kx = 0; kx < kw; ++kx, ++out) {
          const uint32_t ix0 = kx * dwl - pw;
          const Span rx = inside(ix0, sw, ow, wd);
          const uint32_t nx = rx.hi - rx.lo;
          float acc = accumulate ? *out : 0.0f;
          if (nx != 0) {
            for (uint32_t oy = ry.lo; oy < ry.hi; ++oy) {
              const float* xr = xc + static_cast<uintptr_t>(iy0 + oy * sh) * wd + (ix0 + rx.lo * sw);
              const float* dr = dyc + static_cast<uintptr_t>(oy) * ow + rx.lo;
#pragma GCC unroll 4  // the chain stays in order; the loads and the loop overlap its latency
              for (uint32_t j = 0; j < nx; ++j) acc = fp_fma(dr[j], xr[j * sw], acc);
            }
          }
          *out = acc;
        }
      }
    }
  }
}

}  // namespace tessera::fw
