// conv2d: a 2-D convolution (cross-correlation, as PyTorch and ONNX define Conv) of one
// image, or of a spatial block of it. x is [cin][h][wd], w [cout][cin][kh][kw], b [cout],
// y [cout][oh][ow], all row-major. For every co, oy, ox (in that order):
//   acc = +0; for ci, then ky, then kx (index order):
//     iy = oy*sh + ky*dh - ph, ix = ox*sw + kx*dw - pw
//     if 0 <= iy < h and 0 <= ix < wd: acc = fp_fma(x[ci][iy][ix], w[co][ci][ky][kx], acc)
//   y[co][oy][ox] = acc + b[co]
// Terms outside the input are skipped (zero padding: the same bits as adding fma(0, w)
// except for the sign of a zero sum and a NaN or infinite weight meeting padding). ph and
// pw are i32 (the u32 field holds the two's complement): negative pads select a window
// that starts inside x, as the lowering passes for spatial blocks. Strides and dilations
// are >= 1 (0 repeats one position; harmless).
// State (codelets.h): [0] f32* y (cout*oh*ow), [1] const f32* x (cin*h*wd), [2] const f32*
// w (cout*cin*kh*kw), [3] const f32* b (cout), [4] u32 cin, [5] u32 h, [6] u32 wd,
// [7] u32 cout, [8] u32 oh, [9] u32 ow, [10] u32 kh, [11] u32 kw, [12] u32 sh, [13] u32 sw,
// [14] u32 ph (i32), [15] u32 pw (i32), [16] u32 dh, [17] u32 dw. y overlaps nothing.
#include "codelets/codelets.h"
#include "codelets/conv2d_shape.h"
#include "codelets/window.h"
#include "runtime/fp_rules.h"
#include "runtime/platform.h"
#if !defined(__riscv)
#include <algorithm>
#include <cstring>

#include "runtime/native_simd.h"
#include "tessera/arch/control.h"
#endif

