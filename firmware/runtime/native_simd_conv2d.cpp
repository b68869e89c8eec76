// Native mode's vector conv2d kernel (native_simd.h).
#include <immintrin.h>

#include <algorithm>
#include <vector>

#include "codelets/window.h"
#include "runtime/native_simd.h"
#include "runtime/native_simd_pairs.h"

namespace tessera::fw::simd {
namespace {

#define TESSERA_SIMD __attribute__((target("avx2,fma")))

TESSERA_SIMD inline __m256i lanes_below(int n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

constexpr uint32_t kMaxKw = 16;  // wider kernels take the codelet's loop

// How a block reads a vector of x: kMasked, one masked load (the lanes outside x read
// nothing); kPlain, one plain load, from a copy of x with margins wide enough for every
// lane of every block (conv2d() below), the lanes outside x blended away or not stored as
// with kMasked; kStrided, a column stride above 1 (two masked loads and a shuffle at 2,
// else a gather). A plain load is much cheaper than a masked one: on the hosts measured a
// block of 10 chains of masked loads was bound by the loads, not by the FMAs.
enum class Load { kMasked, kPlain, kStrided };

// Where each output channel's weights ([cin][kh][kw]), bias and output ([oh][ow]) lie:
// one conv2d's channels, or the lone channels of several conv2d vertices that share x and
// the shape (conv2d_channels).
struct Chans {
  const float* const* w;
  const float* const* b;
  float* const* y;
};

// Masks of one vector of 8 output columns: in[kx] the lanes whose x column is inside x (and
// that are output columns), in[kw] the output columns.
struct Masks {
  __m256i in[kMaxKw + 1];
  __m256i lo[kMaxKw], hi[kMaxKw];  // a column stride of 2: in[kx]'s pair_masks
  bool whole;  // all 8 lanes are output columns: stored with a plain store
};

// R output channels (co .. co+R-1) by V vectors of 8 output columns from ox, on ROWS output
// rows from oy that take the same kernel rows ry. Lane l of vector v is output column
// ox + 8v + l; its term (ci, ky, kx) reads x column (ox + 8v + l) sw - pw + kx dw, and is in
// its chain only when that column is inside x: masks[v].in[kx] has those lanes, and a lane
// outside keeps its accumulator (blend), so every lane runs exactly the codelet's chain
// over ci, ky, kx. kFull: every output column's lane of every kx is inside (lanes past the
// last output column, never stored, read nothing and need no blend). kLoad: how a vector
// of x is read (Load above).
// The R x ROWS x V chains are independent, which hides the FMA unit's latency. Only the
// first `live` of the R channels exist: the others repeat the last one's chains and are not
// stored (their FMAs cost nothing where the block is bound by the chains' latency).
template <int R, int ROWS, int V, bool kFull, Load kLoad>
TESSERA_SIMD void block(const Chans& c, const float* x, const Conv2dShape& s, uint32_t co,
                        uint32_t oy, Span ry, uint32_t ox, const Masks* masks, __m256i step, int live = R) {
  const uint32_t plane = s.h * s.wd, kplane = s.kh * s.kw;
  const uintptr_t vstep = uintptr_t{8} * s.sw;  // x columns from one vector to the next
  const float* wch[R];  // channel r's weights
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) wch[r] = c.w[co + std::min(r, live - 1)];
  __m256 acc[ROWS][R][V];
#pragma GCC unroll 8
  for (int q = 0; q < ROWS; ++q)
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 8
      for (int v = 0; v < V; ++v) acc[q][r][v] = _mm256_setzero_ps();
  const float* x0 = x + static_cast<intptr_t>(static_cast<int64_t>(ox) * s.sw - static_cast<int32_t>(s.pw));  // lane 0, kx = 0
  for (uint32_t ci = 0; ci < s.cin; ++ci) {
    const float* xc = x0 + static_cast<uintptr_t>(ci) * plane;
    const uintptr_t wc = static_cast<uintptr_t>(ci) * kplane;  // from a channel's weights
    for (uint32_t ky = ry.lo; ky < ry.hi; ++ky) {
      const float* xr[ROWS];
#pragma GCC unroll 8
      for (int q = 0; q < ROWS; ++q)
        xr[q] = xc + static_cast<uintptr_t>((oy + q) * s.sh - s.ph + ky * s.dh) * s.wd;
      const uintptr_t wr = wc + ky * s.kw;
      for (uint32_t kx = 0; kx < s.kw; ++kx) {
        // A weight that feeds several vectors is broadcast once; one that feeds one vector
        // right before its FMA (R accumulators and R weights would not fit the registers).
        constexpr bool kHoist = ROWS * V > 1;
        __m256 wv[R];
        if constexpr (kHoist) {
#pragma GCC unroll 8
          for (int r = 0; r < R; ++r) wv[r] = _mm256_broadcast_ss(wch[r] + wr + kx);
        }
#pragma GCC unroll 8
        for (int q = 0; q < ROWS; ++q)
#pragma GCC unroll 8
          for (int v = 0; v < V; ++v) {
            const float* at = xr[q] + v * vstep + kx * s.dw;
            const __m256i m = masks[v].in[kx];
            // lanes outside read nothing (and keep their accumulator below, or are not stored)
            __m256 xv;
            if constexpr (kLoad == Load::kPlain)
              xv = _mm256_loadu_ps(at);
            else if constexpr (kLoad == Load::kMasked)
              xv = _mm256_maskload_ps(at, m);
            else if (s.sw == 2)
              xv = load_pair(at, masks[v].lo[kx], masks[v].hi[kx]);
            else
              xv = _mm256_mask_i32gather_ps(_mm256_setzero_ps(), at, step, _mm256_castsi256_ps(m), 4);
#pragma GCC unroll 8
            for (int r = 0; r < R; ++r) {
              const __m256 f = _mm256_fmadd_ps(xv, kHoist ? wv[r] : _mm256_broadcast_ss(wch[r] + wr + kx), acc[q][r][v]);
              acc[q][r][v] = kFull ? f : _mm256_blendv_ps(acc[q][r][v], f, _mm256_castsi256_ps(m));
            }
          }
      }
    }
  }
#pragma GCC unroll 8
  for (int q = 0; q < ROWS; ++q)
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 8
      for (int v = 0; v < V; ++v) {
        if (r >= live) continue;
        const __m256 out = _mm256_add_ps(acc[q][r][v], _mm256_broadcast_ss(c.b[co + r]));
        float* at = c.y[co + r] + static_cast<uintptr_t>(oy + q) * s.ow + ox + 8 * v;
        // A masked store is slow (microcoded on some hosts): only for a vector at the row's end.
        if (masks[v].whole) _mm256_storeu_ps(at, out);
        else _mm256_maskstore_ps(at, masks[v].in[s.kw], out);
      }
}

// block<R, ROWS, V> with the blend or without it (full: every lane inside x).
template <int R, int ROWS, int V, Load kLoad>
TESSERA_SIMD void run_block(bool full, const Chans& c, const float* x, const Conv2dShape& s, uint32_t co, uint32_t oy,
                            Span ry, uint32_t ox, const Masks* masks, __m256i step, int live = R) {
  if (full) block<R, ROWS, V, true, kLoad>(c, x, s, co, oy, ry, ox, masks, step, live);
  else block<R, ROWS, V, false, kLoad>(c, x, s, co, oy, ry, ox, masks, step, live);
}

// ROWS output rows from oy at once when they all take the same kernel rows, else half as
// many (down to one). Returns the rows done.
template <int R, int ROWS, int V, Load kLoad>
TESSERA_SIMD uint32_t rows(const Chans& c, const float* x, const Conv2dShape& s, uint32_t co,
                           uint32_t oy, Span ry, uint32_t ox, const Masks* masks, __m256i step, bool full) {
  bool same = oy + ROWS <= s.oh;
  for (uint32_t q = 1; same && q < ROWS; ++q) {
    const Span rq = inside((oy + q) * s.sh - s.ph, s.dh, s.kh, s.h);
    same = rq.lo == ry.lo && rq.hi == ry.hi;
  }
  if constexpr (ROWS > 1) {
    if (!same) return rows<R, ROWS / 2, V, kLoad>(c, x, s, co, oy, ry, ox, masks, step, full);
  }
  run_block<R, ROWS, V, kLoad>(full, c, x, s, co, oy, ry, ox, masks, step);
  return ROWS;
}

// The masks of the vector of output columns from ox; returns whether every output
// column's lane of every kx is inside x.
TESSERA_SIMD bool column_masks(const Conv2dShape& s, uint32_t ox, __m256i step, Masks& masks) {
  const int64_t pw = static_cast<int32_t>(s.pw);
  const int cols = ox >= s.ow ? 0 : static_cast<int>(std::min<uint32_t>(8, s.ow - ox));  // none: a vector past the row
  const __m256i lanes = lanes_below(cols);
  bool full = true;
  for (uint32_t kx = 0; kx < s.kw; ++kx) {
    const int64_t first = static_cast<int64_t>(ox) * s.sw - pw + static_cast<int64_t>(kx) * s.dw;  // lane 0's column
    // lane l inside when 0 <= first + l sw < wd (|first| and 8 sw are far below 2^31: conv2d's checks)
    const __m256i col = _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(first)), step);
    const __m256i in = _mm256_and_si256(_mm256_cmpgt_epi32(col, _mm256_set1_epi32(-1)),
                                        _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(s.wd)), col));
    masks.in[kx] = _mm256_and_si256(in, lanes);
    if (s.sw == 2) pair_masks(masks.in[kx], masks.lo[kx], masks.hi[kx]);
    full = full && _mm256_testc_si256(in, lanes);  // lanes & ~in is empty
  }
  masks.in[s.kw] = lanes;
  masks.whole = cols == 8;
  return full;
}

