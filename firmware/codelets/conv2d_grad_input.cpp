// conv2d_grad_input: the gradient of conv2d with respect to its input, for one image (or a
// spatial block): the transposed convolution of dy with w. dy is [cout][oh][ow], w
// [cout][cin][kh][kw], dx [cin][h][wd], all row-major, with conv2d's window coordinates
// iy = oy*sh + ky*dh - ph, ix = ox*sw + kx*dw - pw. For every ci, iy, ix (in that order):
//   acc = +0; for co, then ky, then kx (index order), if the forward maps (oy, ox) onto
//   (iy, ix) for some 0 <= oy < oh, 0 <= ox < ow (iy + ph - ky*dh >= 0 and divisible by
//   sh, likewise for x, the quotients in range):
//     acc = fp_fma(dy[co][oy][ox], w[co][ci][ky][kx], acc)
//   dx[ci][iy][ix] = acc
// (terms that map nowhere are skipped, as conv2d skips padding). ph and pw are i32 (two's
// complement in the u32 field). Strides must be >= 1: sh = 0 or sw = 0 writes nothing.
// State (codelets.h): [0] f32* dx (cin*h*wd), [1] const f32* dy (cout*oh*ow), [2] const
// f32* w (cout*cin*kh*kw), [3] u32 cin, [4] u32 h, [5] u32 wd, [6] u32 cout, [7] u32 oh,
// [8] u32 ow, [9] u32 kh, [10] u32 kw, [11] u32 sh, [12] u32 sw, [13] u32 ph (i32),
// [14] u32 pw (i32), [15] u32 dh, [16] u32 dw. dx overlaps nothing.
#include "codelets/codelets.h"
#include "codelets/window.h"
#include "runtime/fp_rules.h"
#include "runtime/platform.h"

namespace tessera::fw {

extern "C" void codelet_conv2d_grad_input(uint32_t state_addr) {
  const uint32_t* s = tile_ptr<const uint32_t>(state_addr, kWords_conv2d_grad_input);
  const uint32_t cin = s[3], h = s[4], wd = s[5], cout = s[6], oh = s[7], ow = s[8];
  const uint32_t kh = s[9], kw = s[10], sh = s[11], sw = s[12], ph = s[13], pw = s[14];
  const uint32_t dh = s[15], dw = s[16];
  if (sh == 0 || sw == 0) return;
  const uint32_t oplane = oh * ow, kplane = kh * kw;
  float* dx = tile_ptr<float>(s[0], extent(cin, h, wd));
  const float* dy = tile_ptr<const float>(s[1], extent(cout, oh, ow));
  const float* w = tile_ptr<const float>(s[2], extent(cout, cin, kh, kw));
  // Nothing to write (an extent is zero): return now rather than walk up to 2^32 - 1 empty
  // rows or channels (fuzz_control found that runaway in avgpool2d_grad and maxpool2d_grad).
  if (no_elements(cin, h, wd)) return;
  // No term in any sum (dy or w empty): dx = +0, without scanning up to 2^32 - 1 kernel rows
  // per input row that no tensor bounds.
  if (no_elements(cout, oh, ow, kh, kw)) {
    for (uint32_t i = 0, n = cin * h * wd; i < n; ++i) dx[i] = 0.0f;  // dx checked: no wrap
    return;
  }
  const uintptr_t wco_step = static_cast<uintptr_t>(cin) * kplane;
  for (uint32_t ci = 0; ci < cin; ++ci) {
    for (uint32_t iy = 0; iy < h; ++iy) {
      const Taps ty = taps(static_cast<int32_t>(iy + ph), dh, sh, kh, oh);
      for (uint32_t ix = 0; ix < wd; ++ix) {
        const Taps tx = taps(static_cast<int32_t>(ix + pw), dw, sw, kw, ow);
        float acc = 0.0f;
        if (ty.count != 0 && tx.count != 0) {
          // the first tap's dy and w, then steps: dy back by ostep, w on by kstep
          const float* dyc = dy + static_cast<uintptr_t>(ty.o0) * ow + tx.o0;
          const float* wc = w + static_cast<uintptr_t>(ci) * kplane + ty.k0 * kw + tx.k0;
          const uintptr_t dy_row = static_cast<uintptr_t>(ty.ostep) * ow, w_row = ty.kstep * kw;
          for (uint32_t co = 0; co < cout; ++co) {
            const float* dr = dyc;
            const float* wr = wc;
            for (uint32_t j = 0; j < ty.count; ++j) {
              const float* dp = dr;
              const float* wp = wr;
#pragma GCC unroll 4  // the chain stays in order; the loads and the loop overlap its latency
              for (uint32_t i = 0; i < tx.count; ++i) {
                acc = fp_fma(*dp, *wp, acc);
                dp -= tx.ostep;
                wp += tx.kstep;
              }
              dr -= dy_row;
              wr += w_row;
            }
            dyc += oplane;
            wc += wco_step;
          }
        }
        dx[(static_cast<uintptr_t>(ci) * h + iy) * wd + ix] = acc;
      }
    }
  }
}

}  // namespace tessera::fw
