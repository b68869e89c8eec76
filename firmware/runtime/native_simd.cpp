// Native mode's vector matmul kernels and their run-time switch (native_simd.h).
#include "runtime/native_simd.h"

#include <immintrin.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace tessera::fw::simd {
namespace {

bool cpu_has_fma() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

bool cpu_has_avx512vl() {
  __builtin_cpu_init();
  return cpu_has_fma() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
}

bool initial_setting() {
  const char* env = std::getenv("TESSERA_NATIVE_SIMD");
  if (env && std::strcmp(env, "0") == 0) return false;
  return cpu_has_fma();
}

std::atomic<bool> g_enabled{initial_setting()};
std::atomic<bool> g_avx512{cpu_has_avx512vl()};

bool initial_wide() {
  const char* env = std::getenv("TESSERA_NATIVE_WIDE");
  return !(env && std::strcmp(env, "0") == 0);
}

std::atomic<bool> g_wide{initial_wide()};
std::atomic<bool> g_phased{true};

#define TESSERA_SIMD __attribute__((target("avx2,fma")))

// Lane masks for the last, partial block of columns: lanes < n are set.
TESSERA_SIMD inline __m256i lanes_below(int n) {
  const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), idx);
}

// Asks for row p + 64 of b's 16 * V columns while row p is read (a prefetch at every 16
// columns and at the last reaches every cache line they touch). A matmul vertex's b lies in
// its tile's SRAM, cold (AlexNet's classifier: 234 MB over its tiles, read once an image),
// and its rows may be short (14 columns: a 4 KB page every 70 rows), where the hardware's
// prefetchers, which stop at each page, left the loads waiting on memory: AlexNet's matmuls
// took about 17 GB/s of a core's 44 (docs/speed.md). A prefetch never faults: the rows
// past b's end cost a useless fetch, nothing else (the address is computed as an integer).
template <int V>
TESSERA_SIMD inline void prefetch_ahead(const float* row, size_t ldb) {
  constexpr size_t kAhead = 64;  // rows: about 300 cycles of a latency-bound block
  const uintptr_t at = reinterpret_cast<uintptr_t>(row) + kAhead * ldb * sizeof(float);
  #pragma GCC unroll 4
  for (int v = 0; v < V; ++v) _mm_prefetch(reinterpret_cast<const char*>(at + 16 * v * sizeof(float)), _MM_HINT_T0);
  _mm_prefetch(reinterpret_cast<const char*>(at + (16 * V - 1) * sizeof(float)), _MM_HINT_T0);
}

// R rows (i .. i+R-1) by V blocks of 16 columns (j .. j+16V-1) of c; kFull: all 16V columns
// exist, else `cols` (< 16V) of them, loaded and stored under masks. Each lane's accumulator
// runs the chain over p in order: acc = fma(a(i, p), b(p, j), acc), one rounding per step.
// A block runs 2 * R * V chains side by side: a chain is bound by the FMA's latency (4
// cycles a step), so a block of one row takes 4 column blocks (8 chains) at once, of two
// rows 2: a vertex of one row of a (a classifier at batch 1) then runs as fast as one of 4.
template <int R, int V, bool kFull>
TESSERA_SIMD inline void block(float* c, size_t ldc, const float* a, size_t sai, size_t sap, const float* b,
                               size_t ldb, uint32_t k, int cols) {
  constexpr int W = 2 * V;  // 8-lane vectors a row
  __m256 acc[R][W];
  #pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
    #pragma GCC unroll 8
    for (int w = 0; w < W; ++w) acc[r][w] = _mm256_setzero_ps();
  __m256i mask[W];
  #pragma GCC unroll 8
  for (int w = 0; w < W; ++w) mask[w] = kFull ? _mm256_setzero_si256() : lanes_below(cols - 8 * w);
  for (uint32_t p = 0; p < k; ++p) {
    const float* bp = b + p * ldb;
    prefetch_ahead<V>(bp, ldb);
    __m256 bv[W];
    #pragma GCC unroll 8
    for (int w = 0; w < W; ++w) bv[w] = kFull ? _mm256_loadu_ps(bp + 8 * w) : _mm256_maskload_ps(bp + 8 * w, mask[w]);
    const float* ap = a + p * sap;
    #pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const __m256 av = _mm256_broadcast_ss(ap + r * sai);
      #pragma GCC unroll 8
      for (int w = 0; w < W; ++w) acc[r][w] = _mm256_fmadd_ps(av, bv[w], acc[r][w]);
    }
  }
  #pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
    float* cr = c + r * ldc;
    #pragma GCC unroll 8
    for (int w = 0; w < W; ++w) {
      if constexpr (kFull)
        _mm256_storeu_ps(cr + 8 * w, acc[r][w]);
      else
        _mm256_maskstore_ps(cr + 8 * w, mask[w], acc[r][w]);
    }
  }
}

