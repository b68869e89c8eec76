// The codelet test suite, shared by both builds of the firmware: the tile program
// fw-codelets (RISC-V, fw-tests/codelets_main.cpp) prints every result word, and the host
// test tests/firmware runs the same suite through the native build and compares bit for
// bit (NaN payloads excepted).
//
// run_codelet_suite(arena, bytes, sink) lays out inputs, state records and outputs in the
// tile memory [arena, arena + bytes), runs every codelet of the table (called through the
// table, by name) on fixed pseudo-random inputs and FP specials, and the FP helpers of
// runtime/fp_rules.h on specials, and reports:
//   sink.word(tag, index, value)   every result word, in a fixed order
//   sink.before(codelet, state)    before a codelet runs (state: its state record)
//   sink.after(codelet, state)     after it ran
// The inputs depend only on fixed seeds and are made with integer operations and exact
// bit manipulation, so both builds see the same bits. No case runs in place, so before()
// and after() see every input. Freestanding: no library beyond the compiler's headers.
#pragma once

#include <stdint.h>

#include "codelets/codelets.h"
#include "runtime/fp_rules.h"
#include "runtime/platform.h"

namespace tessera::fw::suite {

template <class S>
void cnn_cases(S& s);

// xorshift32: a fixed, portable sequence.
struct Rng {
  uint32_t s;
  uint32_t next() {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    return s;
  }
};

// A float with a random sign and mantissa and an unbiased exponent in [lo, hi].
inline uint32_t random_float(Rng& r, int lo, int hi) {
  const uint32_t x = r.next();
  const uint32_t e = static_cast<uint32_t>(
      lo + static_cast<int>(r.next() % static_cast<uint32_t>(hi - lo + 1)) + 127);
  return (x & 0x80000000u) | (e << 23) | (x & 0x007fffffu);
}

// Values where FP operations and conversions have their corner cases.
inline constexpr uint32_t kSpecials[] = {
    0x00000000, 0x80000000, 0x3f800000, 0xbf800000,  // +-0, +-1
    0x7f800000, 0xff800000,                          // +-inf
    0x7fc00000, 0xffc00000, 0x7f800001, 0x7fa00000,  // quiet NaNs, signalling NaNs
    0x00000001, 0x807fffff, 0x00800000, 0x80800000,  // subnormals, +-FLT_MIN
    0x7f7fffff, 0xff7fffff, 0x3f000000, 0xbf7fffff,  // +-FLT_MAX, 0.5, -0.99999994
    0x40490fdb, 0x3fb504f3, 0x3f3504f3, 0x4f000000,  // pi, sqrt 2, sqrt 1/2, 2^31
    0xcf000000, 0xcf000001, 0x4effffff, 0x4f800000,  // -2^31 and around, 2^32
    0x4f7fffff, 0xc2c80000, 0x42c80000, 0x3c000000,  // below 2^32, -100, 100, 2^-7
};
inline constexpr uint32_t kNumSpecials = sizeof(kSpecials) / sizeof(kSpecials[0]);

// Inputs at the edges of exp: overflow, the subnormal range, underflow to zero.
inline constexpr uint32_t kExpEdges[] = {
    0x42b17217, 0x42b17218, 0x42b17219, 0x42b1721a,  // ~ln(FLT_MAX)
    0xc2aeac4f, 0xc2aeac50, 0xc2aeac51,              // ~ln(FLT_MIN)
    0xc2cff1b4, 0xc2cff1b5, 0xc2cff1b6, 0xc2d00000,  // ~ln(2^-150)
    0x33800000, 0xb3800000, 0x3f317218, 0xbf317218,  // 2^-24, ln 2
};

// A bump allocator over the arena (tile addresses). Running out returns address 0,
// which faults on first use: a suite bug, reported as a trap by either build.
struct Arena {
  uint32_t next, end;
  uint32_t alloc(uint32_t words) {
    if (words * 4 > end - next) return 0;
    const uint32_t a = next;
    next += words * 4;
    return a;
  }
};

// Restores the arena when a case is done (its words were reported): cases reuse memory.
struct Mark {
  explicit Mark(Arena& a) : arena(a), next(a.next) {}
  ~Mark() { arena.next = next; }
  Arena& arena;
  uint32_t next;
};

template <class Sink>
class Suite {
 public:
  Suite(uint32_t base, uint32_t bytes, Sink& sink) : arena_{base, base + bytes}, sink_(sink) {}

  // A region of n words filled by fn(i).
  template <class Fn>
  uint32_t region(uint32_t n, Fn&& fn) {
    const uint32_t a = arena_.alloc(n);
    uint32_t* p = tile_ptr<uint32_t>(a, n);
    for (uint32_t i = 0; i < n; ++i) p[i] = fn(i);
    return a;
  }
  uint32_t zeros(uint32_t n) {
    return region(n, [](uint32_t) { return 0u; });
  }
  // n random floats with exponents in [lo, hi], then every special (n + kNumSpecials).
  uint32_t floats_with_specials(Rng& r, uint32_t n, int lo, int hi) {
    return region(n + kNumSpecials,
                  [&](uint32_t i) { return i < n ? random_float(r, lo, hi) : kSpecials[i - n]; });
  }

