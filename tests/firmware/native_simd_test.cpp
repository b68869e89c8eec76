// Native mode's vector kernels (runtime/native_simd.h) against the codelets' portable
// loops (fmaf from the C library), bit for bit: matmul, matmul_tn, matmul_nt, conv2d,
// maxpool2d, relu, reduce_sum and sgd_momentum on random shapes (every edge of the vector
// blocks, padding, dilation, negative pads) and random values with FP specials mixed in.
// NaN payloads may differ (fp_check.h's rule), except in maxpool2d, which moves bits.
// conv2d's blocks are checked in each build the CPU runs (AVX2, and AVX-512 F + VL with 8-
// and with 16-lane vectors where it has them); native_conv2d_vertices' runs of one-channel
// vertices against the portable loops run in order. The ISS side of the same kernels:
// codelet_iss_test and training_codelets_test.
// Skipped where the CPU has no AVX2 + FMA. Seeds are printed.
#include <gtest/gtest.h>
#include "tessera/testutil/seed.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "codelets/codelets.h"
#include "fp_check.h"
#include "runtime/native.h"
#include "runtime/native_simd.h"

namespace {

using namespace tessera;

constexpr uint32_t kSpecialBits[] = {0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000,
                                     0x00000001, 0x807fffff, 0x7f7fffff, 0xff7fffff, 0x00800000};

// A tile of host SRAM with a bump allocator for regions and state records.
struct Sram {
  static constexpr uint32_t kBumpBytes = 1 << 20;  // the allocator's; put_last's data follow
  std::vector<uint8_t> bytes = std::vector<uint8_t>(kBumpBytes);
  uint32_t next = 0;
  uint32_t alloc(size_t words) {
    const uint32_t addr = arch::kSramBase + next;
    next += static_cast<uint32_t>(words * 4);
    if (next > kBumpBytes) throw std::runtime_error("native_simd_test: SRAM full");
    return addr;
  }
  uint32_t* at(uint32_t addr) { return reinterpret_cast<uint32_t*>(bytes.data() + (addr - arch::kSramBase)); }
  // v at the very end of the buffer (not the allocator's), so that a read past it is one
  // past the heap block, which AddressSanitizer reports.
  uint32_t put_last(const std::vector<uint32_t>& v) {
    bytes.resize(bytes.size() + v.size() * 4);
    bytes.shrink_to_fit();  // no spare capacity after it
    const uint32_t a = arch::kSramBase + static_cast<uint32_t>(bytes.size() - v.size() * 4);
    if (!v.empty()) std::memcpy(at(a), v.data(), v.size() * 4);
    return a;
  }
  uint32_t put(const std::vector<uint32_t>& v) {
    const uint32_t a = alloc(v.size());
    if (!v.empty()) std::memcpy(at(a), v.data(), v.size() * 4);
    return a;
  }
};

std::vector<uint32_t> values(std::mt19937& r, size_t n) {
  std::vector<uint32_t> v(n);
  for (auto& x : v) {
    if (r() % 23 == 0) {
      x = kSpecialBits[r() % std::size(kSpecialBits)];
    } else {  // sign, exponent in [-6, 6], random mantissa
      const uint32_t e = 127 - 6 + r() % 13;
      x = (r() & 0x80000000u) | (e << 23) | (r() & 0x007fffffu);
    }
  }
  return v;
}

// A build of conv2d's blocks: AVX2, or AVX-512 with 8-lane or with 16-lane (wide) vectors;
// at a column stride above 1, x split into phases or read by paired loads and gathers.
struct Blocks {
  bool avx512, wide;
  const char* name;
  bool phased = true;
};

// The builds this CPU runs: the AVX2 blocks (on a CPU with AVX-512 F and VL too, with
// set_avx512_enabled(false)) and both AVX-512 ones, each with x split into phases and not.
std::vector<Blocks> block_builds() {
  const bool was = fw::simd::set_avx512_enabled(true);
  const bool have = fw::simd::avx512_enabled();
  fw::simd::set_avx512_enabled(was);
  std::vector<Blocks> all{{false, false, " (AVX2 blocks)"}, {false, false, " (AVX2 blocks, gathers)", false}};
  if (have) {
    all.push_back({true, false, " (AVX-512 blocks, 8 lanes)"});
    all.push_back({true, false, " (AVX-512 blocks, 8 lanes, gathers)", false});
    all.push_back({true, true, " (AVX-512 blocks, 16 lanes)"});
    all.push_back({true, true, " (AVX-512 blocks, 16 lanes, gathers)", false});
  }
  return all;
}

// The kernels on (or off) with build b of the blocks while it lives; the settings before
// again after.
class UseBlocks {
 public:
  UseBlocks(bool simd, const Blocks& b)
      : simd_(fw::simd::set_enabled(simd)),
        avx512_(fw::simd::set_avx512_enabled(b.avx512)),
        wide_(fw::simd::set_wide_enabled(b.wide)),
        phased_(fw::simd::set_phased_enabled(b.phased)) {}
  ~UseBlocks() {
    fw::simd::set_enabled(simd_);
    fw::simd::set_avx512_enabled(avx512_);
    fw::simd::set_wide_enabled(wide_);
    fw::simd::set_phased_enabled(phased_);
  }
  UseBlocks(const UseBlocks&) = delete;
  UseBlocks& operator=(const UseBlocks&) = delete;