namespace tessera::fw {

namespace {

// The windows of four output columns from the one starting at ix0 (an i32) lie wholly
// inside a row of wd: computed exactly, so that no wrapping stride or dilation passes.
inline bool four_inside(uint32_t ix0, uint32_t sw, uint32_t dw, uint32_t kw, uint32_t wd) {
  const int64_t first = static_cast<int32_t>(ix0);
  return first >= 0 && first + 3 * static_cast<int64_t>(sw) + static_cast<int64_t>(kw - 1) * dw < wd;
}

}  // namespace

extern "C" void codelet_conv2d(uint32_t state_addr) {
  const uint32_t* s = tile_ptr<const uint32_t>(state_addr, kWords_conv2d);
  const Conv2dShape shape = Conv2dShape::of(s);
  const auto [cin, h, wd, cout, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw] = shape;
  const uint32_t plane = h * wd, kplane = kh * kw;
  float* y = tile_ptr<float>(s[0], shape.y_count());
  const float* x = tile_ptr<const float>(s[1], shape.x_count());
  const float* w = tile_ptr<const float>(s[2], shape.w_count());
  const float* b = tile_ptr<const float>(s[3], cout);
  // Nothing to write (an extent is zero): return now rather than walk up to 2^32 - 1 empty
  // rows or channels (fuzz_control found that runaway in avgpool2d_grad and maxpool2d_grad).
  if (no_elements(cout, oh, ow)) return;
  // No term in any sum (no input channel, an empty kernel or an empty x): y = +0 + b,
  // without scanning up to 2^32 - 1 kernel rows that no tensor bounds, and without the
  // vector kernel's pointer arithmetic on an x that is null (fuzz_control, UBSan).
  if (no_elements(cin, kh, kw) || no_elements(h, wd)) {
    for (uint32_t co = 0; co < cout; ++co)
      for (uint32_t i = 0, n = oh * ow; i < n; ++i) y[co * n + i] = 0.0f + b[co];  // y checked: no wrap
    return;
  }
#if !defined(__riscv)
  // The same chains, eight output columns at once (native_simd.h).
  if (simd::enabled() && simd::conv2d(y, x, w, b, shape)) return;
#endif
  for (uint32_t co = 0; co < cout; ++co) {
    const float bias = b[co];
    const float* wco = w + static_cast<uintptr_t>(co) * cin * kplane;
    for (uint32_t oy = 0; oy < oh; ++oy) {
      const uint32_t iy0 = oy * sh - ph;  // iy of ky = 0
      const Span ry = inside(iy0, dh, kh, h);
      for (uint32_t ox = 0; ox < ow; ++ox) {
        const uint32_t ix0 = ox * sw - pw;
        // Four output columns whose windows lie wholly inside the row at once: each weight
        // loaded once for the four, four independent chains that hide the FMA's latency,
        // each chain the same terms in the same order as one column alone (the same bits).
        if (ox + 4 <= ow && four_inside(ix0, sw, dw, kw, wd)) {
          float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
          const uint32_t s2 = 2 * sw, s3 = 3 * sw;
          for (uint32_t ci = 0; ci < cin; ++ci) {
            const float* xc = x + ix0 + static_cast<uintptr_t>(ci) * plane;
            const float* wc = wco + static_cast<uintptr_t>(ci) * kplane;
            for (uint32_t ky = ry.lo; ky < ry.hi; ++ky) {
              const float* xr = xc + static_cast<uintptr_t>(iy0 + ky * dh) * wd;
              const float* wr = wc + ky * kw;
              for (uint32_t j = 0; j < kw; ++j) {
                const float wv = wr[j];
                const float* xp = xr + j * dw;
                a0 = fp_fma(xp[0], wv, a0);
                a1 = fp_fma(xp[sw], wv, a1);
                a2 = fp_fma(xp[s2], wv, a2);
                a3 = fp_fma(xp[s3], wv, a3);
              }
            }
          }
          float* yo = y + (static_cast<uintptr_t>(co) * oh + oy) * ow + ox;
          yo[0] = a0 + bias;
          yo[1] = a1 + bias;
          yo[2] = a2 + bias;
          yo[3] = a3 + bias;
          ox += 3;
          continue;
        }
        // One column alone (a window the row's edge cuts, or the row's last columns).
        const Span rx = inside(ix0, dw, kw, wd);
        const uint32_t nx = rx.hi - rx.lo;
        float acc = 0.0f;
        if (nx == 0 || ry.lo == ry.hi) {
          y[(static_cast<uintptr_t>(co) * oh + oy) * ow + ox] = acc + bias;
          continue;
        }
        const float* xstart = x + (ix0 + rx.lo * dw);  // + iy * wd for a row
        for (uint32_t ci = 0; ci < cin; ++ci) {
          const float* xc = xstart + static_cast<uintptr_t>(ci) * plane;
          const float* wc = wco + static_cast<uintptr_t>(ci) * kplane + rx.lo;
          for (uint32_t ky = ry.lo; ky < ry.hi; ++ky) {
            const float* xr = xc + static_cast<uintptr_t>(iy0 + ky * dh) * wd;
            const float* wr = wc + ky * kw;
            for (uint32_t j = 0; j < nx; ++j) acc = fp_fma(xr[j * dw], wr[j], acc);
          }
        }
        y[(static_cast<uintptr_t>(co) * oh + oy) * ow + ox] = acc + bias;
      }
    }
  }
}

#if !defined(__riscv)
namespace {

// The most lone-channel vertices native_conv2d_vertices runs as one kernel call.
constexpr uint32_t kMaxLoneConvs = 64;

// A conv2d vertex's state read without halting: false where the codelet would fault on it
// or would not reach the vector kernel with one output channel (it then runs alone, and
// faults or takes its other paths there).
struct LoneConv {
  float* y;
  const float* x;
  const float* w;
  const float* b;
  Conv2dShape s;
  uintptr_t y_end, w_end, b_end;
};

bool lone_conv(uint32_t state_addr, LoneConv& v) {
  const uint32_t* s = tile_ptr_or_null<const uint32_t>(state_addr, kWords_conv2d);
  if (!s) return false;
  v.s = Conv2dShape::of(s);
  const Conv2dShape& d = v.s;
  if (d.cout != 1 || no_elements(d.oh, d.ow) || no_elements(d.cin, d.kh, d.kw) || no_elements(d.h, d.wd)) return false;
  v.y = tile_ptr_or_null<float>(s[0], d.y_count());
  v.x = tile_ptr_or_null<const float>(s[1], d.x_count());
  v.w = tile_ptr_or_null<const float>(s[2], d.w_count());
  v.b = tile_ptr_or_null<const float>(s[3], 1);
  if (!v.y || !v.x || !v.w || !v.b) return false;
  v.y_end = reinterpret_cast<uintptr_t>(v.y + d.y_count()), v.w_end = reinterpret_cast<uintptr_t>(v.w + d.w_count());
  v.b_end = reinterpret_cast<uintptr_t>(v.b + 1);
  return true;
}

// Whether running the k lone vertices v (one x) as one kernel call could differ from running
// them in order: some vertex's y overlaps x, or another vertex's y, w or b (a vertex would
// read what an earlier one wrote, or a later one overwrite it). The ys sorted by address:
// disjoint when each ends before the next begins; then each w and b against the ys that could
// meet it.
bool clash(const LoneConv* v, uint32_t k) {
  const uintptr_t x_lo = reinterpret_cast<uintptr_t>(v[0].x);
  const uintptr_t x_hi = reinterpret_cast<uintptr_t>(v[0].x + v[0].s.x_count());
  struct Range {
    uintptr_t lo, hi;
    uint32_t owner;
  };
  Range ys[kMaxLoneConvs];
  for (uint32_t i = 0; i < k; ++i) ys[i] = {reinterpret_cast<uintptr_t>(v[i].y), v[i].y_end, i};
  std::sort(ys, ys + k, [](const Range& a, const Range& b) { return a.lo < b.lo; });
  for (uint32_t i = 0; i < k; ++i) {
    if (ys[i].lo < x_hi && x_lo < ys[i].hi) return true;
    if (i + 1 < k && ys[i + 1].lo < ys[i].hi) return true;
  }
  // A range [lo, hi) of vertex `owner` against the other vertices' ys.
  const auto meets = [&](uintptr_t lo, uintptr_t hi, uint32_t owner) {
    // the first y that ends after lo, then every y that begins before hi
    uint32_t i = static_cast<uint32_t>(
        std::partition_point(ys, ys + k, [&](const Range& r) { return r.hi <= lo; }) - ys);
    for (; i < k && ys[i].lo < hi; ++i)
      if (ys[i].owner != owner) return true;
    return false;
  };
  for (uint32_t i = 0; i < k; ++i) {
    if (meets(reinterpret_cast<uintptr_t>(v[i].w), v[i].w_end, i)) return true;
    if (meets(reinterpret_cast<uintptr_t>(v[i].b), v[i].b_end, i)) return true;
  }
  return false;
}

}  // namespace

uint32_t native_conv2d_vertices(const arch::Vertex* vs, uint32_t n) {
  // The compiler makes one vertex per output channel of a block of rows, each reading the
  // same window of x (LeNet-5's convs: 1 channel, 4 or 5 rows, 28 or 10 columns; a plan for
  // the host of ResNet-18's first stage: 32 channels, 7 rows, 56 columns), so a vertex's
  // kernel loads a vector of x for every FMA, and copies x for itself. Consecutive such
  // vertices with the same x and shape run as the channels of one kernel call instead: each
  // load then feeds several chains, and x is copied once. Only where running them in order
  // could not differ: every vertex's state and arrays valid (else the first runs alone and
  // faults there), no clash (above).
  LoneConv v[kMaxLoneConvs];
  uint32_t k = 0;
  if (simd::enabled() && n > 1 && lone_conv(vs[0].state, v[0])) {
    const Conv2dShape& s0 = v[0].s;
    for (k = 1; k < std::min(n, kMaxLoneConvs); ++k) {
      if (vs[k].codelet != vs[0].codelet || !lone_conv(vs[k].state, v[k]) || v[k].x != v[0].x ||
          std::memcmp(&v[k].s, &s0, sizeof s0) != 0)
        break;
    }
    if (clash(v, k)) k = 1;
  }
  if (k > 1) {
    float* ys[kMaxLoneConvs];
    const float* ws[kMaxLoneConvs];
    const float* bs[kMaxLoneConvs];
    for (uint32_t i = 0; i < k; ++i) ys[i] = v[i].y, ws[i] = v[i].w, bs[i] = v[i].b;
    if (simd::conv2d_channels(ys, v[0].x, ws, bs, k, v[0].s)) return k;
  }
  codelet_conv2d(vs[0].state);
  return 1;
}
#endif

}  // namespace tessera::fw
