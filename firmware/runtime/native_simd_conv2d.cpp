// Native mode's vector conv2d kernel (native_simd.h): its blocks built three times, for AVX2,
// for AVX-512 F + VL with 8-lane vectors and with 16-lane ones
// (native_simd_conv2d_blocks.inc), the build chosen at run time.
#include <immintrin.h>

#include <algorithm>
#include <type_traits>
#include <vector>

#include "codelets/window.h"
#include "runtime/native_simd.h"
#include "runtime/native_simd_pairs.h"

namespace tessera::fw::simd {
namespace {

constexpr uint32_t kMaxKw = 16;  // wider kernels take the codelet's loop
constexpr uint64_t kMaxCopy = uint64_t{1} << 16;  // floats: the most x's copies hold
// Sizes, strides, pads and dilations below which the blocks' 64-bit (and lane columns' 32-bit)
// arithmetic equals the codelet's 32-bit arithmetic: every real convolution's.
constexpr uint32_t kSane = 1u << 20;

// How a block reads a vector of x: kMasked, one masked load (the lanes outside x read
// nothing); kPlain, one plain load, from a copy of x with margins wide enough for every
// lane of every block (conv2d() below), the lanes outside x kept out of the chains (a blend
// or a masked FMA) or not stored as with kMasked; kStrided, a column stride above 1 (two
// masked loads and a shuffle at 2, else a gather); kPhased, a column stride above 1, one
// plain load from a copy of x split into phases (Phases). A plain load is much cheaper than
// an AVX2 masked one: on the hosts measured a block of 10 chains of masked loads was bound
// by the loads, not by the FMAs; a gather of 16 lanes costs several FMAs' time.
enum class Load { kMasked, kPlain, kStrided, kPhased };

int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// The output column lanes a row's blocks may read, from column 0. A vertex of one output row
// (one_row) reads whole blocks of up to 8 vectors of 16 lanes, the last past the row's end;
// one of more rows (channels, few_rows) starts a block of V vectors at ox only where more
// than V / 2 vectors' columns are left (V = 1: any), so every lane it reads lies below
// max(2 ow, ow + 16). x's copies (plain or in phases) have margins for them: ResNet-18's
// 7-column convs read 23 lanes, not 128 (its last stage's stride-2 conv then fits a phased
// copy).
int64_t lanes_read(const Conv2dShape& s) {
  const int64_t ow = s.ow;
  return s.oh == 1 ? (ow + 127) / 128 * 128 : std::max(2 * ow, ow + 16);
}

// x at a column stride sw > 1 as kPhased reads it: each row of x (wd columns) as sw phase
// rows of `len` floats, phase p holding columns p, p + sw, p + 2 sw, ... from `lo` on (zeros
// around them). Output column ox's lane at kernel column kx reads column ox sw - pw + kx dw:
// phase (kx dw - pw) mod sw, index ox + floor((kx dw - pw) / sw); consecutive output
// columns read consecutive floats. The margins hold every lane of up to 8 vectors of 16
// lanes past the last output column, and those left of column 0 (masked away, as at a
// stride of 1).
struct Phases {
  int64_t lo = 0, len = 0;
  int64_t row(const Conv2dShape& s) const { return len * s.sw; }
  // Floats from index 0 of a row's phase 0 to what output column 0's lane reads at kx.
  int64_t at(const Conv2dShape& s, uint32_t kx) const {
    const int64_t off = int64_t{kx} * s.dw - static_cast<int32_t>(s.pw);
    const int64_t p = off - floor_div(off, s.sw) * s.sw;
    return p * len + floor_div(off, s.sw);
  }
};

Phases phases(const Conv2dShape& s) {
  const int64_t pw = static_cast<int32_t>(s.pw), sw = s.sw;
  const int64_t data = (int64_t{s.wd} + sw - 1) / sw;
  const int64_t last = lanes_read(s) - 1 + floor_div(int64_t{s.kw - 1} * s.dw - pw, sw);  // the last index read
  Phases ph;
  ph.lo = std::max<int64_t>(0, -floor_div(-pw, sw));
  ph.len = ph.lo + std::max(data, last + 1);
  return ph;
}

// Where each output channel's weights ([cin][kh][kw]), bias and output ([oh][ow]) lie:
// one conv2d's channels, or the lone channels of several conv2d vertices that share x and
// the shape (conv2d_channels).
struct Chans {
  const float* const* w;
  const float* const* b;
  float* const* y;
};

// Where flat blocks read x (native_simd_conv2d_blocks.inc): flat output f's term (ci, ky, kx)
// at origin + f + plane ci + ky_step ky + (kx dw, or kx_off[kx] where strided).
struct FlatX {
  const float* origin;
  uintptr_t plane, ky_step, row;  // row: y's row length W in flat outputs
  bool strided;
  int64_t kx_off[kMaxKw];
};

// The blocks and their choice, once for each instruction set and vector width
// (native_simd_conv2d_blocks.inc): every output still the codelet's chain, so all give the
// same bits.
namespace avx2 {
#define TESSERA_SIMD __attribute__((target("avx2,fma")))
#define TESSERA_CONV_AVX512 0
#define TESSERA_CONV_LANES 8
#include "runtime/native_simd_conv2d_blocks.inc"
#undef TESSERA_CONV_LANES
#undef TESSERA_CONV_AVX512
#undef TESSERA_SIMD
}  // namespace avx2

namespace avx512 {
#define TESSERA_SIMD __attribute__((target("avx2,fma,avx512f,avx512vl")))
#define TESSERA_CONV_AVX512 1
#define TESSERA_CONV_LANES 8
#include "runtime/native_simd_conv2d_blocks.inc"
#undef TESSERA_CONV_LANES
#undef TESSERA_CONV_AVX512
#undef TESSERA_SIMD
}  // namespace avx512

namespace avx512_wide {
#define TESSERA_SIMD __attribute__((target("avx2,fma,avx512f,avx512vl")))
#define TESSERA_CONV_AVX512 1
#define TESSERA_CONV_LANES 16
#include "runtime/native_simd_conv2d_blocks.inc"
#undef TESSERA_CONV_LANES
#undef TESSERA_CONV_AVX512
#undef TESSERA_SIMD
}  // namespace avx512_wide

template <Load kLoad>
void all_channels(const Chans& c, const float* x, const Conv2dShape& s) {
  if (!avx512_enabled()) avx2::all_channels<kLoad>(c, x, s);
  else if (wide_enabled()) avx512_wide::all_channels<kLoad>(c, x, s);
  else avx512::all_channels<kLoad>(c, x, s);
}

// x's n floats copied into a per-thread buffer between `before` and `after` zeros (never in
// a stored lane, but no stale NaN or subnormal in a masked one); returns where x's copy starts.
const float* with_margins(const float* x, uint64_t n, uint64_t before, uint64_t after) {
  thread_local std::vector<float> copy;
  if (copy.size() < before + n + after) copy.resize(before + n + after);
  std::fill_n(copy.data(), before, 0.0f);
  std::copy_n(x, n, copy.data() + before);
  std::fill_n(copy.data() + before + n, after, 0.0f);
  return copy.data() + before;
}

void flat_channels(const Chans& c, const FlatX& x, const Conv2dShape& s) {
  if (!avx512_enabled()) avx2::flat_channels(c, x, s);
  else if (wide_enabled()) avx512_wide::flat_channels(c, x, s);
  else avx512::flat_channels(c, x, s);
}

// Whether the flat blocks' row arithmetic (64-bit, in flat_masks) equals the codelet's:
// sizes, strides, pads and dilations of the rows far below 2^31 (run() checks the columns').
bool rows_sane(const Conv2dShape& s) {
  const int64_t ph = static_cast<int32_t>(s.ph);
  return s.kh <= kMaxKw && s.h < kSane && s.oh < kSane && s.sh < (1u << 10) && s.dh < kSane / kMaxKw &&
         ph < kSane && ph > -int64_t{kSane};
}

// The lanes of a vector in the blocks that run.
uint64_t vector_lanes() { return avx512_enabled() && wide_enabled() ? 16 : 8; }

// Whether a conv takes flat blocks at all: enough work for each set of masks (a set takes
// about as long as 16 channel pairs' FMAs: LeNet-5's conv1, one input channel, was slower),
// and no more vectors than y's rows take, with y's rows `row` outputs long in the flat layout.
bool flat_pays(const Conv2dShape& s, uint64_t row) {
  if (uint64_t{s.cin} * s.cout < 64 || s.oh < 2) return false;
  const uint64_t lanes = vector_lanes();
  const uint64_t flat = (uint64_t{s.oh - 1} * row + s.ow + lanes - 1) / lanes;
  return flat <= uint64_t{s.oh} * ((s.ow + lanes - 1) / lanes);
}

// A strided conv (run() has checked the column sizes) in flat blocks, where they take no more
// vectors than y's rows: x copied as planes [ci][ky][column phase][oy][W] (FlatX, the
// blocks' comment), each plane's rows of W floats holding what one kernel row's outputs read
// at every kx of that phase, zeros outside x (masked away). ResNet-18's stride-2 3 x 3 convs
// to 7 x 7 (a vector of 7 lanes a row, 7 rows: now 4 vectors), 14 x 14 and 28 x 28 outputs.
// Returns whether it ran.
bool flat_strided(const Chans& c, const float* x, const Conv2dShape& s) {
  const int64_t ph = static_cast<int32_t>(s.ph), pw = static_cast<int32_t>(s.pw), sw = s.sw;
  if (!rows_sane(s)) return false;
  int64_t q[kMaxKw], p[kMaxKw], qmin = 0, qmax = 0;
  for (uint32_t kx = 0; kx < s.kw; ++kx) {
    const int64_t off = int64_t{kx} * s.dw - pw;
    q[kx] = floor_div(off, sw), p[kx] = off - q[kx] * sw;
    qmin = kx ? std::min(qmin, q[kx]) : q[kx], qmax = kx ? std::max(qmax, q[kx]) : q[kx];
  }
  const int64_t row = s.ow + (qmax - qmin);
  if (!flat_pays(s, row)) return false;
  const int64_t plane = int64_t{s.oh} * row, planes = int64_t{s.cin} * s.kh * sw;
  // the last lane's reads past the last plane (garbage lanes, not stored)
  const int64_t lanes = static_cast<int64_t>(vector_lanes());
  const int64_t last = ((s.oh - 1) * row + s.ow + lanes - 1) / lanes * lanes + (qmax - qmin);
  const int64_t n = planes * plane + std::max<int64_t>(0, last - plane);
  if (n > static_cast<int64_t>(kMaxCopy)) return false;
  thread_local std::vector<float> copy;
  if (copy.size() < static_cast<uint64_t>(n)) copy.resize(n);
  float* to = copy.data();
  for (uint32_t ci = 0; ci < s.cin; ++ci)
    for (uint32_t ky = 0; ky < s.kh; ++ky)
      for (int64_t phase = 0; phase < sw; ++phase)
        for (uint32_t oy = 0; oy < s.oh; ++oy, to += row) {
          const int64_t iy = int64_t{oy} * s.sh - ph + int64_t{ky} * s.dh;
          if (iy < 0 || iy >= s.h) {
            std::fill_n(to, row, 0.0f);
            continue;
          }
          const float* from = x + (uint64_t{ci} * s.h + static_cast<uint64_t>(iy)) * s.wd;
          for (int64_t t = 0; t < row; ++t) {
            const int64_t col = phase + sw * (qmin + t);
            to[t] = col >= 0 && col < s.wd ? from[col] : 0.0f;
          }
        }
  std::fill(to, copy.data() + n, 0.0f);
  FlatX fx{copy.data(), static_cast<uintptr_t>(s.kh * sw * plane),
           static_cast<uintptr_t>(sw * plane), static_cast<uintptr_t>(row), true, {}};
  for (uint32_t kx = 0; kx < s.kw; ++kx) fx.kx_off[kx] = p[kx] * plane + q[kx] - qmin;
  flat_channels(c, fx, s);
  return true;
}

// A "same" conv (strides of 1, x's rows as long as y's) in flat blocks
// (native_simd_conv2d_blocks.inc), where they take no more vectors than y's rows do: ResNet-18's
// 7 x 7 outputs take 4 vectors of 16 lanes, not 7. x is copied with margins for every float a
// flat vector reads, from output 0 at ky = kx = 0 in the first channel to the last lane of
// the last vector (of 16 lanes) at the last ky and kx in the last. Returns whether it ran
// (run() has checked the sizes; h, dh and ph are kept as small, so that the masks' 64-bit
// arithmetic is the codelet's).
bool flat(const Chans& c, const float* x, const Conv2dShape& s) {
  const int64_t ph = static_cast<int32_t>(s.ph), pw = static_cast<int32_t>(s.pw);
  if (s.sh != 1 || s.sw != 1 || s.wd != s.ow || !rows_sane(s)) return false;
  // As many vectors as y's rows take (ResNet-18's 7 rows of 14 columns: 7 either way) go
  // flat too: its blocks of 5 channels by 4 vectors ran about 14% more multiply-adds a cycle
  // a lane than the rows' 8 channels by 2 rows.
  if (!flat_pays(s, s.ow)) return false;
  const uint64_t count = uint64_t{s.oh} * s.ow;
  // The floats read from a channel's plane, relative to its start: first .. last.
  const int64_t plane = int64_t{s.h} * s.wd, first = -ph * s.wd - pw;
  const int64_t last = static_cast<int64_t>((count + 15) / 16 * 16) - 1 + first + int64_t{s.kh - 1} * s.dh * s.wd +
                       int64_t{s.kw - 1} * s.dw;
  const int64_t n = s.cin * plane;
  const int64_t before = std::max<int64_t>(0, -first), after = std::max<int64_t>(0, last + 1 - plane);
  if (before + n + after > static_cast<int64_t>(kMaxCopy)) return false;
  FlatX fx{with_margins(x, n, before, after) + first, static_cast<uintptr_t>(plane),
           uintptr_t{s.dh} * s.wd, s.wd, false, {}};
  flat_channels(c, fx, s);
  return true;
}

bool run(const Chans& c, const float* x, const Conv2dShape& s) {
  if (s.sw == 0 || s.kw == 0 || s.kh == 0 || s.kw > kMaxKw) return false;
  // Column arithmetic in int64, and lane columns in i32, equal the codelet's in u32 while
  // nothing wraps: sizes, strides, pads and dilations far below 2^31 (every real
  // convolution): |ox sw - pw + kx dw + l sw| < 2^20 2^10 + 2^20 + 2^20 < 2^31.
  const int32_t pw = static_cast<int32_t>(s.pw);
  if (s.wd >= kSane || s.ow >= kSane || s.sw >= (1u << 10) || s.dw >= kSane / kMaxKw ||
      pw >= static_cast<int32_t>(kSane) || pw <= -static_cast<int32_t>(kSane))
    return false;
  if ((s.sw != 1 || s.sh != 1) && flat_strided(c, x, s)) return true;
  if (s.sw != 1) {
    // x split into phases (Phases), where the copy is small beside the work.
    const Phases ph = phases(s);
    const uint64_t rows = uint64_t{s.cin} * s.h, n = rows * static_cast<uint64_t>(ph.row(s));
    if (!phased_enabled() || n > kMaxCopy) {
      all_channels<Load::kStrided>(c, x, s);
      return true;
    }
    thread_local std::vector<float> phased;
    if (phased.size() < n) phased.resize(n);
    std::fill_n(phased.data(), n, 0.0f);  // the margins: no stale NaN or subnormal in a masked lane
    for (uint64_t r = 0; r < rows; ++r) {
      const float* from = x + r * s.wd;
      float* to = phased.data() + r * ph.row(s) + ph.lo;
      for (uint32_t p = 0; p < s.sw; ++p, to += ph.len)
        for (uint32_t j = 0, col = p; col < s.wd; ++j, col += s.sw) to[j] = from[col];
    }
    all_channels<Load::kPhased>(c, phased.data(), s);
    return true;
  }
  if (flat(c, x, s)) return true;
  // A column stride of 1: x copied into a per-thread buffer with margins before and after,
  // so that every vector a block reads lies inside the buffer and takes a plain load. The
  // lanes outside x read the margins or a neighbouring row and are masked away (or are
  // past the last output column and not stored), as with masked loads: the same bits.
  // Before x: the lanes left of column 0 (pw of them). After: the last lane of the last of
  // up to 8 vectors of 16 lanes past the last output column, at the last kx, beyond the last
  // row's end. An x too large to copy cheaply beside its work keeps the masked loads.
  const uint64_t n = uint64_t{s.cin} * s.h * s.wd;
  const uint64_t before = pw > 0 ? static_cast<uint64_t>(pw) : 0;
  const int64_t last = lanes_read(s) - 1 - pw + int64_t{s.kw - 1} * s.dw;  // a lane's column
  const uint64_t after = last >= static_cast<int64_t>(s.wd) ? static_cast<uint64_t>(last + 1 - s.wd) : 0;
  if (n > kMaxCopy) {
    all_channels<Load::kMasked>(c, x, s);
    return true;
  }
  all_channels<Load::kPlain>(c, with_margins(x, n, before, after), s);
  return true;
}

}  // namespace

bool conv2d(float* y, const float* x, const float* w, const float* b, const Conv2dShape& s) {
  // Each channel's place, for the blocks (a few pointers a channel, once a call).
  thread_local std::vector<const float*> ws, bs;
  thread_local std::vector<float*> ys;
  ws.resize(s.cout), bs.resize(s.cout), ys.resize(s.cout);
  for (uint32_t co = 0; co < s.cout; ++co) {
    ws[co] = w + static_cast<uintptr_t>(co) * s.cin * s.kh * s.kw;
    bs[co] = b + co;
    ys[co] = y + static_cast<uintptr_t>(co) * s.oh * s.ow;
  }
  return run({ws.data(), bs.data(), ys.data()}, x, s);
}

bool conv2d_channels(float* const* y, const float* x, const float* const* w, const float* const* b, uint32_t n,
                     const Conv2dShape& s) {
  Conv2dShape all = s;
  all.cout = n;
  return run({w, b, y}, x, all);
}

}  // namespace tessera::fw::simd