  // Runs codelet `name` on the state record `fields` and reports `out_words` words at `out`.
  template <uint32_t N>
  void run(const char* name, const uint32_t (&fields)[N], uint32_t out, uint32_t out_words) {
    const uint32_t index = codelet_index(name);
    const uint32_t state = region(N, [&](uint32_t i) { return fields[i]; });
    sink_.before(index, state);
    tessera_codelet_table[index].fn(state);
    sink_.after(index, state);
    const uint32_t* o = tile_ptr<const uint32_t>(out, out_words);
    for (uint32_t i = 0; i < out_words; ++i) sink_.word(name, i, o[i]);
  }

  Arena& arena() { return arena_; }

  void table() {
    for (uint32_t i = 0; i < tessera_codelet_count; ++i) {
      sink_.word("id", i, tessera_codelet_table[i].id);
      sink_.word("words", i, tessera_codelet_table[i].state_words);
    }
  }

  void codelets() {
    Rng r{0x2545f491u};
    {
      const Mark mark(arena_);
      const uint32_t n = 37, src = region(n, [&](uint32_t) { return r.next(); }), dst = zeros(n);
      run("copy", {dst, src, n}, dst, n);
    }
    {
      const Mark mark(arena_);
      const uint32_t n = 29, dst = zeros(n);
      run("fill", {dst, n, r.next()}, dst, n);
    }
    {
      const Mark mark(arena_);
      const uint32_t n = 64, a = floats_with_specials(r, n, -20, 20),
                     b = floats_with_specials(r, n, -20, 20);
      const uint32_t m = n + kNumSpecials, dst = zeros(m);
      run("add", {dst, a, b, m}, dst, m);
      // every special against every special
      const uint32_t s2 = kNumSpecials * kNumSpecials;
      const uint32_t x = region(s2, [](uint32_t i) { return kSpecials[i / kNumSpecials]; });
      const uint32_t y = region(s2, [](uint32_t i) { return kSpecials[i % kNumSpecials]; });
      const uint32_t out = zeros(s2);
      run("add", {out, x, y, s2}, out, s2);
    }
    {
      const Mark mark(arena_);
      const uint32_t n = 64, src = floats_with_specials(r, n, -30, 30), m = n + kNumSpecials,
                     dst = zeros(m);
      run("scale", {dst, src, m, random_float(r, -3, 3)}, dst, m);
      run("scale", {dst, src, m, 0x7f7fffffu}, dst, m);  // overflow
      run("scale", {dst, src, m, 0x00000003u}, dst, m);  // underflow, subnormals
    }
    {
      const Mark mark(arena_);
      const uint32_t n = 64, m = n + kNumSpecials;
      const uint32_t a = floats_with_specials(r, n, -10, 10),
                     b = floats_with_specials(r, n, -10, 10);
      const uint32_t acc = region(m, [&](uint32_t) { return random_float(r, -12, 12); });
      run("mac", {acc, a, b, m}, acc, m);
    }
    static constexpr uint32_t kDotLengths[] = {0, 1, 7,
                                               100};  // (no <initializer_list> on the tile)
    for (uint32_t n : kDotLengths) {
      const Mark mark(arena_);
      const uint32_t a = region(n, [&](uint32_t) { return random_float(r, -4, 4); });
      const uint32_t b = region(n, [&](uint32_t) { return random_float(r, -4, 4); });
      const uint32_t out = zeros(1);
      run("dot", {out, a, b, n}, out, 1);
    }
    {
      const Mark mark(arena_);
      const uint32_t rows = 9, cols = 13;
      const uint32_t a = region(rows * cols, [&](uint32_t) { return random_float(r, -3, 3); });
      const uint32_t x = region(cols, [&](uint32_t) { return random_float(r, -3, 3); });
      const uint32_t y = zeros(rows);
      run("matvec", {y, a, x, rows, cols}, y, rows);
    }
    static constexpr uint32_t kPartials[] = {0, 1, 5};
    for (uint32_t k : kPartials) {
      const Mark mark(arena_);
      const uint32_t n = 20, in = region(n * k, [&](uint32_t) { return random_float(r, -8, 8); }),
                     out = zeros(n);
      run("reduce_sum", {out, in, n, k}, out, n);
    }
    {
      const Mark mark(arena_);
      const uint32_t n = 48, src = floats_with_specials(r, n, -10, 10), m = n + kNumSpecials,
                     dst = zeros(m);
      run("relu", {dst, src, m}, dst, m);
    }
    {
      const Mark mark(arena_);
      constexpr uint32_t kEdges = sizeof(kExpEdges) / sizeof(kExpEdges[0]);
      const uint32_t n = 256, m = n + kNumSpecials + kEdges;
      const uint32_t src = region(m, [&](uint32_t i) {
        return i < n                  ? random_float(r, -8, 6)
               : i < n + kNumSpecials ? kSpecials[i - n]
                                      : kExpEdges[i - n - kNumSpecials];
      });
      const uint32_t dst = zeros(m);
      run("exp", {dst, src, m}, dst, m);
    }
    {
      const Mark mark(arena_);
      const uint32_t n = 256, m = n + kNumSpecials + 16;
      const uint32_t src = region(m, [&](uint32_t i) {
        if (i < n) return random_float(r, -126, 127) & 0x7fffffffu;  // positive, every binade
        if (i < n + kNumSpecials) return kSpecials[i - n];
        return r.next() & 0x007fffffu;  // subnormal
      });
      const uint32_t dst = zeros(m);
      run("log", {dst, src, m}, dst, m);
    }
    {
      const Mark mark(arena_);
      const uint32_t m = 5, k = 9, n = 7;
      const uint32_t a = region(m * k, [&](uint32_t) { return random_float(r, -3, 3); });
      const uint32_t b = region(k * n, [&](uint32_t) { return random_float(r, -3, 3); });
      const uint32_t c = zeros(m * n);
      run("matmul", {c, a, b, m, k, n}, c, m * n);
    }
    {
      // Native mode's full 4 x 16 blocks and both kinds of edge (native_simd.h).
      const Mark mark(arena_);
      const uint32_t m = 6, k = 5, n = 37;
      const uint32_t a = region(m * k, [&](uint32_t) { return random_float(r, -3, 3); });
      const uint32_t b = region(k * n, [&](uint32_t) { return random_float(r, -3, 3); });
      const uint32_t c = zeros(m * n);
      run("matmul", {c, a, b, m, k, n}, c, m * n);
    }
    {
      const Mark mark(arena_);
      const uint32_t rows = 4, cols = kNumSpecials;  // every special in the source and the bias
      const uint32_t src = region(rows * cols, [&](uint32_t i) { return i < cols ? kSpecials[i] : random_float(r, -6, 6); });
      const uint32_t bias = region(cols, [&](uint32_t i) { return i % 2 ? kSpecials[cols - 1 - i] : random_float(r, -6, 6); });
      const uint32_t dst = zeros(rows * cols);
      run("add_bias", {dst, src, bias, rows, cols}, dst, rows * cols);
    }
    {
      const Mark mark(arena_);
      // Rows of random values, then rows with ties, NaNs first, only NaNs, signed zeros.
      const uint32_t rows = 8, cols = 6;
      static constexpr uint32_t kRows[4][6] = {
          {0x3f800000, 0x40000000, 0x40000000, 0x3f800000, 0xbf800000, 0x00000000},
          {0x7fc00000, 0xbf800000, 0x7fa00000, 0xc0000000, 0xbf800000, 0xff800000},
          {0x7fc00000, 0xffc00000, 0x7f800001, 0x7fc00000, 0x7fc00000, 0x7fc00000},
          {0x80000000, 0x00000000, 0x80000000, 0xff800000, 0x00000000, 0x80000001}};
      const uint32_t src = region(rows * cols, [&](uint32_t i) {
        return i < 4 * cols ? random_float(r, -5, 5) : kRows[i / cols - 4][i % cols];
      });
      const uint32_t out = zeros(rows);
      run("argmax", {out, src, rows, cols}, out, rows);
    }
    {
      const Mark mark(arena_);
      const uint32_t rows = 3, cols = 10;
      const uint32_t src = region(rows * cols, [&](uint32_t) { return random_float(r, -4, 2); });
      const uint32_t dst = zeros(rows * cols);
      run("softmax", {dst, src, rows, cols}, dst, rows * cols);
    }
  }

