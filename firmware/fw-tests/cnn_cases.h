// The codelet suite's cases for the CNN codelets (conv2d and its gradients, channel_sum,
// pooling and its gradients, lrn, ewise2, ewise1, ewise1_grad): odd shapes, strides,
// dilations, pads including negative ones (windows that start inside the input) and
// windows with no element inside, FP specials mixed into the inputs. Part of
// codelet_suite.h (same rules: fixed seeds, integer-made inputs, nothing in place).
#pragma once

#include "fw-tests/codelet_suite.h"

namespace tessera::fw::suite {

// n words: random floats with exponents in [lo, hi], every `every`-th a special (0: none).
template <class S>
uint32_t mixed(S& s, Rng& r, uint32_t n, int lo, int hi, uint32_t every) {
  return s.region(n, [&](uint32_t i) {
    return every && i % every == every - 1 ? kSpecials[r.next() % kNumSpecials] : random_float(r, lo, hi);
  });
}

// A convolution's shape: x [cin][h][wd], w [cout][cin][kh][kw], y [cout][oh][ow].
struct ConvShape {
  uint32_t cin, h, wd, cout, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw;
};
inline constexpr uint32_t neg(uint32_t v) { return 0u - v; }  // an i32 pad of -v

inline constexpr ConvShape kConvShapes[] = {
    {3, 7, 6, 4, 7, 6, 3, 3, 1, 1, 1, 1, 1, 1},              // "same", 3x3
    {2, 9, 8, 3, 5, 4, 3, 2, 2, 3, 2, 1, 2, 1},              // strides 2x3, dilation 2x1, the
                                                             // last column of windows empty
    {2, 6, 7, 2, 3, 3, 2, 3, 2, 2, neg(1), neg(2), 1, 1},    // negative pads: a block of x
    {5, 3, 4, 2, 2, 2, 1, 1, 2, 3, 0, 0, 1, 1},              // 1x1, strided
    {1, 11, 10, 2, 4, 3, 5, 5, 2, 3, 3, 2, 2, 2},            // 5x5 dilated 2, pads 3x2
    {2, 12, 13, 5, 12, 13, 5, 5, 1, 1, 2, 2, 1, 1},          // 5x5 "same" (LeNet's): native
                                                             // mode's 8-column blocks and edges
    {3, 10, 14, 6, 4, 12, 3, 3, 1, 1, neg(1), 1, 2, 2},      // column stride 1, dilated, a
                                                             // negative top pad
};

// A pooling's shape: x [c][h][wd], y [c][oh][ow]; pads top, left (i32), bottom, right.
struct PoolShape {
  uint32_t c, h, wd, oh, ow, kh, kw, sh, sw, pt, pl, pb, pr;
};
inline constexpr PoolShape kPoolShapes[] = {
    {2, 7, 6, 4, 4, 3, 3, 2, 2, 1, 1, 1, 2},               // ceil-mode-like last column
    {3, 5, 4, 1, 1, 5, 4, 1, 1, 0, 0, 0, 0},               // global
    {1, 5, 5, 3, 3, 2, 2, 2, 2, 2, neg(1), 0, 1},          // first row of windows empty
    {2, 4, 5, 3, 2, 2, 2, 2, 3, neg(1), 3, 0, 1},          // negative top pad, empty column
    {2, 3, 3, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0},               // 1x1
};

template <class S>
void cnn_cases(S& s) {
  Rng r{0x1b873593u};
  for (const ConvShape& c : kConvShapes) {
    const Mark mark(s.arena());
    const uint32_t nx = c.cin * c.h * c.wd, nw = c.cout * c.cin * c.kh * c.kw, ny = c.cout * c.oh * c.ow;
    const uint32_t x = mixed(s, r, nx, -3, 1, 13), w = mixed(s, r, nw, -3, 1, 17),
                   b = mixed(s, r, c.cout, -2, 1, 0), dy = mixed(s, r, ny, -3, 1, 19);
    const uint32_t y = s.zeros(ny);
    s.run("conv2d", {y, x, w, b, c.cin, c.h, c.wd, c.cout, c.oh, c.ow, c.kh, c.kw, c.sh, c.sw, c.ph, c.pw,
                     c.dh, c.dw},
          y, ny);
    const uint32_t dx = s.zeros(nx);
    s.run("conv2d_grad_input", {dx, dy, w, c.cin, c.h, c.wd, c.cout, c.oh, c.ow, c.kh, c.kw, c.sh, c.sw, c.ph,
                                c.pw, c.dh, c.dw},
          dx, nx);
    for (uint32_t accumulate = 0; accumulate < 2; ++accumulate) {
      const uint32_t dw = mixed(s, r, nw, -2, 0, 0);
      s.run("conv2d_grad_weight", {dw, x, dy, c.cin, c.h, c.wd, c.cout, c.oh, c.ow, c.kh, c.kw, c.sh, c.sw,
                                   c.ph, c.pw, c.dh, c.dw, accumulate},
            dw, nw);
    }
    for (uint32_t accumulate = 0; accumulate < 2; ++accumulate) {
      const uint32_t out = mixed(s, r, c.cout, -2, 2, 0);
      s.run("channel_sum", {out, dy, c.cout, c.oh * c.ow, accumulate}, out, c.cout);
    }
  }
  for (const PoolShape& p : kPoolShapes) {
    const Mark mark(s.arena());
    const uint32_t nx = p.c * p.h * p.wd, ny = p.c * p.oh * p.ow;
    // ties, signed zeros, NaNs and infinities: values from a small set, then specials
    const uint32_t x = s.region(nx, [&](uint32_t i) {
      const uint32_t k = r.next();
      if (i % 5 == 4) return kSpecials[k % kNumSpecials];
      static constexpr uint32_t kSmall[] = {0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x40000000,
                                            0xff800000, 0x3f000000};
      return i % 3 == 0 ? kSmall[k % 7] : random_float(r, -3, 2);
    });
    const uint32_t dy = mixed(s, r, ny, -3, 1, 11);
    const uint32_t y = s.zeros(ny), dx = s.zeros(nx);
    s.run("maxpool2d", {y, x, p.c, p.h, p.wd, p.oh, p.ow, p.kh, p.kw, p.sh, p.sw, p.pt, p.pl}, y, ny);
    s.run("maxpool2d_grad", {dx, dy, x, p.c, p.h, p.wd, p.oh, p.ow, p.kh, p.kw, p.sh, p.sw, p.pt, p.pl}, dx,
          nx);
    const uint32_t xa = mixed(s, r, nx, -3, 2, 7);
    for (uint32_t include = 0; include < 2; ++include) {
      s.run("avgpool2d", {y, xa, p.c, p.h, p.wd, p.oh, p.ow, p.kh, p.kw, p.sh, p.sw, p.pt, p.pl, p.pb, p.pr,
                          include},
            y, ny);
      s.run("avgpool2d_grad", {dx, dy, p.c, p.h, p.wd, p.oh, p.ow, p.kh, p.kw, p.sh, p.sw, p.pt, p.pl, p.pb,
                               p.pr, include},
            dx, nx);
    }
  }
  {
    struct Lrn {
      uint32_t c, hw, size, alpha, beta, bias;
    };
    static constexpr Lrn kLrn[] = {{7, 5, 3, 0x3c23d70a, 0x3f400000, 0x3f800000},   // 0.01, 0.75, 1
                                   {6, 4, 4, 0x3a83126f, 0x3f000000, 0x40000000},   // 1e-3, 0.5, 2
                                   {9, 3, 5, 0x38d1b717, 0x3f400000, 0x40000000},   // 1e-4, 0.75, 2
                                   {3, 4, 1, 0x3f800000, 0x3f400000, 0x3f800000}};  // size 1
    for (const Lrn& l : kLrn) {
      const Mark mark(s.arena());
      const uint32_t n = l.c * l.hw, x = mixed(s, r, n, -3, 3, 0), y = s.zeros(n);
      s.run("lrn", {y, x, l.c, l.hw, l.size, l.alpha, l.beta, l.bias}, y, n);
    }
  }
  for (uint32_t op = 0; op < 6; ++op) {
    {  // every special against every special, element-wise
      const Mark mark(s.arena());
      const uint32_t s2 = kNumSpecials * kNumSpecials;
      const uint32_t a = s.region(s2, [](uint32_t i) { return kSpecials[i / kNumSpecials]; });
      const uint32_t b = s.region(s2, [](uint32_t i) { return kSpecials[i % kNumSpecials]; });
      const uint32_t dst = s.zeros(s2);
      s.run("ewise2", {dst, a, b, s2, s2, 1, op}, dst, s2);
    }
    const Mark mark(s.arena());
    const uint32_t n = 2 * 3 * 5, a = mixed(s, r, n, -4, 4, 7), b = mixed(s, r, n, -4, 4, 0);
    const uint32_t dst = s.zeros(n);
    s.run("ewise2", {dst, a, b, n, 3, 5, op}, dst, n);  // per channel of [2][3][5]
    s.run("ewise2", {dst, a, b, n, 1, 1, op}, dst, n);  // scalar
    s.run("ewise2", {dst, a, b, n, 4, 2, op}, dst, n);  // b of 4, each for 2, wrapping
  }
  {
    struct Unary {
      uint32_t op, p0, p1;
    };
    static constexpr Unary kUnary[] = {
        {0, 0x3c23d70a, 0}, {0, 0xbf000000, 0},                       // leaky 0.01, -0.5
        {1, 0, 0},          {2, 0, 0},                                // sigmoid, tanh
        {3, 0xbf800000, 0x40200000}, {3, 0x00000000, 0x40c00000},     // clip [-1, 2.5], [0, 6]
        {3, 0x40000000, 0x3f800000}, {4, 0, 0}};                      // clip lo > hi, identity
    for (const Unary& u : kUnary) {
      const Mark mark(s.arena());
      // random values over many binades, then tanh's and sigmoid's edges, then specials
      static constexpr uint32_t kEdges[] = {0x41200000, 0x41200001, 0x411fffff, 0x41100000, 0x3eb17218,
                                            0x3eb17217, 0x3f317218, 0x39800000, 0x00000007, 0xc2b00000,
                                            0xc2b20000, 0x42b20000, 0xc1a00000, 0x41a00000, 0x3e000000};
      constexpr uint32_t kNumEdges = sizeof(kEdges) / sizeof(kEdges[0]);
      const uint32_t n = 120, m = n + kNumEdges + kNumSpecials;
      const uint32_t src = s.region(m, [&](uint32_t i) {
        if (i < n) return random_float(r, i < 60 ? -12 : -3, i < 60 ? 3 : 5);
        if (i < n + kNumEdges) return kEdges[i - n] ^ ((i & 1) << 31);
        return kSpecials[i - n - kNumEdges];
      });
      const uint32_t dst = s.zeros(m);
      s.run("ewise1", {dst, src, m, u.op, u.p0, u.p1}, dst, m);
      // the gradient: v is the forward's input (leaky, clip) or output (sigmoid in [0, 1],
      // tanh in [-1, 1]), specials included either way
      const uint32_t v = u.op == 1 || u.op == 2
                             ? s.region(m, [&](uint32_t i) {
                                 if (i >= n) return kSpecials[i % kNumSpecials];
                                 const uint32_t f = random_float(r, -20, -1);
                                 return u.op == 1 ? f & 0x7fffffffu : f;
                               })
                             : src;
      const uint32_t dy = mixed(s, r, m, -4, 4, 9), dx = s.zeros(m);
      s.run("ewise1_grad", {dx, dy, v, m, u.op, u.p0, u.p1}, dx, m);
    }
  }
}

}  // namespace tessera::fw::suite