// Lane l's column offset from lane 0's: l sw.
TESSERA_SIMD inline __m256i lane_steps(const Conv2dShape& s) {
  return _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(static_cast<int>(s.sw)));
}

// The masks of V vectors of output columns from ox; returns whether all of them are full.
template <int V>
TESSERA_SIMD bool vector_masks(const Conv2dShape& s, uint32_t ox, __m256i step, Masks (&masks)[V]) {
  bool full = true;
  for (int v = 0; v < V; ++v) full = column_masks(s, ox + 8 * v, step, masks[v]) && full;
  return full;
}

// Output channels co .. co+R-1, over every row and the columns from ox: V vectors of
// columns at a time while more than V / 2 vectors' columns are left (the last vectors may
// have no output column: their lanes read and store nothing), then half as many vectors of
// twice as many rows.
template <int R, int ROWS, int V, Load kLoad>
TESSERA_SIMD void channels(const Chans& c, const float* x, const Conv2dShape& s,
                           uint32_t co, uint32_t ox = 0) {
  const __m256i step = lane_steps(s);
  for (; ox < s.ow && s.ow - ox > 8 * (V / 2); ox += 8 * V) {
    Masks masks[V];
    const bool full = vector_masks(s, ox, step, masks);
    for (uint32_t oy = 0; oy < s.oh;)
      oy += rows<R, ROWS, V, kLoad>(c, x, s, co, oy, inside(oy * s.sh - s.ph, s.dh, s.kh, s.h), ox, masks, step, full);
  }
  if constexpr (V > 1) {
    if (ox < s.ow) channels<R, ROWS * 2, V / 2, kLoad>(c, x, s, co, ox);
  }
}