 private:
  bool simd_, avx512_, wide_, phased_;
};

// Runs codelet `name` on the state record with the portable loop and with the kernels
// (each build of their blocks: block_builds), from the same output contents, and
// compares the `out_words` at `out`.
void compare(Sram& s, const char* name, const std::vector<uint32_t>& state, uint32_t out, size_t out_words,
             const std::string& what, bool exact = false) {
  const uint32_t index = fw::codelet_index(name);
  ASSERT_LT(index, fw::tessera_codelet_count) << name;
  const uint32_t st = s.put(state);
  fw::NativeTile tile;
  tile.sram = s.bytes.data();
  tile.sram_bytes = static_cast<uint32_t>(s.bytes.size());
  const std::vector<uint32_t> before(s.at(out), s.at(out) + out_words);
  const auto run = [&](bool simd, const Blocks& blocks, std::vector<uint32_t>& got) {
    std::copy(before.begin(), before.end(), s.at(out));  // not memcpy: before.data() is null when empty
    fw::NativeStop stop;
    {
      const UseBlocks use(simd, blocks);
      stop = fw::native_run_codelet(tile, index, st);
    }
    ASSERT_EQ(stop, fw::NativeStop::kSync) << what << ": halted with " << tile.exit_code;
    got.assign(s.at(out), s.at(out) + out_words);
  };
  std::vector<uint32_t> want, got;
  const std::vector<Blocks> builds = block_builds();
  ASSERT_NO_FATAL_FAILURE(run(false, builds[0], want));
  for (const Blocks& blocks : builds) {
    ASSERT_NO_FATAL_FAILURE(run(true, blocks, got));
    for (size_t i = 0; i < out_words; ++i)
      ASSERT_TRUE(exact ? got[i] == want[i] : fwtest::same_or_both_nan(got[i], want[i]))
          << what << blocks.name << ": word " << i << " vector 0x" << std::hex << got[i] << ", portable 0x"
          << want[i];
  }
}

class NativeSimd : public testing::Test {
 protected:
  void SetUp() override {
    const bool was = fw::simd::set_enabled(true);
    have_ = fw::simd::enabled();
    fw::simd::set_enabled(was);
    if (!have_) GTEST_SKIP() << "this CPU has no AVX2 + FMA";
    seed_ = tessera::testutil::random_seed("native_simd_test");  // on stderr at once: an abort cannot lose it
  }
  bool have_ = false;
  uint64_t seed_ = 0;
};

TEST_F(NativeSimd, MatmulsGiveThePortableBits) {
  std::mt19937 r(seed_);
  for (int trial = 0; trial < 60; ++trial) {
    // Every third shape has 1 to 3 rows: their blocks take up to 4 x 16 columns at once, or
    // (one row, AVX-512) all of up to 192 columns in one pass.
    const uint32_t m = 1 + r() % (trial % 3 ? 13 : 3), k = r() % 40, n = 1 + r() % 200;
    const std::string shape = std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n);
    Sram s;
    const uint32_t a = s.put(values(r, size_t{m} * k)), b = s.put(values(r, size_t{k} * n));
    const uint32_t c = s.put(values(r, size_t{m} * n));  // garbage the codelets overwrite
    compare(s, "matmul", {c, a, b, m, k, n}, c, size_t{m} * n, "matmul " + shape);
    compare(s, "matmul_tn", {c, a, b, m, k, n}, c, size_t{m} * n, "matmul_tn " + shape);
    const uint32_t bt = s.put(values(r, size_t{n} * k));
    compare(s, "matmul_nt", {c, a, bt, m, k, n}, c, size_t{m} * n, "matmul_nt " + shape);
  }
}

