// Native mode's vector kernels for the element-wise codelets (native_simd.h).
#include <immintrin.h>

#include "runtime/fp_rules.h"
#include "runtime/native_simd.h"

namespace tessera::fw::simd {

#define TESSERA_SIMD __attribute__((target("avx2,fma")))

TESSERA_SIMD void relu(uint32_t* dst, const uint32_t* src, uint32_t n) {
  const __m256i magnitude = _mm256_set1_epi32(0x7fffffff), inf = _mm256_set1_epi32(0x7f800000);
  const __m256i nan = _mm256_set1_epi32(static_cast<int>(kCanonicalNaN)), zero = _mm256_setzero_si256();
  uint32_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i));
    const __m256i is_nan = _mm256_cmpgt_epi32(_mm256_and_si256(v, magnitude), inf);  // both sides below 2^31
    const __m256i kept = _mm256_and_si256(v, _mm256_cmpgt_epi32(v, zero));           // sign clear and not +0
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), _mm256_blendv_epi8(kept, nan, is_nan));
  }
  for (; i < n; ++i) {  // the codelet's rule
    const uint32_t v = src[i];
    dst[i] = (v & 0x7fffffffu) > 0x7f800000u ? kCanonicalNaN : static_cast<int32_t>(v) > 0 ? v : 0u;
  }
}

TESSERA_SIMD void reduce_sum(float* out, const float* in, uint32_t n, uint32_t k) {
  uint32_t i = 0;
  if (k > 0) {
    for (; i + 8 <= n; i += 8) {
      __m256 acc = _mm256_loadu_ps(in + i);
      for (uint32_t j = 1; j < k; ++j) acc = _mm256_add_ps(acc, _mm256_loadu_ps(in + static_cast<size_t>(j) * n + i));
      _mm256_storeu_ps(out + i, acc);
    }
  }
  for (; i < n; ++i) {  // the last columns as the codelet does them
    float acc = k > 0 ? in[i] : 0.0f;
    for (uint32_t j = 1; j < k; ++j) acc = acc + in[static_cast<size_t>(j) * n + i];
    out[i] = acc;
  }
}

TESSERA_SIMD void sgd_momentum(float* w, float* v, const float* g, uint32_t n, float momentum, float alpha) {
  const __m256 mv = _mm256_set1_ps(momentum), av = _mm256_set1_ps(alpha);
  uint32_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 vi = _mm256_mul_ps(_mm256_loadu_ps(v + i), mv);
    vi = _mm256_add_ps(vi, _mm256_loadu_ps(g + i));
    _mm256_storeu_ps(v + i, vi);
    _mm256_storeu_ps(w + i, _mm256_fmadd_ps(vi, av, _mm256_loadu_ps(w + i)));
  }
  for (; i < n; ++i) {
    float vi = v[i] * momentum;
    vi = vi + g[i];
    v[i] = vi;
    w[i] = fp_fma(vi, alpha, w[i]);
  }
}

}  // namespace tessera::fw::simd