// The last `left` columns (16(V-1) < left <= 16V) as one block of V column blocks.
template <int R, int V>
TESSERA_SIMD inline void last_block(float* c, size_t ldc, const float* a, size_t sai, size_t sap, const float* b,
                                    size_t ldb, uint32_t k, uint32_t left) {
  if (left == 16 * V)
    block<R, V, true>(c, ldc, a, sai, sap, b, ldb, k, 16 * V);
  else
    block<R, V, false>(c, ldc, a, sai, sap, b, ldb, k, static_cast<int>(left));
}

template <int R>
TESSERA_SIMD void rows(float* c, size_t ldc, const float* a, size_t sai, size_t sap, const float* b, size_t ldb,
                       uint32_t k, uint32_t n) {
  constexpr int V = R == 1 ? 4 : R == 2 ? 2 : 1;  // column blocks at once: 8 chains or more
  uint32_t j = 0;
  for (; j + 16 * V <= n; j += 16 * V) block<R, V, true>(c + j, ldc, a, sai, sap, b + j, ldb, k, 16 * V);
  const uint32_t left = n - j;
  switch ((left + 15) / 16) {
    case 0: break;
    case 1: last_block<R, 1>(c + j, ldc, a, sai, sap, b + j, ldb, k, left); break;
    case 2: if constexpr (V >= 2) last_block<R, 2>(c + j, ldc, a, sai, sap, b + j, ldb, k, left); break;
    case 3: if constexpr (V >= 3) last_block<R, 3>(c + j, ldc, a, sai, sap, b + j, ldb, k, left); break;
    default: if constexpr (V >= 4) last_block<R, 4>(c + j, ldc, a, sai, sap, b + j, ldb, k, left); break;
  }
}

#define TESSERA_SIMD512 __attribute__((target("avx2,fma,avx512f,avx512vl")))

// AVX-512 VL: one row of a against 64 < n <= 8 V columns of b in one pass over b: V
// 8-lane vectors (32 registers hold up to 24 of them and the loads), the last under a mask
// (masked-off lanes read nothing and are not stored). A classifier at batch 1 is one row of
// a against rows of b read from memory once; rows<1> takes 64 columns a pass, so a vertex of
// 65 to 128 columns read each row of b twice (AlexNet's fc7 and fc8: 108 and 143 columns,
// 9 and 8 bytes a cycle against fc6's 13 with 64). 16-lane vectors were slower at 64
// columns (4 chains, not 8) and no faster above.
template <int V>
TESSERA_SIMD512 void one_pass(float* c, const float* a, size_t sap, const float* b, size_t ldb, uint32_t k,
                              uint32_t n) {
  const __mmask8 last = static_cast<__mmask8>(n >= 8 * V ? 0xffu : (1u << (n - 8 * (V - 1))) - 1);
  __m256 acc[V];
  #pragma GCC unroll 32
  for (int v = 0; v < V; ++v) acc[v] = _mm256_setzero_ps();
  for (uint32_t p = 0; p < k; ++p) {
    const float* bp = b + p * ldb;
    prefetch_ahead<(V + 1) / 2>(bp, ldb);
    const __m256 av = _mm256_broadcast_ss(a + p * sap);
    #pragma GCC unroll 32
    for (int v = 0; v + 1 < V; ++v) acc[v] = _mm256_fmadd_ps(av, _mm256_loadu_ps(bp + 8 * v), acc[v]);
    acc[V - 1] = _mm256_fmadd_ps(av, _mm256_maskz_loadu_ps(last, bp + 8 * (V - 1)), acc[V - 1]);
  }
  #pragma GCC unroll 32
  for (int v = 0; v + 1 < V; ++v) _mm256_storeu_ps(c + 8 * v, acc[v]);
  _mm256_mask_storeu_ps(c + 8 * (V - 1), last, acc[V - 1]);
}