TEST_F(NativeSimd, Conv2dGivesThePortableBits) {
  std::mt19937 r(seed_ + 1);
  const auto run = [&](uint32_t cin, uint32_t h, uint32_t wd, uint32_t cout, uint32_t oh, uint32_t ow, uint32_t kh,
                       uint32_t kw, uint32_t sh, uint32_t sw, int32_t ph, int32_t pw, uint32_t dh, uint32_t dw) {
    char shape[200];
    std::snprintf(shape, sizeof shape, "conv2d cin %u h %u wd %u cout %u oh %u ow %u k %ux%u s %ux%u p %dx%d d %ux%u", cin,
                  h, wd, cout, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw);
    Sram s;
    // x last: a vector lane's read past it is a heap overflow (the sanitizer build).
    const uint32_t x = s.put_last(values(r, size_t{cin} * h * wd)), w = s.put(values(r, size_t{cout} * cin * kh * kw));
    // y and 64 words after it, which neither path may write.
    const uint32_t b = s.put(values(r, cout)), y = s.put(values(r, size_t{cout} * oh * ow + 64));
    compare(s, "conv2d",
            {y, x, w, b, cin, h, wd, cout, oh, ow, kh, kw, sh, sw, static_cast<uint32_t>(ph), static_cast<uint32_t>(pw), dh,
             dw},
            y, size_t{cout} * oh * ow + 64, shape);
  };
  for (int trial = 0; trial < 320; ++trial) {
    // Column strides 1 to 4 (a gather above 1) and now and then AlexNet's 11-wide kernel.
    const uint32_t cin = 1 + r() % 4, cout = 1 + r() % 17, kh = 1 + r() % 5, kw = r() % 8 ? 1 + r() % 5 : 11;
    const uint32_t h = 1 + r() % 14, wd = 1 + r() % 90, sh = 1 + r() % 2, sw = r() % 2 ? 1 : 2 + r() % 3;
    const uint32_t dh = 1 + r() % 2, dw = 1 + r() % 2;
    const int32_t ph = static_cast<int32_t>(r() % 5) - 1, pw = static_cast<int32_t>(r() % 5) - 1;
    // Half the time one row of up to 80 columns (a row block: blocks of 1 to 8 channels).
    const uint32_t oh = r() % 2 ? 1 + r() % 12 : 1, ow = oh == 1 ? 1 + r() % 80 : 1 + r() % 30;
    run(cin, h, wd, cout, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw);
  }
  // A lone channel (an odd cout) of 5 or 6 rows of 9 to 16 columns: one block of 10 or 12
  // chains (LeNet-5's conv2 vertices), or the rows' blocks when they take different kernel
  // rows (a pad or a short x).
  for (int trial = 0; trial < 40; ++trial) {
    const uint32_t cin = 1 + r() % 6, cout = 1 + 2 * (r() % 2), kh = 1 + r() % 5, kw = 1 + r() % 5;
    const uint32_t oh = 5 + r() % 2, ow = 9 + r() % 8, sw = r() % 4 ? 1 : 2, dh = 1 + r() % 2, dw = 1 + r() % 2;
    const int32_t ph = static_cast<int32_t>(r() % 3) - 1, pw = static_cast<int32_t>(r() % 4) - 1;
    const uint32_t h = oh + (kh - 1) * dh - r() % 3, wd = (ow - 1) * sw + (kw - 1) * dw + 1 - r() % 3;
    run(cin, h, wd, cout, oh, ow, kh, kw, 1, sw, ph, pw, dh, dw);
  }
  // "Same" convs (strides of 1, x's rows as long as y's): the flat blocks, whose vectors run
  // across y's rows, each lane masked by its own row and column (pads, dilations, short or
  // tall x, a last vector partly past y's end).
  // (At least 64 channel pairs, as flat() asks; a cout short of a block of 4 now and then.)
  for (int trial = 0; trial < 80; ++trial) {
    const uint32_t cin = 4 + r() % 5, cout = 16 + r() % 7, kh = 1 + r() % 5, kw = 1 + r() % 5;
    const uint32_t ow = 1 + r() % 20, oh = 2 + r() % 11, h = 1 + r() % 14, dh = 1 + r() % 2, dw = 1 + r() % 2;
    const int32_t ph = static_cast<int32_t>(r() % 5) - 1, pw = static_cast<int32_t>(r() % 5) - 1;
    run(cin, h, ow, cout, oh, ow, kh, kw, 1, 1, ph, pw, dh, dw);
  }
  // Strided convs in flat blocks (x copied as planes of column phases): strides of 1 to 3
  // across and down, at least one above 1, pads, dilations, x short or long, tall or low.
  for (int trial = 0; trial < 80; ++trial) {
    const uint32_t cin = 4 + r() % 5, cout = 16 + r() % 7, kh = 1 + r() % 5, kw = 1 + r() % 5;
    const uint32_t sh = 1 + r() % 3, sw = sh == 1 ? 2 + r() % 2 : 1 + r() % 3;
    const uint32_t oh = 2 + r() % 9, ow = 1 + r() % 20, dh = 1 + r() % 2, dw = 1 + r() % 2;
    const int32_t ph = static_cast<int32_t>(r() % 5) - 1, pw = static_cast<int32_t>(r() % 5) - 1;
    const uint32_t h = 1 + r() % (oh * sh + 4), wd = 1 + r() % (ow * sw + 6);
    run(cin, h, wd, cout, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw);
  }
  // ResNet-18's and AlexNet's vertices on `ipu-mk2` (fewer input channels): every block
  // shape of both builds, full and masked vectors, live channels short of a block's, rows
  // that take different kernel rows, column strides 1, 2 and 4.
  run(4, 3, 56, 32, 1, 56, 3, 3, 1, 1, 0, 1, 1, 1);
  run(4, 4, 28, 32, 2, 28, 3, 3, 1, 1, 0, 1, 1, 1);
  run(4, 4, 14, 43, 2, 14, 3, 3, 1, 1, 0, 1, 1, 1);
  run(4, 7, 7, 43, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1);
  run(3, 9, 60, 8, 2, 30, 7, 7, 2, 2, 0, 3, 1, 1);
  run(4, 3, 56, 20, 1, 28, 3, 3, 2, 2, 0, 1, 1, 1);
  run(4, 5, 28, 21, 2, 14, 3, 3, 2, 2, 0, 1, 1, 1);
  run(4, 14, 14, 19, 7, 7, 3, 3, 2, 2, 1, 1, 1, 1);
  run(8, 1, 14, 19, 1, 7, 1, 1, 2, 2, 0, 0, 1, 1);
  run(3, 7, 27, 13, 3, 27, 5, 5, 1, 1, 0, 2, 1, 1);
  run(5, 13, 13, 35, 13, 13, 3, 3, 1, 1, 1, 1, 1, 1);
  run(3, 23, 100, 8, 4, 23, 11, 11, 4, 4, 0, 2, 1, 1);
  // LeNet-5's vertices on `medium`, and lone channels of windows wholly inside x (the blocks
  // of one channel, which the AVX-512 build takes only for a lone one).
  run(6, 9, 14, 1, 5, 10, 5, 5, 1, 1, 0, 0, 1, 1);
  run(1, 8, 28, 1, 4, 28, 5, 5, 1, 1, 0, 2, 1, 1);
  run(1, 6, 28, 1, 4, 28, 5, 5, 1, 1, 2, 2, 1, 1);
  run(2, 12, 40, 1, 3, 30, 3, 3, 1, 1, 0, 0, 1, 1);
  run(2, 12, 10, 1, 9, 6, 3, 3, 1, 1, 0, 0, 1, 1);
  // An x too large to copy (over 2^16 floats): the masked loads, in each block shape.
  run(5, 140, 100, 6, 1, 5, 3, 3, 1, 1, 1, 1, 1, 1);
  run(5, 140, 100, 6, 1, 6, 3, 3, 1, 1, 0, 0, 1, 1);
  run(5, 140, 100, 12, 1, 5, 3, 3, 1, 1, 1, 1, 1, 1);
  run(5, 140, 100, 12, 1, 6, 3, 3, 1, 1, 0, 0, 1, 1);
  run(5, 140, 100, 7, 1, 14, 3, 3, 1, 1, 0, 0, 1, 1);
  run(5, 140, 100, 7, 1, 14, 3, 3, 1, 1, 0, 1, 1, 1);
  run(5, 140, 100, 6, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1);
  run(5, 140, 100, 6, 4, 12, 3, 3, 1, 1, 1, 1, 1, 1);
  for (int trial = 0; trial < 40; ++trial) {
    const uint32_t cout = r() % 2 ? 1 + r() % 3 : 1 + r() % 17, oh = 1 + r() % 10, ow = 1 + r() % 40;
    const int32_t ph = static_cast<int32_t>(r() % 3) - 1, pw = static_cast<int32_t>(r() % 4) - 1;
    run(5, 140, 100, cout, oh, ow, 1 + r() % 3, 1 + r() % 5, 1, 1, ph, pw, 1, 1);
  }
}

