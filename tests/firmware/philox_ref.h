// Philox4x32-10 for the tests, written from its definition (Salmon, Moraes, Dror and Shaw,
// "Parallel random numbers: as easy as 1, 2, 3", SC'11, section 4.2): the counter
// (x0, x1, x2, x3) goes through 10 rounds of the S-box of two 32x32 -> 64-bit multiplies
// (M0 = 0xD2511F53 on x0, M1 = 0xCD9E8D57 on x2) and the permutation that swaps the
// even words' roles, with round key r = key + r * (0x9E3779B9, 0xBB67AE85) (the Weyl
// sequence of the golden ratio and sqrt(3) - 1). Checked against Random123's known
// answers (data/philox4x32_10_kat.txt) before it checks the codelet.
#pragma once

#include <array>
#include <cstdint>

namespace tessera::fwtest {

inline std::array<uint32_t, 4> philox4x32_10(std::array<uint32_t, 4> x, std::array<uint32_t, 2> k) {
  for (int round = 0; round < 10; ++round) {
    if (round > 0) k = {k[0] + 0x9E3779B9u, k[1] + 0xBB67AE85u};
    const uint64_t a = uint64_t{0xD2511F53u} * x[0], b = uint64_t{0xCD9E8D57u} * x[2];
    x = {uint32_t(b >> 32) ^ x[1] ^ k[0], uint32_t(b), uint32_t(a >> 32) ^ x[3] ^ k[1], uint32_t(a)};
  }
  return x;
}

}  // namespace tessera::fwtest