constexpr uint32_t kOnePassColumns = 192;  // 24 vectors

// one_pass<V> for n (64 < n <= kOnePassColumns) columns.
template <int V = 9>
TESSERA_SIMD512 void one_pass_of(float* c, const float* a, size_t sap, const float* b, size_t ldb, uint32_t k,
                                 uint32_t n) {
  if constexpr (8 * V < kOnePassColumns) {
    if (n > 8 * V) return one_pass_of<V + 1>(c, a, sap, b, ldb, k, n);
  }
  one_pass<V>(c, a, sap, b, ldb, k, n);
}

}  // namespace

bool enabled() { return g_enabled.load(std::memory_order_relaxed); }

bool set_enabled(bool on) { return g_enabled.exchange(on && cpu_has_fma()); }

bool avx512_enabled() { return g_avx512.load(std::memory_order_relaxed); }

bool set_avx512_enabled(bool on) { return g_avx512.exchange(on && cpu_has_avx512vl()); }

bool wide_enabled() { return g_wide.load(std::memory_order_relaxed); }

bool set_wide_enabled(bool on) { return g_wide.exchange(on); }

bool phased_enabled() { return g_phased.load(std::memory_order_relaxed); }

bool set_phased_enabled(bool on) { return g_phased.exchange(on); }

TESSERA_SIMD void matmul(float* c, size_t ldc, const float* a, size_t sai, size_t sap, const float* b, size_t ldb,
                         uint32_t m, uint32_t k, uint32_t n) {
  if (m == 0 || n == 0) return;
  if (k == 0) {  // empty sums: +0 (a may be null)
    for (uint32_t i = 0; i < m; ++i) std::memset(c + i * ldc, 0, n * sizeof(float));
    return;
  }
  uint32_t i = 0;
  for (; i + 4 <= m; i += 4) rows<4>(c + i * ldc, ldc, a + i * sai, sai, sap, b, ldb, k, n);
  switch (m - i) {
    case 3: rows<3>(c + i * ldc, ldc, a + i * sai, sai, sap, b, ldb, k, n); break;
    case 2: rows<2>(c + i * ldc, ldc, a + i * sai, sai, sap, b, ldb, k, n); break;
    case 1:
      if (avx512_enabled() && n > 64 && n <= kOnePassColumns) one_pass_of(c + i * ldc, a + i * sai, sap, b, ldb, k, n);
      else rows<1>(c + i * ldc, ldc, a + i * sai, sai, sap, b, ldb, k, n);
      break;
    default: break;
  }
}

void matmul_nt(float* c, const float* a, const float* b, uint32_t m, uint32_t k, uint32_t n) {
  thread_local std::vector<float> bt;
  const size_t need = static_cast<size_t>(k) * n;
  if (bt.size() < need) bt.resize(need);
  for (uint32_t j = 0; j < n; ++j)
    for (uint32_t p = 0; p < k; ++p) bt[static_cast<size_t>(p) * n + j] = b[static_cast<size_t>(j) * k + p];
  matmul(c, n, a, k, 1, bt.data(), n, m, k, n);
}

}  // namespace tessera::fw::simd