// One output row (a vertex of a row block: every conv of ResNet-18 and AlexNet on `ipu-mk2`),
// where no two rows share a block's weights: blocks of R channels by V vectors over the
// whole row, the last channels and vectors of a block possibly past the end (not stored).
template <int R, int V, Load kLoad>
TESSERA_SIMD void one_row(const Chans& c, const float* x, const Conv2dShape& s) {
  const __m256i step = lane_steps(s);
  const Span ry = inside(0u - s.ph, s.dh, s.kh, s.h);
  for (uint32_t ox = 0; ox < s.ow; ox += 8 * V) {
    Masks masks[V];
    const bool full = vector_masks(s, ox, step, masks);
    for (uint32_t co = 0; co < s.cout; co += R) {
      const int live = static_cast<int>(std::min<uint32_t>(R, s.cout - co));
      run_block<R, 1, V, kLoad>(full, c, x, s, co, 0, ry, ox, masks, step, live);
    }
  }
}

// The shape of one_row's blocks, R channels by V vectors (8 chains), that takes the fewest
// blocks for a row of `vectors` vectors and `cout` channels: a block takes about as long as
// one chain (the FMA's latency and the blend's, with at most 8 chains in flight), so the
// fewest blocks is the fastest; of as few, the one with the fewest loads and broadcasts a
// step (R + V).
template <Load kLoad>
void one_row_best(const Chans& c, const float* x, const Conv2dShape& s) {
  constexpr int kShapes[4] = {4, 2, 8, 1};  // R; V = 8 / R
  const uint32_t vectors = (s.ow + 7) / 8;
  uint64_t best = ~uint64_t{0};
  int pick = 0;
  for (int r : kShapes) {
    const uint32_t v = 8 / r;
    const uint64_t blocks = uint64_t{(s.cout + r - 1) / r} * ((vectors + v - 1) / v);
    if (blocks < best) best = blocks, pick = r;
  }
  switch (pick) {
    case 4: return one_row<4, 2, kLoad>(c, x, s);
    case 2: return one_row<2, 4, kLoad>(c, x, s);
    case 8: return one_row<8, 1, kLoad>(c, x, s);
    default: return one_row<1, 8, kLoad>(c, x, s);
  }
}

