// ewise1: a unary element-wise op, for i in [0, n) in order, x = src[i]:
//   op 0 leaky_relu  dst[i] = x > 0 ? x : x * p0   (PyTorch's CPU kernel: -0 and NaN take
//                    the second branch, so -0 gives -0 * p0 and NaN stays NaN)
//   op 1 sigmoid     dst[i] = 1 / (1 + fp_expf(-x))   (three roundings after exp, as
//                    PyTorch's kernel, which uses Sleef's exp; within about 2 ulps)
//   op 2 tanh        |x| > 10 (or infinite): copysign(1, x); else with e = expm1(2|x|):
//                    dst[i] = copysign(e / (e + 2), x)   (tanh = expm1(2a)/(expm1(2a)+2),
//                    no cancellation near 0; e by the routine below; within 3 ulps)
//   op 3 clip        m = x < p0 ? p0 : x;  dst[i] = p1 < m ? p1 : m   (std::min(std::max(x,
//                    p0), p1) as PyTorch's scalar clamp: NaN stays NaN, -0 with p0 = +0
//                    stays -0, p0 > p1 gives p1)
//   op 4 identity    dst[i] = x (the bits)
// Another op writes nothing. NaN inputs give a NaN (payload not kept except by 3 and 4).
// expm1(y) for 0 <= y <= 20: y = k ln2 + r with k = round(y / ln2), |r| <= ln2/2 (Cody-
// Waite with fma, as fp_expf), expm1(r) = r + r^2 (1/2 + r/6 + ... + r^6/8!) (Taylor to
// degree 8, Horner with fma; truncation < 2^-30 relative), then for k > 0
// expm1(y) = fp_fma(2^k, expm1(r), 2^k - 1) (2^k - 1 exact for k <= 24).
// State (codelets.h): [0] f32* dst (n), [1] const f32* src (n), [2] u32 n, [3] u32 op,
// [4] f32 p0, [5] f32 p1. dst may be src (in place); otherwise they do not overlap.
#include "codelets/codelets.h"
#include "runtime/fp_rules.h"
#include "runtime/platform.h"

namespace tessera::fw {

namespace {

float expm1_small(float y) {  // 0 <= y <= 20
  constexpr float kLog2e = 0x1.715476p+0f;
  constexpr float kLn2Hi = 0x1.62e4p-1f;
  constexpr float kLn2Lo = 0x1.7f7d1cp-20f;
  constexpr float kShifter = 0x1.8p23f;
  const float t = fp_fma(y, kLog2e, kShifter);
  const float kf = t - kShifter;
  const int32_t k = static_cast<int32_t>(f2u(t) - f2u(kShifter));
  float r = fp_fma(-kf, kLn2Hi, y);
  r = fp_fma(-kf, kLn2Lo, r);
  float q = 0x1.a01a02p-16f;          // 1/8!
  q = fp_fma(q, r, 0x1.a01a02p-13f);  // 1/7!
  q = fp_fma(q, r, 0x1.6c16c2p-10f);  // 1/6!
  q = fp_fma(q, r, 0x1.111112p-7f);   // 1/5!
  q = fp_fma(q, r, 0x1.555556p-5f);   // 1/4!
  q = fp_fma(q, r, 0x1.555556p-3f);   // 1/3!
  q = fp_fma(q, r, 0.5f);
  const float em = fp_fma(r * r, q, r);
  if (k == 0) return em;
  const float p = u2f(static_cast<uint32_t>(k + 127) << 23);  // 2^k, k <= 29
  return fp_fma(p, em, p - 1.0f);
}

float tanh_of(float x) {
  const uint32_t ax_bits = f2u(x) & 0x7fffffffu;
  if (ax_bits > 0x7f800000u) return u2f(kCanonicalNaN);
  const float ax = u2f(ax_bits);
  float r;
  if (ax > 10.0f) {
    r = 1.0f;
  } else {
    const float e = expm1_small(ax + ax);
    r = e / (e + 2.0f);
  }
  return u2f(f2u(r) | (f2u(x) & 0x80000000u));
}

template <class Op>
void each(float* dst, const float* src, uint32_t n, Op op) {
  for (uint32_t i = 0; i < n; ++i) dst[i] = op(src[i]);
}

}  // namespace

extern "C" void codelet_ewise1(uint32_t state_addr) {
  const uint32_t* s = tile_ptr<const uint32_t>(state_addr, kWords_ewise1);
  const uint32_t n = s[2], op = s[3];
  const float p0 = u2f(s[4]), p1 = u2f(s[5]);
  if (n == 0 || op > 4) return;
  float* dst = tile_ptr<float>(s[0], n);
  const float* src = tile_ptr<const float>(s[1], n);
  switch (op) {
    case 0: each(dst, src, n, [p0](float x) { return x > 0.0f ? x : x * p0; }); break;
    case 1: each(dst, src, n, [](float x) { return 1.0f / (1.0f + fp_expf(-x)); }); break;
    case 2: each(dst, src, n, tanh_of); break;
    case 3:
      each(dst, src, n, [p0, p1](float x) {
        const float m = x < p0 ? p0 : x;
        return p1 < m ? p1 : m;
      });
      break;
    default: {
      uint32_t* d = tile_ptr<uint32_t>(s[0], n);
      const uint32_t* v = tile_ptr<const uint32_t>(s[1], n);
      for (uint32_t i = 0; i < n; ++i) d[i] = v[i];
    }
  }
}

}  // namespace tessera::fw
