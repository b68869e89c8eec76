// FP-heavy workload for the ISS benchmark: fp32 matrix products with explicit fused
// multiply-add (as codelets write them), a row normalisation with division and square
// root, and conversions. Prints a checksum of the result bits.
#include "common/tile_io.h"

#define N 40
static float a[N][N], b[N][N], c[N][N];

static uint32_t lcg(uint32_t* s) { return *s = *s * 1664525u + 1013904223u; }
static uint32_t bits(float f) { union { float f; uint32_t u; } x = {f}; return x.u; }

int main(void) {
  uint32_t seed = 7, sum = 0;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) {
      a[i][j] = (float)(int32_t)(lcg(&seed) >> 16) * (1.0f / 32768.0f) - 1.0f;
      b[i][j] = (float)(int32_t)(lcg(&seed) >> 16) * (1.0f / 32768.0f) - 1.0f;
    }
  for (int round = 0; round < 100; ++round) {
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < N; ++j) {
        float acc = 0.0f;
        for (int k = 0; k < N; ++k) acc = __builtin_fmaf(a[i][k], b[k][j], acc);
        c[i][j] = acc;
      }
    for (int i = 0; i < N; ++i) {  // normalise each row of c into a
      float ss = 0.0f;
      for (int j = 0; j < N; ++j) ss = __builtin_fmaf(c[i][j], c[i][j], ss);
      float inv = 1.0f / __builtin_sqrtf(ss + 1e-6f);
      for (int j = 0; j < N; ++j) a[i][j] = c[i][j] * inv;
    }
    for (int i = 0; i < N; ++i) sum += bits(a[i][i]) ^ (uint32_t)(int32_t)(c[i][0] * 16.0f);
  }
  tile_puts("checksum ");
  tile_puthex(sum);
  tile_putchar('\n');
  return 0;
}