// conv2d_channels: n vertices of one output channel sharing x and the shape, their weights,
// biases and outputs anywhere, against the codelet's portable loop on each vertex alone.
TEST_F(NativeSimd, Conv2dChannelsGiveEachVertexsPortableBits) {
  std::mt19937 r(seed_ + 5);
  for (int trial = 0; trial < 120; ++trial) {
    // The first trials LeNet-5-like: 2 or 3 channels of 5 or 6 rows of 9 to 16 columns.
    const bool lenet = trial < 40;
    // A quarter of the rest as many channels as native_conv2d_vertices runs at once (up to 64).
    const uint32_t n = lenet ? 2 + r() % 2 : trial % 4 == 0 ? 9 + r() % 56 : 2 + r() % 7;
    const uint32_t cin = 1 + r() % 6, kh = 1 + r() % 5, kw = 1 + r() % 5;
    const uint32_t oh = lenet ? 5 + r() % 2 : 1 + r() % 7, ow = lenet ? 9 + r() % 8 : 1 + r() % 30;
    const uint32_t sh = 1 + r() % 2, sw = r() % 3 ? 1 : 2 + r() % 2;
    const uint32_t dh = 1 + r() % 2, dw = 1 + r() % 2;
    const int32_t ph = lenet ? -static_cast<int32_t>(r() % 2) : static_cast<int32_t>(r() % 4) - 1;
    const int32_t pw = lenet ? static_cast<int32_t>(r() % 3) - 1 : static_cast<int32_t>(r() % 4) - 1;
    // LeNet-like: x holds every row's window (each row the same kernel rows: one block),
    // and mostly every column's.
    const uint32_t h = lenet ? (oh - 1) * sh + (kh - 1) * dh + 1 + (ph < 0) + r() % 2 : 1 + r() % 16;
    const uint32_t wd = lenet ? (ow - 1) * sw + (kw - 1) * dw + 1 + r() % 3 : 1 + r() % 40;
    char shape[200];
    std::snprintf(shape, sizeof shape, "conv2d_channels n %u cin %u h %u wd %u oh %u ow %u k %ux%u s %ux%u p %dx%d d %ux%u",
                  n, cin, h, wd, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw);
    Sram s;
    const uint32_t x = s.put_last(values(r, size_t{cin} * h * wd));
    std::vector<uint32_t> w(n), b(n), y(n), state(n);
    for (uint32_t i = 0; i < n; ++i) {
      w[i] = s.put(values(r, size_t{cin} * kh * kw));
      b[i] = s.put(values(r, 1));
      y[i] = s.put(values(r, size_t{oh} * ow + 64));  // and 64 words neither path may write
    }
    const size_t words = size_t{oh} * ow + 64;
    std::vector<std::vector<uint32_t>> before(n), want(n);
    for (uint32_t i = 0; i < n; ++i) before[i].assign(s.at(y[i]), s.at(y[i]) + words);
    fw::NativeTile tile;
    tile.sram = s.bytes.data();
    tile.sram_bytes = static_cast<uint32_t>(s.bytes.size());
    const uint32_t index = fw::codelet_index("conv2d");
    const bool was = fw::simd::set_enabled(false);
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t st = s.put({y[i], x, w[i], b[i], cin, h, wd, 1, oh, ow, kh, kw, sh, sw, static_cast<uint32_t>(ph),
                                 static_cast<uint32_t>(pw), dh, dw});
      ASSERT_EQ(fw::native_run_codelet(tile, index, st), fw::NativeStop::kSync) << shape;
      want[i].assign(s.at(y[i]), s.at(y[i]) + words);
      std::copy(before[i].begin(), before[i].end(), s.at(y[i]));
    }
    fw::simd::set_enabled(was);
    float* ys[64];
    const float* ws[64];
    const float* bs[64];
    for (uint32_t i = 0; i < n; ++i) {
      ys[i] = reinterpret_cast<float*>(s.at(y[i]));
      ws[i] = reinterpret_cast<const float*>(s.at(w[i]));
      bs[i] = reinterpret_cast<const float*>(s.at(b[i]));
    }
    for (const Blocks& blocks : block_builds()) {
      for (uint32_t i = 0; i < n; ++i) std::copy(before[i].begin(), before[i].end(), s.at(y[i]));
      bool done;
      {
        const UseBlocks use(true, blocks);
        done = fw::simd::conv2d_channels(
            ys, reinterpret_cast<const float*>(s.at(x)), ws, bs, n,
            {cin, h, wd, 1, oh, ow, kh, kw, sh, sw, static_cast<uint32_t>(ph), static_cast<uint32_t>(pw), dh, dw});
      }
      ASSERT_TRUE(done) << shape << blocks.name;
      for (uint32_t i = 0; i < n; ++i)
        for (size_t k = 0; k < words; ++k)
          ASSERT_TRUE(fwtest::same_or_both_nan(s.at(y[i])[k], want[i][k]))
              << shape << blocks.name << ": vertex " << i << " word " << k << " vector 0x" << std::hex
              << s.at(y[i])[k] << ", portable 0x" << want[i][k];
    }
  }
}