  // The helpers of fp_rules.h, not reachable through a codelet yet.
  void helpers() {
    for (uint32_t i = 0; i < kNumSpecials; ++i)
      for (uint32_t j = 0; j < kNumSpecials; ++j) {
        sink_.word("min", i * kNumSpecials + j, f2u(fp_min(u2f(kSpecials[i]), u2f(kSpecials[j]))));
        sink_.word("max", i * kNumSpecials + j, f2u(fp_max(u2f(kSpecials[i]), u2f(kSpecials[j]))));
      }
    Rng r{0x9e3779b9u};
    for (uint32_t i = 0; i < kNumSpecials + 64; ++i) {
      const float x = u2f(i < kNumSpecials ? kSpecials[i] : random_float(r, -3, 34));
      sink_.word("to_i32", i, static_cast<uint32_t>(fp_to_i32(x)));
      sink_.word("to_u32", i, fp_to_u32(x));
      sink_.word("sqrt", i, f2u(fp_sqrt(x)));
    }
    for (uint32_t i = 0; i < 64; ++i) {
      const float a = u2f(random_float(r, -20, 20)), b = u2f(random_float(r, -20, 20));
      const float c = u2f(i < kNumSpecials ? kSpecials[i] : random_float(r, -40, 0));
      sink_.word("fma", i, f2u(fp_fma(a, b, c)));
    }
  }

 private:
  Arena arena_;
  Sink& sink_;
};

template <class Sink>
void run_codelet_suite(uint32_t arena, uint32_t bytes, Sink& sink) {
  Suite<Sink> s(arena, bytes, sink);
  s.table();
  s.codelets();
  cnn_cases(s);
  s.helpers();
}

}  // namespace tessera::fw::suite

#include "fw-tests/cnn_cases.h"
