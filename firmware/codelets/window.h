// Window arithmetic of the convolution and pooling codelets (conv2d*, maxpool2d*,
// avgpool2d*): which kernel taps or outputs of a window touch the input. Integer only.
//
// Positions are computed in u32 arithmetic (wrapping): a pad is the u32 bits of an i32,
// so `first + t * step` is the true position modulo 2^32, and `position < limit` tests
// 0 <= position < limit for every true position in (-2^31, 2^31).
#pragma once

#include <stdint.h>

#include "runtime/fp_rules.h"

namespace tessera::fw {

// [lo, hi): the t in [0, count) with first + t * step in [0, limit) (step >= 0 makes them
// one contiguous range). Scans inwards from both ends, so it costs the number of
// positions outside [0, limit) (the padding a window overlaps), not count. lo = hi when
// none is inside.
struct Span {
  uint32_t lo, hi;
};
inline Span inside(uint32_t first, uint32_t step, uint32_t count, uint32_t limit) {
  uint32_t lo = 0;
  while (lo < count && first + lo * step >= limit) ++lo;
  uint32_t hi = count;
  while (hi > lo && first + (hi - 1) * step >= limit) --hi;
  return {lo, hi};
}

// The kernel taps k in [0, kn) that the forward maps onto input position i, for a
// convolution with stride s >= 1 and dilation d: with t = i + pad (as i32), the outputs
// o = (t - k*d) / s where t - k*d >= 0 is divisible by s and o < on. They are
// k = k0 + j*kstep, o = o0 - j*ostep for j < count (count may be 0): the remainders of
// t - k*d modulo s repeat with a period, and o falls as k rises. One division, then a
// scan of kn taps with the quotient and remainder updated incrementally.
struct Taps {
  uint32_t k0, kstep, o0, ostep, count;
};
inline Taps taps(int32_t t, uint32_t d, uint32_t s, uint32_t kn, uint32_t on) {
  Taps r{0, 1, 0, 0, 0};
  if (t < 0) return r;  // t - k*d only falls
  const int32_t si = static_cast<int32_t>(s);
  int32_t q = t / si, rem = t % si;
  const int32_t dq = static_cast<int32_t>(d / s), dr = static_cast<int32_t>(d % s);
  for (uint32_t k = 0; k < kn && q >= 0; ++k) {
    if (rem == 0 && static_cast<uint32_t>(q) < on) {
      if (r.count == 0) {
        r.k0 = k;
        r.o0 = static_cast<uint32_t>(q);
      } else if (r.count == 1) {
        r.kstep = k - r.k0;
        r.ostep = r.o0 - static_cast<uint32_t>(q);
      }
      ++r.count;
    }
    q -= dq;
    rem -= dr;
    if (rem < 0) {
      rem += si;
      q -= 1;
    }
  }
  return r;
}

}  // namespace tessera::fw

namespace tessera::fw {

// Max pooling's choice in one window of a plane (row-major, row length wd): the offset in
// the plane of the element PyTorch's max_pool2d picks, or UINT32_MAX when the window has
// no element inside. Rows ry, columns rx (from inside()), in index order: the first
// element wins and a later one replaces it when it is larger or a NaN (so the last NaN
// wins and NaNs propagate).
inline uint32_t max_pick(const float* plane, uint32_t wd, uint32_t iy0, Span ry, uint32_t ix0,
                         Span rx) {
  if (ry.lo == ry.hi || rx.lo == rx.hi) return UINT32_MAX;
  uint32_t best = (iy0 + ry.lo) * wd + ix0 + rx.lo;
  float m = plane[best];
  for (uint32_t ky = ry.lo; ky < ry.hi; ++ky) {
    const uint32_t row = (iy0 + ky) * wd + ix0;
    for (uint32_t kx = rx.lo; kx < rx.hi; ++kx) {
      const float v = plane[row + kx];
      if (v > m || fp_is_nan(v)) {
        m = v;
        best = row + kx;
      }
    }
  }
  return best;
}

}  // namespace tessera::fw

namespace tessera::fw {

// Average pooling's window along one axis (PyTorch's avg_pool2d rule, i32 arithmetic):
// start = o*stride - pad_lo, end = min(start + k, n + pad_hi); full = end - start (the
// window's extent, padding included); [lo, hi) = [max(start, 0), min(end, n)), the part
// inside (lo >= hi when none is).
struct PoolRange {
  int32_t lo, hi, full;
};
inline PoolRange pool_range(uint32_t o, uint32_t stride, uint32_t pad_lo, uint32_t k, uint32_t n,
                            uint32_t pad_hi) {
  const int32_t start = static_cast<int32_t>(o * stride - pad_lo);
  const int32_t limit = static_cast<int32_t>(n + pad_hi);
  const int32_t end = static_cast<int32_t>(start + k) < limit ? static_cast<int32_t>(start + k) : limit;
  const int32_t lo = start > 0 ? start : 0;
  const int32_t hi = end < static_cast<int32_t>(n) ? end : static_cast<int32_t>(n);
  return {lo, hi, end - start};
}

}  // namespace tessera::fw