// native_conv2d_vertices (what a compute set of conv2d vertices runs through in native
// mode): runs of up to 64 lone-channel vertices of one x and shape, 3 x 3 "same" convs, give
// what each vertex's portable loop gives run in order, over the whole SRAM: with nothing
// shared but x (one kernel call), and with one vertex's y over another's y, w or b, where one
// call would read or keep what the order changes (so they must not be one call). (A y over x
// breaks the codelet's own contract, y overlapping nothing it reads.)
TEST_F(NativeSimd, LoneConvVerticesGiveWhatTheyGiveInOrder) {
  std::mt19937 r(seed_ + 9);
  const uint32_t index = fw::codelet_index("conv2d");
  const char* const kClash[] = {"none", "y over another's y", "y over another's w", "y over another's b"};
  for (int trial = 0; trial < 48; ++trial) {
    const int clash = trial % 4;
    const uint32_t n = 2 + r() % 63, cin = 1 + r() % 4, h = 2 + r() % 7, wd = 2 + r() % 20, plane = h * wd;
    char shape[160];
    std::snprintf(shape, sizeof shape, "%u vertices cin %u h %u wd %u, clash: %s", n, cin, h, wd, kClash[clash]);
    // In order: the states (no y reaches them), x, the bs, the ws, the ys (and a spare one);
    // vertex a, whose y may lie over vertex c's y, w or b and what follows them (never x),
    // has its own w and b after all that.
    Sram s;
    const uint32_t states = s.alloc(size_t{n} * fw::kWords_conv2d), x = s.put(values(r, size_t{cin} * plane));
    std::vector<uint32_t> w(n), b(n), y(n);
    for (uint32_t i = 0; i < n; ++i) b[i] = s.put(values(r, 1));
    for (uint32_t i = 0; i < n; ++i) w[i] = s.put(values(r, size_t{cin} * 9));
    for (uint32_t i = 0; i < n; ++i) y[i] = s.put(values(r, plane));
    s.put(values(r, plane));
    const uint32_t a = r() % n, c = (a + 1 + r() % (n - 1)) % n;
    w[a] = s.put(values(r, size_t{cin} * 9)), b[a] = s.put(values(r, 1));
    if (clash == 1) y[a] = y[c] + 4 * (1 + r() % (plane - 1));  // plane >= 4
    if (clash == 2) y[a] = w[c] + 4 * (r() % (cin * 9));
    if (clash == 3) y[a] = b[c];
    std::vector<arch::Vertex> vs(n);
    for (uint32_t i = 0; i < n; ++i) {
      vs[i] = {index, states + 4 * i * fw::kWords_conv2d};
      const std::vector<uint32_t> st = {y[i], x, w[i], b[i], cin, h, wd, 1, h, wd, 3, 3, 1, 1, 1, 1, 1, 1};
      std::memcpy(s.at(vs[i].state), st.data(), st.size() * 4);
    }
    const std::vector<uint8_t> before = s.bytes;
    fw::NativeTile tile;
    tile.sram = s.bytes.data();
    tile.sram_bytes = static_cast<uint32_t>(s.bytes.size());
    const bool was = fw::simd::set_enabled(false);
    for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(fw::native_run_codelet(tile, index, vs[i].state), fw::NativeStop::kSync) << shape;
    fw::simd::set_enabled(was);
    const std::vector<uint8_t> want = s.bytes;
    for (const Blocks& blocks : block_builds()) {
      std::copy(before.begin(), before.end(), s.bytes.begin());  // the tile's SRAM stays where it is
      {
        const UseBlocks use(true, blocks);
        fw::NativeTileBinding bind(tile);
        for (uint32_t i = 0; i < n;) i += fw::native_conv2d_vertices(vs.data() + i, n - i);
      }
      for (size_t k = 0; k < want.size(); k += 4) {
        uint32_t got_word, want_word;
        std::memcpy(&got_word, s.bytes.data() + k, 4), std::memcpy(&want_word, want.data() + k, 4);
        ASSERT_TRUE(fwtest::same_or_both_nan(got_word, want_word))
            << shape << blocks.name << ": byte " << k << " 0x" << std::hex << got_word << ", in order 0x" << want_word;
      }
    }
  }
}

