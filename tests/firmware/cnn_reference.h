// Plain C++ references of the CNN codelets (conv2d and its gradients, channel_sum, pooling
// and its gradients, lrn, ewise2, ewise1, ewise1_grad), written from the definitions in the
// codelets' headers the direct way (every kernel tap tested, the input gradient found by
// searching all outputs, PyTorch's pooling rules transcribed), for the codelet suite's
// native check (codelet_iss_test.cpp) and the vertex tool. Built with the FP rules of the
// codelets (-ffp-contract=off), so the exact references give the same bits.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "fp_check.h"
#include "runtime/fp_rules.h"

namespace tessera::fwtest::cnn {

using Floats = std::vector<float>;

struct Conv {
  int64_t cin, h, wd, cout, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw;
};
// The fields [first, first + 14) of a state record (pads as i32).
inline Conv conv_fields(const uint32_t* s) {
  auto i = [&](int k) { return static_cast<int64_t>(s[k]); };
  auto p = [&](int k) { return static_cast<int64_t>(static_cast<int32_t>(s[k])); };
  return {i(0), i(1), i(2), i(3), i(4), i(5), i(6), i(7), i(8), i(9), p(10), p(11), i(12), i(13)};
}

inline Floats conv2d(const Conv& c, const Floats& x, const Floats& w, const Floats& b) {
  Floats y;
  for (int64_t co = 0; co < c.cout; ++co)
    for (int64_t oy = 0; oy < c.oh; ++oy)
      for (int64_t ox = 0; ox < c.ow; ++ox) {
        float acc = 0.0f;
        for (int64_t ci = 0; ci < c.cin; ++ci)
          for (int64_t ky = 0; ky < c.kh; ++ky)
            for (int64_t kx = 0; kx < c.kw; ++kx) {
              const int64_t iy = oy * c.sh + ky * c.dh - c.ph, ix = ox * c.sw + kx * c.dw - c.pw;
              if (iy < 0 || iy >= c.h || ix < 0 || ix >= c.wd) continue;
              acc = std::fma(x[(ci * c.h + iy) * c.wd + ix], w[((co * c.cin + ci) * c.kh + ky) * c.kw + kx], acc);
            }
        y.push_back(acc + b[co]);
      }
  return y;
}

inline Floats conv2d_grad_input(const Conv& c, const Floats& dy, const Floats& w) {
  Floats dx;
  for (int64_t ci = 0; ci < c.cin; ++ci)
    for (int64_t iy = 0; iy < c.h; ++iy)
      for (int64_t ix = 0; ix < c.wd; ++ix) {
        float acc = 0.0f;
        for (int64_t co = 0; co < c.cout; ++co)
          for (int64_t ky = 0; ky < c.kh; ++ky)
            for (int64_t kx = 0; kx < c.kw; ++kx)
              for (int64_t oy = 0; oy < c.oh; ++oy)  // the output this tap maps here, if any
                for (int64_t ox = 0; ox < c.ow; ++ox)
                  if (oy * c.sh + ky * c.dh - c.ph == iy && ox * c.sw + kx * c.dw - c.pw == ix)
                    acc = std::fma(dy[(co * c.oh + oy) * c.ow + ox], w[((co * c.cin + ci) * c.kh + ky) * c.kw + kx], acc);
        dx.push_back(acc);
      }
  return dx;
}

inline Floats conv2d_grad_weight(const Conv& c, const Floats& x, const Floats& dy, Floats dw, bool accumulate) {
  size_t at = 0;
  for (int64_t co = 0; co < c.cout; ++co)
    for (int64_t ci = 0; ci < c.cin; ++ci)
      for (int64_t ky = 0; ky < c.kh; ++ky)
        for (int64_t kx = 0; kx < c.kw; ++kx, ++at) {
          float acc = accumulate ? dw[at] : 0.0f;
          for (int64_t oy = 0; oy < c.oh; ++oy)
            for (int64_t ox = 0; ox < c.ow; ++ox) {
              const int64_t iy = oy * c.sh + ky * c.dh - c.ph, ix = ox * c.sw + kx * c.dw - c.pw;
              if (iy < 0 || iy >= c.h || ix < 0 || ix >= c.wd) continue;
              acc = std::fma(dy[(co * c.oh + oy) * c.ow + ox], x[(ci * c.h + iy) * c.wd + ix], acc);
            }
          dw[at] = acc;
        }
  return dw;
}

inline Floats channel_sum(const Floats& src, int64_t c, int64_t hw, Floats out, bool accumulate) {
  for (int64_t ci = 0; ci < c; ++ci) {
    float acc = accumulate ? out[ci] : 0.0f;
    for (int64_t i = 0; i < hw; ++i) acc = acc + src[ci * hw + i];
    out[ci] = acc;
  }
  return out;
}

struct Pool {
  int64_t c, h, wd, oh, ow, kh, kw, sh, sw, pt, pl, pb, pr;
  bool include_pad;
};

// PyTorch's max_pool2d pick in window (ci, oy, ox): the index into x, or -1.
inline int64_t max_pick(const Pool& p, const Floats& x, int64_t ci, int64_t oy, int64_t ox) {
  int64_t best = -1;
  for (int64_t ky = 0; ky < p.kh; ++ky)
    for (int64_t kx = 0; kx < p.kw; ++kx) {
      const int64_t iy = oy * p.sh + ky - p.pt, ix = ox * p.sw + kx - p.pl;
      if (iy < 0 || iy >= p.h || ix < 0 || ix >= p.wd) continue;
      const int64_t i = (ci * p.h + iy) * p.wd + ix;
      if (best < 0 || x[i] > x[best] || std::isnan(x[i])) best = i;
    }
  return best;
}

inline std::vector<uint32_t> maxpool2d(const Pool& p, const Floats& x) {
  std::vector<uint32_t> y;
  for (int64_t ci = 0; ci < p.c; ++ci)
    for (int64_t oy = 0; oy < p.oh; ++oy)
      for (int64_t ox = 0; ox < p.ow; ++ox) {
        const int64_t i = max_pick(p, x, ci, oy, ox);
        y.push_back(i < 0 ? 0xff800000u : bits(x[i]));
      }
  return y;
}

inline Floats maxpool2d_grad(const Pool& p, const Floats& dy, const Floats& x) {
  Floats dx(x.size(), 0.0f);
  size_t o = 0;
  for (int64_t ci = 0; ci < p.c; ++ci)
    for (int64_t oy = 0; oy < p.oh; ++oy)
      for (int64_t ox = 0; ox < p.ow; ++ox, ++o) {
        const int64_t i = max_pick(p, x, ci, oy, ox);
        if (i >= 0) dx[i] = dx[i] + dy[o];
      }
  return dx;
}

// PyTorch's cpu_avg_pool window (aten/src/ATen/native/cpu/AvgPoolKernel.cpp, 1.13), with
// separate end pads: [ih0, ih1) x [iw0, iw1) and the divisor; false if empty.
inline bool avg_window(const Pool& p, int64_t oy, int64_t ox, int64_t& ih0, int64_t& ih1, int64_t& iw0,
                       int64_t& iw1, int64_t& divide) {
  ih0 = oy * p.sh - p.pt;
  iw0 = ox * p.sw - p.pl;
  ih1 = std::min(ih0 + p.kh, p.h + p.pb);
  iw1 = std::min(iw0 + p.kw, p.wd + p.pr);
  const int64_t pool_size = (ih1 - ih0) * (iw1 - iw0);
  ih0 = std::max<int64_t>(ih0, 0);
  iw0 = std::max<int64_t>(iw0, 0);
  ih1 = std::min(ih1, p.h);
  iw1 = std::min(iw1, p.wd);
  divide = p.include_pad ? pool_size : (ih1 - ih0) * (iw1 - iw0);
  return ih0 < ih1 && iw0 < iw1;
}

inline Floats avgpool2d(const Pool& p, const Floats& x) {
  Floats y;
  for (int64_t ci = 0; ci < p.c; ++ci)
    for (int64_t oy = 0; oy < p.oh; ++oy)
      for (int64_t ox = 0; ox < p.ow; ++ox) {
        int64_t ih0, ih1, iw0, iw1, divide;
        if (!avg_window(p, oy, ox, ih0, ih1, iw0, iw1, divide)) {
          y.push_back(0.0f);
          continue;
        }
        float sum = 0.0f;
        for (int64_t ih = ih0; ih < ih1; ++ih)
          for (int64_t iw = iw0; iw < iw1; ++iw) sum += x[(ci * p.h + ih) * p.wd + iw];
        y.push_back(sum / static_cast<float>(divide));
      }
  return y;
}

inline Floats avgpool2d_grad(const Pool& p, const Floats& dy) {
  Floats dx(static_cast<size_t>(p.c * p.h * p.wd), 0.0f);
  size_t o = 0;
  for (int64_t ci = 0; ci < p.c; ++ci)
    for (int64_t oy = 0; oy < p.oh; ++oy)
      for (int64_t ox = 0; ox < p.ow; ++ox, ++o) {
        int64_t ih0, ih1, iw0, iw1, divide;
        if (!avg_window(p, oy, ox, ih0, ih1, iw0, iw1, divide)) continue;
        const float g = dy[o] / static_cast<float>(divide);
        for (int64_t ih = ih0; ih < ih1; ++ih)
          for (int64_t iw = iw0; iw < iw1; ++iw) dx[(ci * p.h + ih) * p.wd + iw] += g;
      }
  return dx;
}

// ONNX LRN in double precision (the codelet is compared within a few ulps).
inline std::vector<double> lrn(const Floats& x, int64_t c, int64_t hw, int64_t size, double alpha, double beta,
                               double bias) {
  std::vector<double> y;
  for (int64_t ci = 0; ci < c; ++ci)
    for (int64_t p = 0; p < hw; ++p) {
      double sq = 0;
      for (int64_t j = ci - (size - 1) / 2; j <= ci + size / 2; ++j)
        if (j >= 0 && j < c) sq += double{x[j * hw + p]} * x[j * hw + p];
      y.push_back(x[ci * hw + p] / std::pow(bias + alpha / static_cast<double>(size) * sq, beta));
    }
  return y;
}

inline float ewise2_op(uint32_t op, float a, float b) {
  switch (op) {
    case 0: return a + b;
    case 1: return a - b;
    case 2: return a * b;
    case 3: return a / b;
    case 4: return fw::fp_max(a, b);
    default: return fw::fp_min(a, b);
  }
}

inline Floats ewise2(const Floats& a, const Floats& b, uint64_t bn, uint64_t inner, uint32_t op) {
  Floats d;
  for (uint64_t i = 0; i < a.size(); ++i) d.push_back(ewise2_op(op, a[i], b[(i / inner) % bn]));
  return d;
}

// ewise1: exact for leaky_relu, clip and identity; sigmoid and tanh in double (the caller
// compares those within a few ulps).
inline double ewise1(uint32_t op, float x, float p0, float p1) {
  switch (op) {
    case 0: return x > 0.0f ? x : x * p0;
    case 1: return 1.0 / (1.0 + std::exp(-double{x}));
    case 2: return std::tanh(double{x});
    case 3: return std::min(std::max(x, p0), p1);
    default: return x;
  }
}

inline float ewise1_grad(uint32_t op, float g, float u, float p0, float p1) {
  switch (op) {
    case 0: return u > 0.0f ? g : g * p0;
    case 1: return g * (1.0f - u) * u;
    case 2: return g * std::fma(-u, u, 1.0f);
    case 3: return (u <= p0 || u >= p1) ? 0.0f : g;
    default: return g;
  }
}

}  // namespace tessera::fwtest::cnn
