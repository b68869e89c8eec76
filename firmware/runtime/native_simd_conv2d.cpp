// Native mode's vector conv2d kernel (native_simd.h).
#include <immintrin.h>

#include <algorithm>

#include "codelets/window.h"
#include "runtime/native_simd.h"

namespace tessera::fw::simd {
namespace {

#define TESSERA_SIMD __attribute__((target("avx2,fma")))

TESSERA_SIMD inline __m256i lanes_below(int n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

constexpr uint32_t kMaxKw = 16;  // wider kernels take the codelet's loop

// R output channels (co .. co+R-1) by `cols` (<= 8) output columns from ox (column stride
// 1), on ROWS output rows from oy that take the same kernel rows ry. Lane l is output
// column ox + l; its term (ci, ky, kx) reads x column ox + l - pw + kx dw, and is in its
// chain only when that column is inside x: masks[kx] has those lanes, and a lane outside
// keeps its accumulator (blend), so every lane runs exactly the codelet's chain over ci,
// ky, kx. kFull: every lane of every kx is inside. The R x ROWS chains are independent,
// which hides the FMA unit's latency.
template <int R, int ROWS, bool kFull>
TESSERA_SIMD void block(float* y, const float* x, const float* w, const float* b, const Conv2dShape& s, uint32_t co,
                        uint32_t oy, Span ry, uint32_t ox, const __m256i* masks) {
  const uint32_t plane = s.h * s.wd, kplane = s.kh * s.kw;
  __m256 acc[ROWS][R];
#pragma GCC unroll 8
  for (int q = 0; q < ROWS; ++q)
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) acc[q][r] = _mm256_setzero_ps();
  const float* x0 = x + static_cast<intptr_t>(static_cast<int64_t>(ox) - static_cast<int32_t>(s.pw));  // lane 0, kx = 0
  for (uint32_t ci = 0; ci < s.cin; ++ci) {
    const float* xc = x0 + static_cast<uintptr_t>(ci) * plane;
    const float* wc = w + (static_cast<uintptr_t>(co) * s.cin + ci) * kplane;
    for (uint32_t ky = ry.lo; ky < ry.hi; ++ky) {
      const float* xr[ROWS];
#pragma GCC unroll 8
      for (int q = 0; q < ROWS; ++q)
        xr[q] = xc + static_cast<uintptr_t>((oy + q) * s.sh - s.ph + ky * s.dh) * s.wd;
      const float* wr = wc + ky * s.kw;
      for (uint32_t kx = 0; kx < s.kw; ++kx) {
        __m256 wv[R];
#pragma GCC unroll 8
        for (int r = 0; r < R; ++r) wv[r] = _mm256_broadcast_ss(wr + static_cast<uintptr_t>(r) * s.cin * kplane + kx);
#pragma GCC unroll 8
        for (int q = 0; q < ROWS; ++q) {
          const __m256 xv = _mm256_maskload_ps(xr[q] + kx * s.dw, masks[kx]);
#pragma GCC unroll 8
          for (int r = 0; r < R; ++r) {
            const __m256 f = _mm256_fmadd_ps(xv, wv[r], acc[q][r]);
            acc[q][r] = kFull ? f : _mm256_blendv_ps(acc[q][r], f, _mm256_castsi256_ps(masks[kx]));
          }
        }
      }
    }
  }
  const __m256i store = masks[s.kw];  // the lanes that are output columns
#pragma GCC unroll 8
  for (int q = 0; q < ROWS; ++q)
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const __m256 out = _mm256_add_ps(acc[q][r], _mm256_broadcast_ss(b + co + r));
      _mm256_maskstore_ps(y + (static_cast<uintptr_t>(co + r) * s.oh + oy + q) * s.ow + ox, store, out);
    }
}

template <int R, int ROWS>
TESSERA_SIMD void channels(float* y, const float* x, const float* w, const float* b, const Conv2dShape& s,
                           uint32_t co) {
  const int64_t pw = static_cast<int32_t>(s.pw);
  for (uint32_t ox = 0; ox < s.ow; ox += 8) {
    const int cols = static_cast<int>(std::min<uint32_t>(8, s.ow - ox));
    // masks[kx]: lanes whose x column is inside x (and that are output columns); masks[kw]:
    // the output columns. full: every lane of every kx inside.
    __m256i masks[kMaxKw + 1];
    const __m256i lanes = lanes_below(cols);
    bool full = cols == 8;
    for (uint32_t kx = 0; kx < s.kw; ++kx) {
      const int64_t first = static_cast<int64_t>(ox) - pw + static_cast<int64_t>(kx) * s.dw;  // lane 0's column
      // lane l inside when 0 <= first + l < wd: l in [-first, wd - first)
      const int64_t lo = std::clamp<int64_t>(-first, 0, 8), hi = std::clamp<int64_t>(static_cast<int64_t>(s.wd) - first, 0, 8);
      const __m256i in = _mm256_andnot_si256(lanes_below(static_cast<int>(lo)), lanes_below(static_cast<int>(hi)));
      masks[kx] = _mm256_and_si256(in, lanes);
      full = full && lo == 0 && hi == 8;
    }
    masks[s.kw] = lanes;
    for (uint32_t oy = 0; oy < s.oh;) {
      const Span ry = inside(oy * s.sh - s.ph, s.dh, s.kh, s.h);
      // ROWS rows at once when they all take the same kernel rows, else one.
      bool same = oy + ROWS <= s.oh;
      for (uint32_t q = 1; same && q < ROWS; ++q) {
        const Span rq = inside((oy + q) * s.sh - s.ph, s.dh, s.kh, s.h);
        same = rq.lo == ry.lo && rq.hi == ry.hi;
      }
      if (same && ROWS > 1) {
        if (full) block<R, ROWS, true>(y, x, w, b, s, co, oy, ry, ox, masks);
        else block<R, ROWS, false>(y, x, w, b, s, co, oy, ry, ox, masks);
        oy += ROWS;
      } else {
        if (full) block<R, 1, true>(y, x, w, b, s, co, oy, ry, ox, masks);
        else block<R, 1, false>(y, x, w, b, s, co, oy, ry, ox, masks);
        oy += 1;
      }
    }
  }
}

}  // namespace

bool conv2d(float* y, const float* x, const float* w, const float* b, const Conv2dShape& s) {
  if (s.sw != 1 || s.kw == 0 || s.kh == 0 || s.kw > kMaxKw) return false;
  // Column arithmetic in int64 equals the codelet's in u32 while nothing wraps: sizes,
  // pads and dilations far below 2^31 (every real convolution).
  constexpr uint32_t kSane = 1u << 20;
  const int32_t pw = static_cast<int32_t>(s.pw);
  if (s.wd >= kSane || s.ow >= kSane || s.dw >= kSane / kMaxKw || pw >= static_cast<int32_t>(kSane) ||
      pw <= -static_cast<int32_t>(kSane))
    return false;
  uint32_t co = 0;
  for (; co + 4 <= s.cout; co += 4) channels<4, 2>(y, x, w, b, s, co);
  for (; co + 2 <= s.cout; co += 2) channels<2, 4>(y, x, w, b, s, co);
  for (; co < s.cout; ++co) channels<1, 4>(y, x, w, b, s, co);
  return true;
}

}  // namespace tessera::fw::simd