// One or two channels of 5 or 6 output rows of 9 to 16 columns (LeNet-5's conv2 vertices
// on `medium`: 5 rows of 10, one channel a vertex, two vertices a tile and image sharing x:
// conv2d_channels) in blocks of 2 vectors by as many rows as give 8 to 12 chains: one
// channel, all the rows in one block; two, 3 rows and then 2 or 3. channels<R, ...> would
// run 4 (or 2) rows by 1 or 2 vectors and then the last row's chains alone, bound by the
// FMA's latency, the lone row taking about as long as the block before it. Returns whether
// it did.
template <int R, Load kLoad>
TESSERA_SIMD bool few_rows(const Chans& c, const float* x, const Conv2dShape& s, uint32_t co) {
  if (s.ow <= 8 || s.ow > 16 || (s.oh != 5 && s.oh != 6)) return false;
  const Span ry = inside(0u - s.ph, s.dh, s.kh, s.h);
  for (uint32_t q = 1; q < s.oh; ++q) {
    const Span rq = inside(q * s.sh - s.ph, s.dh, s.kh, s.h);
    if (rq.lo != ry.lo || rq.hi != ry.hi) return false;
  }
  const __m256i step = lane_steps(s);
  Masks masks[2];
  const bool full = vector_masks(s, 0, step, masks);
  if constexpr (R == 1) {
    if (s.oh == 5) run_block<1, 5, 2, kLoad>(full, c, x, s, co, 0, ry, 0, masks, step);
    else run_block<1, 6, 2, kLoad>(full, c, x, s, co, 0, ry, 0, masks, step);
  } else {
    static_assert(R == 2);
    run_block<2, 3, 2, kLoad>(full, c, x, s, co, 0, ry, 0, masks, step);
    if (s.oh == 5) run_block<2, 2, 2, kLoad>(full, c, x, s, co, 3, ry, 0, masks, step);
    else run_block<2, 3, 2, kLoad>(full, c, x, s, co, 3, ry, 0, masks, step);
  }
  return true;
}

