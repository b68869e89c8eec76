// Native mode's vector kernels (native_simd.h): eight lanes of a column stride of 2 from two
// masked loads and a shuffle, where a gather would take many more instructions (conv2d's and
// maxpool2d's strided windows). Bits are moved, not computed. Host only.
#pragma once

#include <immintrin.h>

namespace tessera::fw::simd {

// The element masks of two loads of 16 columns from lane 0's, whose even elements are the
// lanes of a column stride of 2: element 2l of the pair is lane l's (`lanes` l), the odd
// ones read nothing.
__attribute__((target("avx2,fma"))) inline void pair_masks(__m256i lanes, __m256i& lo, __m256i& hi) {
  const __m256i even = _mm256_setr_epi32(-1, 0, -1, 0, -1, 0, -1, 0);
  lo = _mm256_and_si256(even, _mm256_permutevar8x32_epi32(lanes, _mm256_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3)));
  hi = _mm256_and_si256(even, _mm256_permutevar8x32_epi32(lanes, _mm256_setr_epi32(4, 4, 5, 5, 6, 6, 7, 7)));
}

// Lanes l = 0..7 of the columns at + 2l (the masked ones +0).
__attribute__((target("avx2,fma"))) inline __m256 load_pair(const float* at, __m256i lo, __m256i hi) {
  const __m256 a = _mm256_maskload_ps(at, lo), b = _mm256_maskload_ps(at + 8, hi);
  // per 128-bit half: a0 a2 b0 b2 | a4 a6 b4 b6; then the 64-bit pairs in the order 0 2 1 3
  const __m256 even = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));
  return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(even), _MM_SHUFFLE(3, 1, 2, 0)));
}

}  // namespace tessera::fw::simd