TEST_F(NativeSimd, Maxpool2dGivesThePortableBits) {
  std::mt19937 r(seed_ + 3);
  for (int trial = 0; trial < 80; ++trial) {
    const uint32_t c = 1 + r() % 4, kh = 1 + r() % 4, kw = 1 + r() % 4, h = 1 + r() % 14, wd = 1 + r() % 30;
    const uint32_t sh = 1 + r() % 3, sw = 1 + r() % 3, oh = 1 + r() % 12, ow = 1 + r() % 20;
    const int32_t ph = static_cast<int32_t>(r() % 5) - 1, pw = static_cast<int32_t>(r() % 5) - 1;
    char shape[160];
    std::snprintf(shape, sizeof shape, "maxpool2d c %u h %u wd %u oh %u ow %u k %ux%u s %ux%u p %dx%d", c, h, wd, oh, ow,
                  kh, kw, sh, sw, ph, pw);
    Sram s;
    // Ties and NaNs on purpose: values from a small set, specials mixed in.
    std::vector<uint32_t> xv = values(r, size_t{c} * h * wd);
    for (auto& v : xv)
      if (r() % 3 == 0) v = kSpecialBits[r() % std::size(kSpecialBits)];
    const uint32_t x = s.put(xv), y = s.put(values(r, size_t{c} * oh * ow));
    compare(s, "maxpool2d",
            {y, x, c, h, wd, oh, ow, kh, kw, sh, sw, static_cast<uint32_t>(ph), static_cast<uint32_t>(pw)}, y,
            size_t{c} * oh * ow, shape, /*exact: the pick's bits, NaN payloads too*/ true);
  }
}

