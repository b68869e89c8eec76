// Seeded test data: n floats drawn uniformly from [-scale, scale] by `rng`.
#pragma once

#include <random>
#include <vector>

namespace tessera::testutil {

inline std::vector<float> seeded(size_t n, float scale, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-scale, scale);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}

}  // namespace tessera::testutil
