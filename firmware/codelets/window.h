// Window arithmetic of the convolution and pooling codelets (conv2d*, maxpool2d*,
// avgpool2d*): which kernel taps or outputs of a window touch the input. Integer only.
//
// A pad is the u32 bits of an i32 and the callers compute a window's first position in u32
// arithmetic (wrapping), `first = o * stride - pad`, the true position for every first
// position in (-2^31, 2^31). In native mode inside() computes the positions after it
// exactly, in 64 bits, so a position a codelet reads, `first + t * step` in u32 again, is
// the true one, inside [0, limit): a stride or dilation of 2^31 does not wrap row 2 of a
// window back onto row 0 with row 1 8 GiB past the input. The tile keeps its u32 scan.
#pragma once

#include <stdint.h>

#include "runtime/fp_rules.h"

namespace tessera::fw {

// [lo, hi): the t in [0, count) with first + t * step in [0, limit), first as an i32 and
// the positions exact (step >= 0 makes them one contiguous range); lo = hi when none is
// inside. In native mode in constant time: a window of 2^32 - 1 rows over a 1-row input
// costs no more than one of 3 (the scan, which the tile keeps, walks every row outside).
struct Span {
  uint32_t lo, hi;
};
// ceil(a / b) for b >= 1 (one divu on the tile: no 64-bit division there).
inline uint32_t ceil_div(uint32_t a, uint32_t b) {
  const uint32_t q = a / b;
  return q + (q * b != a);
}
#if defined(__riscv)
// The tile: the scan inwards from both ends, in u32, inline: it costs the positions outside
// [0, limit) (the padding a window overlaps), the cycles the cost model was fitted to. A
// window whose positions wrap (a dilation or stride near 2^31) or that is 2^32 - 1 rows
// tall is not a real one: on the tile it reads where the wrapped positions point, every
// access checked by the core (an access fault outside SRAM), and runs until the ISS's
// --max-insns. Native mode, where an access is a host access, computes the exact positions
// below.
inline Span inside(uint32_t first, uint32_t step, uint32_t count, uint32_t limit) {
  uint32_t lo = 0;
  while (lo < count && first + lo * step >= limit) ++lo;
  uint32_t hi = count;
  while (hi > lo && first + (hi - 1) * step >= limit) --hi;
  return {lo, hi};
}
#else
// Native mode: the exact positions in 64 bits, in constant time. The usual window, wholly
// inside, in a few operations; else up to 4 positions from each end, else a division.
inline Span inside(uint32_t first, uint32_t step, uint32_t count, uint32_t limit) {
  const int64_t f = static_cast<int32_t>(first);
  // f + t * step >= limit, exactly (t * step < 2^64; at 2^33 or more it is past any limit)
  const auto above = [&](uint32_t t) {
    const uint64_t d = static_cast<uint64_t>(t) * step;
    return d >= (uint64_t{1} << 33) || f + static_cast<int64_t>(d) >= limit;
  };
  if (count == 0) return {0, 0};
  if (f >= 0 && !above(count - 1)) return {0, count};
  if (step == 0) return (f >= 0 && f < limit) ? Span{0, count} : Span{0, 0};
  // lo: the first t with f + t * step >= 0
  uint32_t lo = 0;
  while (lo < count && lo < 4 && f + static_cast<int64_t>(lo) * step < 0) ++lo;
  if (lo == 4 && f + int64_t{4} * step < 0) lo = ceil_div(static_cast<uint32_t>(-f), step);
  if (lo >= count) return {count, count};
  if (above(lo)) return {lo, lo};
  const int64_t p0 = f + static_cast<int64_t>(lo) * step;  // in [0, limit): the first position
  // hi: one past the last t with f + t * step < limit (t >= lo)
  uint32_t hi = count;
  for (int n = 0; n < 4 && hi > lo && above(hi - 1); ++n) --hi;
  if (hi > lo && above(hi - 1)) {
    const uint64_t below = lo + static_cast<uint64_t>(ceil_div(static_cast<uint32_t>(limit - p0), step));
    hi = below < count ? static_cast<uint32_t>(below) : count;
  }
  return {lo, hi};
}
#endif

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
  // Unsigned division (t >= 0), the quotient tracked in 64 bits: a dilation of 2^31 or
  // more is a step of that many rows back, never a negative one (as an i32 it was, and q
  // overflowed).
  const uint32_t ut = static_cast<uint32_t>(t);
  int64_t q = ut / s, rem = ut % s;
  const int64_t dq = d / s, dr = d % s;
  const int64_t si = s;
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
  // end - start in u32: a window past 2^31 (absurd pads) wraps instead of overflowing an i32
  return {lo, hi, static_cast<int32_t>(static_cast<uint32_t>(end) - static_cast<uint32_t>(start))};
}

}  // namespace tessera::fw
