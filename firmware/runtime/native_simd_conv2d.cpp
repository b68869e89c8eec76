// Native mode's vector conv2d kernel (native_simd.h).
#include <immintrin.h>

#include <algorithm>

#include "codelets/window.h"
#include "runtime/fp_rules.h"
#include "runtime/native_simd.h"

namespace tessera::fw::simd {
namespace {

#define TESSERA_SIMD __attribute__((target("avx2,fma")))

// One output as the codelet computes it (the chain over ci, ky, kx of the terms inside x).
TESSERA_SIMD float one_output(const float* x, const float* wco, const Conv2dShape& s, uint32_t iy0, Span ry,
                              uint32_t ox) {
  const uint32_t ix0 = ox * s.sw - s.pw;
  const Span rx = inside(ix0, s.dw, s.kw, s.wd);
  const uint32_t nx = rx.hi - rx.lo;
  float acc = 0.0f;
  if (nx == 0 || ry.lo == ry.hi) return acc;
  const uint32_t plane = s.h * s.wd, kplane = s.kh * s.kw;
  const float* xstart = x + (ix0 + rx.lo * s.dw);
  for (uint32_t ci = 0; ci < s.cin; ++ci) {
    const float* xc = xstart + static_cast<uintptr_t>(ci) * plane;
    const float* wc = wco + static_cast<uintptr_t>(ci) * kplane + rx.lo;
    for (uint32_t ky = ry.lo; ky < ry.hi; ++ky) {
      const float* xr = xc + static_cast<uintptr_t>(iy0 + ky * s.dh) * s.wd;
      const float* wr = wc + ky * s.kw;
      for (uint32_t j = 0; j < nx; ++j) acc = fp_fma(xr[j * s.dw], wr[j], acc);
    }
  }
  return acc;
}

TESSERA_SIMD inline __m256i lanes_below(int n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// R output channels (co .. co+R-1) by `cols` (<= 8) output columns from ox, every one of
// whose kernel rows lies inside x (column stride 1): y = chain + bias per lane.
template <int R>
TESSERA_SIMD void block(float* y, const float* x, const float* w, const float* b, const Conv2dShape& s,
                        uint32_t co, uint32_t oy, uint32_t iy0, Span ry, uint32_t ox, int cols) {
  const uint32_t plane = s.h * s.wd, kplane = s.kh * s.kw;
  const __m256i mask = lanes_below(cols);
  __m256 acc[R];
  for (int r = 0; r < R; ++r) acc[r] = _mm256_setzero_ps();
  const float* x0 = x + (ox - s.pw);  // column of kx = 0 for lane 0
  for (uint32_t ci = 0; ci < s.cin; ++ci) {
    const float* xc = x0 + static_cast<uintptr_t>(ci) * plane;
    const float* wc = w + (static_cast<uintptr_t>(co) * s.cin + ci) * kplane;
    for (uint32_t ky = ry.lo; ky < ry.hi; ++ky) {
      const float* xr = xc + static_cast<uintptr_t>(iy0 + ky * s.dh) * s.wd;
      const float* wr = wc + ky * s.kw;
      for (uint32_t kx = 0; kx < s.kw; ++kx) {
        const __m256 xv = _mm256_maskload_ps(xr + kx * s.dw, mask);
        for (int r = 0; r < R; ++r)
          acc[r] = _mm256_fmadd_ps(xv, _mm256_broadcast_ss(wr + static_cast<uintptr_t>(r) * s.cin * kplane + kx),
                                   acc[r]);
      }
    }
  }
  for (int r = 0; r < R; ++r) {
    const __m256 out = _mm256_add_ps(acc[r], _mm256_broadcast_ss(b + co + r));
    _mm256_maskstore_ps(y + (static_cast<uintptr_t>(co + r) * s.oh + oy) * s.ow + ox, mask, out);
  }
}

template <int R>
TESSERA_SIMD void channels(float* y, const float* x, const float* w, const float* b, const Conv2dShape& s,
                           uint32_t co) {
  // Columns whose kernel row lies wholly inside x: 0 <= ox - pw and ox - pw + (kw-1) dw < wd.
  const int64_t pw = static_cast<int32_t>(s.pw);
  const int64_t lo = std::clamp<int64_t>(pw, 0, s.ow);
  const int64_t hi = std::clamp<int64_t>(static_cast<int64_t>(s.wd) + pw - static_cast<int64_t>(s.kw - 1) * s.dw, lo, s.ow);
  for (uint32_t oy = 0; oy < s.oh; ++oy) {
    const uint32_t iy0 = oy * s.sh - s.ph;
    const Span ry = inside(iy0, s.dh, s.kh, s.h);
    auto scalar = [&](uint32_t ox) {
      for (int r = 0; r < R; ++r) {
        const float* wco = w + static_cast<uintptr_t>(co + r) * s.cin * s.kh * s.kw;
        y[(static_cast<uintptr_t>(co + r) * s.oh + oy) * s.ow + ox] = one_output(x, wco, s, iy0, ry, ox) + b[co + r];
      }
    };
    if (ry.lo == ry.hi) {  // no kernel row inside x: every output is +0 + bias
      for (uint32_t ox = 0; ox < s.ow; ++ox) scalar(ox);
      continue;
    }
    for (uint32_t ox = 0; ox < lo; ++ox) scalar(ox);
    for (int64_t ox = lo; ox < hi; ox += 8)
      block<R>(y, x, w, b, s, co, oy, iy0, ry, static_cast<uint32_t>(ox), static_cast<int>(std::min<int64_t>(8, hi - ox)));
    for (uint32_t ox = static_cast<uint32_t>(hi); ox < s.ow; ++ox) scalar(ox);
  }
}

}  // namespace

bool conv2d(float* y, const float* x, const float* w, const float* b, const Conv2dShape& s) {
  if (s.sw != 1 || s.kw == 0 || s.kh == 0) return false;
  uint32_t co = 0;
  for (; co + 4 <= s.cout; co += 4) channels<4>(y, x, w, b, s, co);
  for (; co < s.cout; ++co) channels<1>(y, x, w, b, s, co);
  return true;
}

}  // namespace tessera::fw::simd
