// rng_uniform: counter-based uniform random numbers (parameter initialisation), for i in
// [0, n), with j = first + i (mod 2^32: the element's index in the whole tensor) and
// s = seed[0]:
//   x      = word 0 of Philox4x32-10(counter = {j, stream, 0, 0}, key = {s, 0x54535241})
//   out[i] = fp_fma(f32(x >> 8), step, lo)      (x >> 8 < 2^24 converts exactly; one rounding)
// With step = (hi - lo) * 2^-24 (exact when hi - lo is exact and at least 2^-102) this is
// the uniform draw out = lo + u * (hi - lo) with u = (x >> 8) * 2^-24 in [0, 1 - 2^-24]
// (steps of 2^-24), rounded once: the same bits as fp_fma(u, hi - lo, lo), since both
// products are exact inside the fma. out[i] lies in [lo, hi] (hi only where the fma
// rounds up to it). The compiler passes lo = -b, step = 2b * 2^-24 for U(-b, b).
// Philox4x32-10 is Salmon, Moraes, Dror and Shaw, "Parallel random numbers: as easy as 1,
// 2, 3" (SC'11), as in Random123: 10 rounds on the counter (x0, x1, x2, x3) with the key
// (k0, k1); with the multipliers M0 = 0xD2511F53, M1 = 0xCD9E8D57 a round sets
//   (x0, x1, x2, x3) = (hi(M1 x2) ^ x1 ^ k0, lo(M1 x2), hi(M0 x0) ^ x3 ^ k1, lo(M0 x0))
// (hi/lo: the upper/lower 32 bits of the 64-bit product), and between rounds the key is
// bumped: k0 += 0x9E3779B9, k1 += 0xBB67AE85 (mod 2^32). The key's second word 0x54535241
// ("ARST" as little-endian bytes) is a fixed tag of this codelet.
// Integer arithmetic up to the conversion, so the same bits on every core; the fma follows
// fp_rules.h (NaN or infinite lo/step give what IEEE fma gives; NaN payloads may differ
// between builds). The code is written for size (the firmware has little room left).
// State (codelets.h): [0] f32* out (n), [1] const u32* seed (1), [2] u32 n, [3] u32 first,
// [4] u32 stream, [5] f32 lo, [6] f32 step. out and seed must not overlap.
#include "codelets/codelets.h"
#include "runtime/fp_rules.h"
#include "runtime/platform.h"

namespace tessera::fw {

extern "C" void codelet_rng_uniform(uint32_t state_addr) {
  const uint32_t* s = tile_ptr<const uint32_t>(state_addr, kWords_rng_uniform);
  const uint32_t n = s[2];
  float* out = tile_ptr<float>(s[0], n);
  for (uint32_t i = 0; i < n; ++i) {
    // Philox4x32-10 of the counter {first + i, stream, 0, 0}, key {seed[0], 0x54535241}.
    uint32_t x0 = s[3] + i, x1 = s[4], x2 = 0, x3 = 0;
    uint32_t k0 = tile_ptr<const uint32_t>(s[1])[0], k1 = 0x54535241u;
    for (int r = 0; r < 10; ++r) {
      const uint64_t p0 = static_cast<uint64_t>(0xD2511F53u) * x0;
      const uint64_t p1 = static_cast<uint64_t>(0xCD9E8D57u) * x2;
      x0 = static_cast<uint32_t>(p1 >> 32) ^ x1 ^ k0;
      x2 = static_cast<uint32_t>(p0 >> 32) ^ x3 ^ k1;
      x1 = static_cast<uint32_t>(p1);
      x3 = static_cast<uint32_t>(p0);
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    out[i] = fp_fma(static_cast<float>(x0 >> 8), u2f(s[6]), u2f(s[5]));
  }
}

}  // namespace tessera::fw
