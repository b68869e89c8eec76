// Native mode's vector maxpool2d kernel (native_simd.h).
#include <immintrin.h>

#include <algorithm>

#include "codelets/window.h"
#include "runtime/native_simd.h"
#include "runtime/native_simd_pairs.h"

namespace tessera::fw::simd {
namespace {

#define TESSERA_SIMD __attribute__((target("avx2,fma")))

constexpr uint32_t kMaxKw = 16;  // wider windows take the codelet's loop

}  // namespace

TESSERA_SIMD bool maxpool2d(uint32_t* y, const float* x, const Pool2dShape& s) {
  // Column arithmetic in int64 and gather indices in i32 equal the codelet's u32 while
  // nothing wraps: sizes, strides and pads far below 2^31.
  constexpr int64_t kSane = 1 << 20;
  const int64_t pw = static_cast<int32_t>(s.pw);
  if (s.kw == 0 || s.kw > kMaxKw || s.wd >= kSane || s.ow >= kSane || s.sw >= kSane / 8 || pw >= kSane ||
      pw <= -kSane || static_cast<int64_t>(s.wd) * s.h >= (int64_t{1} << 30))
    return false;
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256 neg_inf = _mm256_castsi256_ps(_mm256_set1_epi32(static_cast<int>(0xff800000u)));
  const uint32_t plane = s.h * s.wd;
  for (uint32_t ox = 0; ox < s.ow; ox += 8) {
    const int cols = static_cast<int>(std::min<uint32_t>(8, s.ow - ox));
    const __m256i out_lanes = _mm256_cmpgt_epi32(_mm256_set1_epi32(cols), lane);
    // Per kx: each lane's x column and whether it is inside x (and the lane an output); at a
    // column stride of 2 the masks of load_pair's two loads too.
    const int64_t first = static_cast<int64_t>(ox) * s.sw - pw;  // lane 0's column at kx = 0
    __m256i col[kMaxKw], valid[kMaxKw], lo[kMaxKw], hi[kMaxKw];
    for (uint32_t kx = 0; kx < s.kw; ++kx) {
      col[kx] = _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(first + kx)),
                                 _mm256_mullo_epi32(lane, _mm256_set1_epi32(static_cast<int>(s.sw))));
      const __m256i ge0 = _mm256_cmpgt_epi32(col[kx], _mm256_set1_epi32(-1));
      const __m256i ltw = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(s.wd)), col[kx]);
      valid[kx] = _mm256_and_si256(_mm256_and_si256(ge0, ltw), out_lanes);
      if (s.sw == 2) pair_masks(valid[kx], lo[kx], hi[kx]);
    }
    for (uint32_t ci = 0; ci < s.c; ++ci) {
      const float* xc = x + static_cast<uintptr_t>(ci) * plane;
      for (uint32_t oy = 0; oy < s.oh; ++oy) {
        const uint32_t iy0 = oy * s.sh - s.ph;
        const Span ry = inside(iy0, 1, s.kh, s.h);
        __m256 m = neg_inf;
        __m256 has = _mm256_setzero_ps();  // lanes that have picked an element
        for (uint32_t ky = ry.lo; ky < ry.hi; ++ky) {
          const float* row = xc + static_cast<uintptr_t>(iy0 + ky) * s.wd;
          for (uint32_t kx = 0; kx < s.kw; ++kx) {
            const __m256 ok = _mm256_castsi256_ps(valid[kx]);
            const __m256 v = s.sw == 2 ? load_pair(row + first + kx, lo[kx], hi[kx])
                                       : _mm256_mask_i32gather_ps(_mm256_setzero_ps(), row, col[kx], ok, 4);
            // take: inside, and the lane's first element, or larger, or a NaN
            const __m256 better = _mm256_or_ps(_mm256_cmp_ps(v, m, _CMP_GT_OQ), _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
            const __m256 take = _mm256_and_ps(ok, _mm256_or_ps(_mm256_andnot_ps(has, ok), better));
            m = _mm256_blendv_ps(m, v, take);
            has = _mm256_or_ps(has, ok);
          }
        }
        // A lane with nothing inside keeps -inf.
        _mm256_maskstore_ps(reinterpret_cast<float*>(y + (static_cast<uintptr_t>(ci) * s.oh + oy) * s.ow + ox), out_lanes, m);
      }
    }
  }
  return true;
}

}  // namespace tessera::fw::simd
