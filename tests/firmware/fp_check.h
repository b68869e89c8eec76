// Helpers of the firmware tests: float bits, NaN-tolerant equality and the error of a
// binary32 result in ulps of a double-precision reference.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace tessera::fwtest {

inline uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline bool is_nan_bits(uint32_t u) { return (u & 0x7fffffffu) > 0x7f800000u; }

// Equal bits, or both NaN (payloads may differ between RISC-V and the host).
inline bool same_or_both_nan(uint32_t a, uint32_t b) {
  return a == b || (is_nan_bits(a) && is_nan_bits(b));
}

// |got - ref| in units of the binary32 ulp at ref (subnormal spacing below FLT_MIN). An
// infinite result counts as 2^128, so a result that overflowed correctly (ref at least
// FLT_MAX + half an ulp) has error 0 and one that overflowed early a large error.
inline double ulp_error(float got, double ref) {
  if (std::isnan(ref) || std::isnan(got))
    return std::isnan(ref) && std::isnan(got) ? 0.0 : INFINITY;
  if (std::isinf(ref)) return got == ref ? 0.0 : INFINITY;
  if (std::isinf(got)) {
    if ((got > 0) != (ref > 0)) return INFINITY;
    if (std::fabs(ref) >= 0x1p128 - 0x1p103) return 0.0;
  }
  const double g = std::isinf(got) ? std::copysign(0x1p128, got) : static_cast<double>(got);
  int e;
  std::frexp(ref, &e);  // |ref| in [2^(e-1), 2^e)
  const int exponent = ref == 0.0 ? -126 : std::max(e - 1, -126);
  return std::fabs(g - ref) / std::ldexp(1.0, exponent - 23);
}

}  // namespace tessera::fwtest