TEST_F(NativeSimd, ReluGivesThePortableBits) {
  std::mt19937 r(seed_ + 4);
  for (int trial = 0; trial < 40; ++trial) {
    const uint32_t n = trial == 0 ? 0 : r() % 70;
    Sram s;
    // Every special (NaNs with payloads, -0, subnormals) often; some NaN payloads at random.
    std::vector<uint32_t> xv = values(r, n);
    for (auto& v : xv)
      if (r() % 3 == 0) v = r() % 2 ? kSpecialBits[r() % std::size(kSpecialBits)] : (r() | 0x7f800001u);
    const uint32_t x = s.put(xv), y = s.put(values(r, n));
    compare(s, "relu", {y, x, n}, y, n, "relu n " + std::to_string(n), /*exact*/ true);
    compare(s, "relu", {x, x, n}, x, n, "relu in place, n " + std::to_string(n), true);
  }
}

TEST_F(NativeSimd, ReduceSumAndSgdGiveThePortableBits) {
  std::mt19937 r(seed_ + 2);
  for (int trial = 0; trial < 40; ++trial) {
    // The first trial is always empty (n = 0): it once reached memcpy with a null source
    // (UBSan in the sanitizer build) in 44% of the runs.
    const uint32_t n = trial == 0 ? 0 : r() % 70, k = r() % 6;
    const std::string shape = "n " + std::to_string(n) + " k " + std::to_string(k);
    Sram s;
    const uint32_t in = s.put(values(r, size_t{n} * k)), out = s.put(values(r, n));
    compare(s, "reduce_sum", {out, in, n, k}, out, n, "reduce_sum " + shape);
    if (k > 0) compare(s, "reduce_sum", {in, in, n, k}, in, n, "reduce_sum in place " + shape);
    // w and v both change: compare them as one region (v follows w)
    const uint32_t w = s.put(values(r, size_t{n} * 2)), v = w + 4 * n, g = s.put(values(r, n));
    const uint32_t lr = s.put(values(r, 1));
    compare(s, "sgd_momentum", {w, v, g, lr, n, values(r, 1)[0]}, w, size_t{n} * 2, "sgd_momentum " + shape);
  }
}

}  // namespace
