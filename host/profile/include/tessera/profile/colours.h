// Colours shared by the pictures: one per layer (evenly spread hues), one per category.
#pragma once

#include <cmath>
#include <cstdint>

namespace tessera::profile {

struct Rgb {
  double r, g, b;
};

// Layer i of n: hues around the wheel by the golden angle, so neighbours differ.
inline Rgb layer_colour(uint32_t i) {
  const double h = std::fmod(i * 0.618033988749895, 1.0) * 6.0, s = 0.65, v = 0.95;
  const int k = static_cast<int>(h);
  const double f = h - k, p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
  switch (k % 6) {
    case 0: return {v, t, p};
    case 1: return {q, v, p};
    case 2: return {p, v, t};
    case 3: return {p, q, v};
    case 4: return {t, p, v};
    default: return {v, p, q};
  }
}

// The fixed categories: greys and muted tones, so that the layers' colours stand out.
inline Rgb category_colour(uint32_t i) {
  static constexpr Rgb kC[] = {{0.25, 0.25, 0.3}, {0.45, 0.45, 0.5}, {0.55, 0.4, 0.3},
                               {0.35, 0.5, 0.4},  {0.6, 0.55, 0.3},  {0.5, 0.35, 0.5}};
  return kC[i % 6];
}

}  // namespace tessera::profile
