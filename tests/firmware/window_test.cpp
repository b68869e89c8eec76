// The window arithmetic of the convolution and pooling codelets (codelets/window.h)
// against brute force: every t of a window, its position computed exactly in 64 bits.
#include <gtest/gtest.h>
#include "tessera/testutil/seed.h"

#include <cstdint>
#include <random>

#include "codelets/window.h"

namespace {

using tessera::fw::inside;
using tessera::fw::taps;

// The t in [0, count) with first (an i32) + t * step in [0, limit): one contiguous range.
tessera::fw::Span brute_inside(uint32_t first, uint32_t step, uint32_t count, uint32_t limit) {
  const int64_t f = static_cast<int32_t>(first);
  uint32_t lo = count, hi = count;
  for (uint32_t t = 0; t < count; ++t) {
    const int64_t p = f + int64_t{t} * step;
    if (p >= 0 && p < limit) {
      if (lo == count) lo = t;
      hi = t + 1;
    }
  }
  return lo == count ? tessera::fw::Span{hi, hi} : tessera::fw::Span{lo, hi};
}

TEST(Window, InsideIsTheExactPositionsInConstantTime) {
  const uint64_t seed = tessera::testutil::random_seed("window inside");
  std::mt19937_64 rng(seed);
  const uint32_t special[] = {0, 1, 2, 3, 7, 0x7fffffffu, 0x80000000u, 0x80000001u, 0xfffffffeu, 0xffffffffu};
  auto pick = [&](uint32_t small) {
    switch (rng() % 3) {
      case 0: return special[rng() % std::size(special)];
      case 1: return static_cast<uint32_t>(rng() % small);
      default: return static_cast<uint32_t>(rng());
    }
  };
  for (int i = 0; i < 200000; ++i) {
    const uint32_t first = rng() % 2 ? pick(16) : static_cast<uint32_t>(-static_cast<int32_t>(rng() % 16));
    const uint32_t step = pick(4), count = static_cast<uint32_t>(rng() % 40), limit = pick(24);
    const tessera::fw::Span got = inside(first, step, count, limit), want = brute_inside(first, step, count, limit);
    if (want.lo == want.hi) {
      ASSERT_EQ(got.lo, got.hi) << "seed " << seed << ": inside(" << first << ", " << step << ", " << count << ", "
                                << limit << ") should be empty";
    } else {
      ASSERT_EQ(got.lo, want.lo) << "seed " << seed << ": inside(" << first << ", " << step << ", " << count
                                 << ", " << limit << ")";
      ASSERT_EQ(got.hi, want.hi) << "seed " << seed << ": inside(" << first << ", " << step << ", " << count
                                 << ", " << limit << ")";
    }
  }
  // the wraps that read 8 GiB past the input, and a window of 2^32 - 1 rows
  EXPECT_EQ(inside(0, 0x80000000u, 3, 1).hi, 1u);
  EXPECT_EQ(inside(0, 1, 0xffffffffu, 1).hi, 1u);
  EXPECT_EQ(inside(0xffffffffu, 1, 0xffffffffu, 1).lo, 1u);
}

// taps(): the k < kn whose t - k*d (exact) is >= 0, divisible by s, with quotient < on.
TEST(Window, TapsAreTheExactTaps) {
  const uint64_t seed = tessera::testutil::random_seed("window taps");
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 100000; ++i) {
    const int32_t t = static_cast<int32_t>(rng() % 64);
    const uint32_t d = rng() % 4 == 0 ? static_cast<uint32_t>(rng()) : static_cast<uint32_t>(rng() % 5);
    const uint32_t s = 1 + static_cast<uint32_t>(rng() % 4), kn = static_cast<uint32_t>(rng() % 12);
    const uint32_t on = static_cast<uint32_t>(rng() % 40);
    const tessera::fw::Taps got = taps(t, d, s, kn, on);
    uint32_t count = 0;
    for (uint32_t k = 0; k < kn; ++k) {
      const int64_t r = int64_t{t} - int64_t{k} * d;
      if (r < 0 || r % s != 0 || r / s >= on) continue;
      ASSERT_EQ(got.k0 + count * got.kstep, k) << "seed " << seed << " tap " << count;
      ASSERT_EQ(int64_t{got.o0} - int64_t{count} * got.ostep, r / s) << "seed " << seed << " tap " << count;
      ++count;
    }
    ASSERT_EQ(got.count, count) << "seed " << seed << ": taps(" << t << ", " << d << ", " << s << ", " << kn << ", "
                                << on << ")";
  }
}

}  // namespace
