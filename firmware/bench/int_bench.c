// Integer workload for the ISS benchmark: CRC-32, a sort, an integer matrix product and
// some division, in the proportions of ordinary control code. Prints a checksum.
#include "common/tile_io.h"

#define N 1024
#define M 24
static uint32_t data[N];
static int32_t a[M][M], b[M][M], c[M][M];

static uint32_t lcg(uint32_t* s) { return *s = *s * 1664525u + 1013904223u; }

static uint32_t crc32(const uint8_t* p, uint32_t n) {
  uint32_t crc = ~0u;
  for (uint32_t i = 0; i < n; ++i) {
    crc ^= p[i];
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xedb88320u & -(crc & 1));
  }
  return ~crc;
}

static void sort(uint32_t* v, int lo, int hi) {  // quicksort, Lomuto partition
  while (lo < hi) {
    uint32_t pivot = v[(lo + hi) / 2];
    int i = lo, j = hi;
    while (i <= j) {
      while (v[i] < pivot) ++i;
      while (v[j] > pivot) --j;
      if (i <= j) { uint32_t t = v[i]; v[i] = v[j]; v[j] = t; ++i; --j; }
    }
    if (j - lo < hi - i) { sort(v, lo, j); lo = i; } else { sort(v, i, hi); hi = j; }
  }
}

int main(void) {
  uint32_t seed = 1, sum = 0;
  for (int round = 0; round < 200; ++round) {
    for (int i = 0; i < N; ++i) data[i] = lcg(&seed);
    sum += crc32((const uint8_t*)data, sizeof data);
    sort(data, 0, N - 1);
    for (int i = 1; i < N; ++i)
      if (data[i - 1] > data[i]) return 1;  // the sort is wrong
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < M; ++j) { a[i][j] = (int32_t)lcg(&seed) >> 20; b[i][j] = (int32_t)lcg(&seed) >> 20; }
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < M; ++j) {
        int32_t acc = 0;
        for (int k = 0; k < M; ++k) acc += a[i][k] * b[k][j];
        c[i][j] = acc;
      }
    for (int i = 0; i < M; ++i) sum += (uint32_t)(c[i][i] / (i + 3)) + (uint32_t)c[i][M - 1 - i] % 97u;
  }
  tile_puts("checksum ");
  tile_puthex(sum);
  tile_putchar('\n');
  return 0;
}
