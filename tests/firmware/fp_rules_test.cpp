// runtime/fp_rules.h in its host build: fp_expf and fp_logf against double-precision
// std::exp/std::log over a sample of every binade, their special cases, and the helpers
// with RISC-V semantics. (That the RISC-V build gives the same bits is codelet_iss_test.)
#include "runtime/fp_rules.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "fp_check.h"

namespace {

using namespace tessera::fwtest;
using tessera::fw::fp_expf;
using tessera::fw::fp_logf;

struct Worst {
  double ulp = 0;
  uint32_t x = 0;
};

// Every `stride`-th bit pattern (a prime stride, so every binade and mantissa pattern is
// visited) for which `keep` holds: the largest ulp error of fn against ref.
template <class Fn, class Ref, class Keep>
Worst sample(Fn fn, Ref ref, Keep keep, uint32_t stride) {
  Worst w;
  for (uint64_t u = 0; u <= 0xffffffffu; u += stride) {
    const float x = from_bits(static_cast<uint32_t>(u));
    if (!keep(x)) continue;
    const double e = ulp_error(fn(x), ref(static_cast<double>(x)));
    if (e > w.ulp) w = {e, static_cast<uint32_t>(u)};
  }
  return w;
}

// Exhaustive runs over all 2^32 inputs (once, when they were written) gave a maximum error
// of 1.06 ulp for fp_expf (at -5.888...) and 0.80 ulp for fp_logf; the sample here must
// stay within those.
TEST(FpRules, ExpfWithinBoundOfDoubleExp) {
  const Worst w = sample([](float x) { return fp_expf(x); }, [](double x) { return std::exp(x); },
                         [](float x) { return x > -105.0f && x < 90.0f; }, 251);
  std::printf("fp_expf: max error %.4f ulp at %a (0x%08x)\n", w.ulp, from_bits(w.x), w.x);
  EXPECT_LE(w.ulp, 1.07);
  // the worst case of the exhaustive run
  EXPECT_LE(ulp_error(fp_expf(from_bits(0xc0bc717e)),
                      std::exp(static_cast<double>(from_bits(0xc0bc717e)))),
            1.07);
}

TEST(FpRules, LogfWithinBoundOfDoubleLog) {
  const Worst w = sample([](float x) { return fp_logf(x); }, [](double x) { return std::log(x); },
                         [](float x) { return x > 0.0f && !std::isinf(x); }, 251);
  std::printf("fp_logf: max error %.4f ulp at %a (0x%08x)\n", w.ulp, from_bits(w.x), w.x);
  EXPECT_LE(w.ulp, 0.81);
}

TEST(FpRules, ExpfSpecialCases) {
  EXPECT_EQ(bits(fp_expf(from_bits(0x7fc00000))), 0x7fc00000u);
  EXPECT_EQ(bits(fp_expf(from_bits(0xffc00123))), 0x7fc00000u);  // any NaN: the canonical one
  EXPECT_EQ(bits(fp_expf(from_bits(0x7f800001))), 0x7fc00000u);
  EXPECT_EQ(bits(fp_expf(INFINITY)), 0x7f800000u);
  EXPECT_EQ(bits(fp_expf(-INFINITY)), 0u);
  EXPECT_EQ(bits(fp_expf(0.0f)), 0x3f800000u);
  EXPECT_EQ(bits(fp_expf(-0.0f)), 0x3f800000u);
  EXPECT_EQ(bits(fp_expf(1.0f)), bits(2.71828183f));
  EXPECT_EQ(bits(fp_expf(from_bits(0x42b17217))), 0x7f7fff84u);  // just below FLT_MAX
  EXPECT_EQ(bits(fp_expf(from_bits(0x42b17218))), 0x7f800000u);  // overflows
  EXPECT_EQ(bits(fp_expf(1000.0f)), 0x7f800000u);
  EXPECT_EQ(bits(fp_expf(-100.0f)), 0x0000001bu);  // subnormal: exp(-100) = 26.55 * 2^-149
  EXPECT_EQ(bits(fp_expf(-103.0f)), 0x00000001u);  // 1.32 * 2^-149
  EXPECT_EQ(bits(fp_expf(from_bits(0xc2cff1b4))), 0x00000001u);  // 0.5000003 * 2^-149: rounds up
  EXPECT_EQ(bits(fp_expf(from_bits(0xc2cff1b5))), 0x00000000u);  // 0.4999965 * 2^-149: rounds to 0
  EXPECT_EQ(bits(fp_expf(-104.0f)), 0u);
  EXPECT_EQ(bits(fp_expf(-1000.0f)), 0u);
  // monotonic across consecutive floats, also where the reduction switches k (+-ln2/2)
  for (uint32_t start : {0x3e800000u, 0x3eb17000u, 0xbeb17000u, 0x41799000u}) {
    for (uint32_t u = start; u < start + 100000; ++u) {
      const float a = from_bits(u), b = from_bits(u + 1);  // |b| > |a|
      if (a > 0)
        ASSERT_LE(fp_expf(a), fp_expf(b)) << a;
      else
        ASSERT_GE(fp_expf(a), fp_expf(b)) << a;
    }
  }
}

TEST(FpRules, LogfSpecialCases) {
  EXPECT_EQ(bits(fp_logf(1.0f)), 0u);  // exactly +0
  EXPECT_EQ(bits(fp_logf(0.0f)), 0xff800000u);
  EXPECT_EQ(bits(fp_logf(-0.0f)), 0xff800000u);
  EXPECT_EQ(bits(fp_logf(-1.0f)), 0x7fc00000u);
  EXPECT_EQ(bits(fp_logf(-INFINITY)), 0x7fc00000u);
  EXPECT_EQ(bits(fp_logf(from_bits(0x80000001))), 0x7fc00000u);
  EXPECT_EQ(bits(fp_logf(INFINITY)), 0x7f800000u);
  EXPECT_EQ(bits(fp_logf(from_bits(0x7fc00000))), 0x7fc00000u);
  EXPECT_EQ(bits(fp_logf(from_bits(0xffc00001))), 0x7fc00000u);
  EXPECT_EQ(bits(fp_logf(from_bits(0x7f800001))), 0x7fc00000u);
  EXPECT_EQ(bits(fp_logf(2.0f)), bits(0.693147181f));
  EXPECT_LE(ulp_error(fp_logf(from_bits(1)), std::log(0x1p-149)), 0.5);  // smallest subnormal
  EXPECT_LE(ulp_error(fp_logf(from_bits(0x7f7fffff)),
                      std::log(static_cast<double>(from_bits(0x7f7fffff)))),
            0.5);
  // every subnormal binade
  for (uint32_t u = 1; u < 0x00800000u; u = u * 3 + 1)
    EXPECT_LE(ulp_error(fp_logf(from_bits(u)), std::log(static_cast<double>(from_bits(u)))), 0.81)
        << u;
}

TEST(FpRules, MinMaxAreIeeeMinimumNumberMaximumNumber) {
  using tessera::fw::fp_max;
  using tessera::fw::fp_min;
  const float qnan = from_bits(0x7fc00000), snan = from_bits(0x7f800001),
              nnan = from_bits(0xffc00001);
  EXPECT_EQ(fp_min(1.0f, 2.0f), 1.0f);
  EXPECT_EQ(fp_max(1.0f, 2.0f), 2.0f);
  EXPECT_EQ(fp_min(-INFINITY, 2.0f), -INFINITY);
  EXPECT_EQ(bits(fp_min(0.0f, -0.0f)), 0x80000000u);
  EXPECT_EQ(bits(fp_min(-0.0f, 0.0f)), 0x80000000u);
  EXPECT_EQ(bits(fp_max(0.0f, -0.0f)), 0u);
  EXPECT_EQ(bits(fp_max(-0.0f, 0.0f)), 0u);
  for (float nan : {qnan, snan, nnan}) {  // a NaN operand is ignored, signalling or not
    EXPECT_EQ(fp_min(nan, 3.0f), 3.0f);
    EXPECT_EQ(fp_min(3.0f, nan), 3.0f);
    EXPECT_EQ(fp_max(nan, -3.0f), -3.0f);
    EXPECT_EQ(fp_max(-3.0f, nan), -3.0f);
    EXPECT_EQ(bits(fp_min(nan, nnan)), 0x7fc00000u);  // two NaNs: the canonical NaN
    EXPECT_EQ(bits(fp_max(snan, nan)), 0x7fc00000u);
  }
}

TEST(FpRules, FloatToIntSaturatesLikeFcvt) {
  using tessera::fw::fp_to_i32;
  using tessera::fw::fp_to_u32;
  const float nan = from_bits(0x7fc00000);
  EXPECT_EQ(fp_to_i32(1.9f), 1);
  EXPECT_EQ(fp_to_i32(-1.9f), -1);
  EXPECT_EQ(fp_to_i32(nan), INT32_MAX);
  EXPECT_EQ(fp_to_i32(from_bits(0xffc00000)), INT32_MAX);  // a negative NaN too
  EXPECT_EQ(fp_to_i32(0x1p31f), INT32_MAX);
  EXPECT_EQ(fp_to_i32(from_bits(0x4effffff)), 2147483520);
  EXPECT_EQ(fp_to_i32(-0x1p31f), INT32_MIN);
  EXPECT_EQ(fp_to_i32(from_bits(0xcf000001)), INT32_MIN);
  EXPECT_EQ(fp_to_i32(INFINITY), INT32_MAX);
  EXPECT_EQ(fp_to_i32(-INFINITY), INT32_MIN);
  EXPECT_EQ(fp_to_u32(-0.5f), 0u);
  EXPECT_EQ(fp_to_u32(-1.0f), 0u);
  EXPECT_EQ(fp_to_u32(-INFINITY), 0u);
  EXPECT_EQ(fp_to_u32(nan), UINT32_MAX);
  EXPECT_EQ(fp_to_u32(INFINITY), UINT32_MAX);
  EXPECT_EQ(fp_to_u32(0x1p32f), UINT32_MAX);
  EXPECT_EQ(fp_to_u32(from_bits(0x4f7fffff)), 4294967040u);
  EXPECT_EQ(fp_to_u32(3.99f), 3u);
}

}  // namespace