template <Load kLoad>
void all_channels(const Chans& c, const float* x, const Conv2dShape& s) {
  if (s.oh == 1) return one_row_best<kLoad>(c, x, s);
  uint32_t co = 0;
  for (; co + 4 <= s.cout; co += 4) channels<4, 2, 1, kLoad>(c, x, s, co);
  if (co + 2 == s.cout && few_rows<2, kLoad>(c, x, s, co)) return;
  for (; co + 2 <= s.cout; co += 2) channels<2, 4, 1, kLoad>(c, x, s, co);
  if (co < s.cout && few_rows<1, kLoad>(c, x, s, co)) return;
  // One channel: a few rows (often one) of many columns, or many rows of a few.
  if (co < s.cout && s.oh < 4) channels<1, 1, 8, kLoad>(c, x, s, co);
  else if (co < s.cout) channels<1, 2, 4, kLoad>(c, x, s, co);  // then 4 x 2, 8 x 1
}

bool run(const Chans& c, const float* x, const Conv2dShape& s) {
  if (s.sw == 0 || s.kw == 0 || s.kh == 0 || s.kw > kMaxKw) return false;
  // Column arithmetic in int64, and lane columns in i32, equal the codelet's in u32 while
  // nothing wraps: sizes, strides, pads and dilations far below 2^31 (every real
  // convolution): |ox sw - pw + kx dw + l sw| < 2^20 2^10 + 2^20 + 2^20 < 2^31.
  constexpr uint32_t kSane = 1u << 20;
  const int32_t pw = static_cast<int32_t>(s.pw);
  if (s.wd >= kSane || s.ow >= kSane || s.sw >= (1u << 10) || s.dw >= kSane / kMaxKw ||
      pw >= static_cast<int32_t>(kSane) || pw <= -static_cast<int32_t>(kSane))
    return false;
  if (s.sw != 1) {
    all_channels<Load::kStrided>(c, x, s);
    return true;
  }
  // A column stride of 1: x copied into a per-thread buffer with margins before and after,
  // so that every vector a block reads lies inside the buffer and takes a plain load. The
  // lanes outside x read the margins or a neighbouring row and are blended away (or are
  // past the last output column and not stored), as with masked loads: the same bits.
  // Before x: the lanes left of column 0 (pw of them). After: lane 7 of the last of up to 8
  // vectors past the last output column, at the last kx, beyond the last row's end. An x
  // too large to copy cheaply beside its work keeps the masked loads.
  const uint64_t n = uint64_t{s.cin} * s.h * s.wd;
  const uint64_t before = pw > 0 ? static_cast<uint64_t>(pw) : 0;
  const int64_t last = static_cast<int64_t>((s.ow + 63) / 64 * 64) - 1 - pw + int64_t{s.kw - 1} * s.dw;  // a lane's column
  const uint64_t after = last >= static_cast<int64_t>(s.wd) ? static_cast<uint64_t>(last + 1 - s.wd) : 0;
  constexpr uint64_t kMaxCopy = uint64_t{1} << 16;  // floats
  if (n > kMaxCopy) {
    all_channels<Load::kMasked>(c, x, s);
    return true;
  }
  thread_local std::vector<float> copy;
  if (copy.size() < before + n + after) copy.resize(before + n + after);
  // The margins zeroed: never in a stored lane, but no stale NaN or subnormal in a blended one.
  std::fill_n(copy.data(), before, 0.0f);
  std::copy_n(x, n, copy.data() + before);
  std::fill_n(copy.data() + before + n, after, 0.0f);
  all_channels<Load::kPlain>(c, copy.data() + before, s);
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
