// The codelets of on-device training (relu_grad, softmax_xent, matmul_tn, matmul_nt,
// sgd_momentum, lr_linear) run as vertices of a control program by tessera-firmware.elf on
// one emulated tile (the RISC-V build, on the ISS) and by native mode on a copy of the same
// tile memory: every word of tile memory above the firmware must match bit for bit (NaN
// payloads excepted). The native results are also checked against plain C++ references
// written here: the exact operations each codelet's header states (bits), and for
// softmax_xent double-precision math (ulps), for lr_linear the correctly rounded value and
// PyTorch's double formula (at most 1 ulp, rarely). rng_uniform against philox_ref.h,
// which is itself checked against Random123's known-answer vectors first.
// (The codelet suite of firmware/fw-tests/codelet_suite.h does not run these yet; this file
// is their ISS-versus-native test until it does.)
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <random>
#include <string>
#include <vector>

#include "fp_check.h"
#include "philox_ref.h"
#include "runtime/fp_rules.h"
#include "runtime/native.h"
#include "scenarios.h"
#include "tessera/emu/tile.h"
#include "tessera/exe/elf.h"

namespace {

using namespace tessera;
using namespace tessera::fwtest;

constexpr uint32_t kSramBytes = 128 * 1024;  // the firmware takes 24 KiB

const exe::ElfImage& firmware() {
  static const exe::ElfImage image = exe::read_elf_file(TESSERA_FIRMWARE_ELF);
  return image;
}

// The FP specials of codelet_suite.h (kept in step by hand).
const std::vector<uint32_t> kSpecials = {
    0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x7f800000, 0xff800000, 0x7fc00000,
    0xffc00000, 0x7f800001, 0x7fa00000, 0x00000001, 0x807fffff, 0x00800000, 0x80800000,
    0x7f7fffff, 0xff7fffff, 0x3f000000, 0xbf7fffff, 0x40490fdb, 0x3fb504f3, 0x3f3504f3,
    0x4f000000, 0xcf000000, 0x3c000000, 0xc2c80000, 0x42c80000, 0x33800000, 0x0000ffff};

struct Rng {
  std::mt19937 g;
  uint32_t operator()() { return static_cast<uint32_t>(g()); }
};

// A float with a random sign and mantissa and an unbiased exponent in [lo, hi].
uint32_t random_float(Rng& r, int lo, int hi) {
  const uint32_t x = r();
  const uint32_t e = static_cast<uint32_t>(lo + static_cast<int>(r() % (hi - lo + 1)) + 127);
  return (x & 0x80000000u) | (e << 23) | (x & 0x007fffffu);
}

float f32(uint32_t u) { return from_bits(u); }

// One output region to check: `words` words at `addr`, and how.
struct Check {
  std::string name;
  uint32_t addr = 0;
  std::vector<uint32_t> expected;  // exact bits (NaN payloads aside)
  // or, if set: an extra check of each native value (returns an error message or "")
  std::function<std::string(uint32_t index, uint32_t value)> approx;
  uint32_t words = 0;
};

// The tile memory with the firmware placed, the cases' inputs, vertices and control
// program; the expected outputs, computed from the inputs when each case is added.
class Program {
 public:
  Program() : sram_(kSramBytes) {
    exe::place_elf(firmware(), sram_.data(), kSramBase, kSramBytes);
    image_ = std::make_unique<TileImage>(std::span<uint8_t>(sram_),
                                         firmware().symbol(fw::kSymTileHeader),
                                         firmware().symbol(fw::kSymFirmwareEnd));
  }
  TileImage& m() { return *image_; }
  uint32_t put(const std::vector<uint32_t>& w) { return m().put(w); }
  uint32_t zeros(uint32_t n) { return m().alloc(n); }
  std::vector<uint32_t> get(uint32_t addr, uint32_t n) {
    std::vector<uint32_t> v(n);
    for (uint32_t i = 0; i < n; ++i) v[i] = m().get(addr + 4 * i);
    return v;
  }
  // A vertex in a compute set of its own, executed in order.
  void vertex(const char* name, const std::vector<uint32_t>& state) {
    ASSERT_LT(fw::codelet_index(name), fw::tessera_codelet_count) << name;
    m().program.insert(m().program.end(), {kCtlExecute, static_cast<uint32_t>(m().compute_sets.size())});
    m().compute_sets.push_back({m().vertex(name, state)});
    ran_.push_back(name);
  }
  void expect(Check c) { checks_.push_back(std::move(c)); }

  // Writes the header; the initial tile memory.
  std::vector<uint8_t> finish() {
    m().program.push_back(kCtlEnd);
    m().write_header(m().write());
    return sram_;
  }
  const std::vector<Check>& checks() const { return checks_; }
  const std::vector<std::string>& ran() const { return ran_; }

 private:
  std::vector<uint8_t> sram_;
  std::unique_ptr<TileImage> image_;
  std::vector<Check> checks_;
  std::vector<std::string> ran_;
};

struct NullRegs : fw::NativeRegs {
  void store(uint32_t, uint32_t) override {}
  uint32_t load(uint32_t) override { return 0; }
};

// Runs the program natively on a copy of `initial`; the memory after.
std::vector<uint8_t> run_native(const std::vector<uint8_t>& initial) {
  std::vector<uint8_t> sram = initial;
  NullRegs regs;
  fw::NativeTile t;
  t.sram = sram.data();
  t.sram_bytes = kSramBytes;
  t.regs = &regs;
  t.header = firmware().symbol(fw::kSymTileHeader);
  for (int i = 0; i < 10 && fw::native_run_until_sync(t) == fw::NativeStop::kSync; ++i) {
  }
  EXPECT_TRUE(t.halted);
  EXPECT_EQ(t.exit_code, 0u);
  return sram;
}

// Runs tessera-firmware.elf on the ISS from `initial`; the memory after.
std::vector<uint8_t> run_iss(const std::vector<uint8_t>& initial) {
  emu::Tile tile(0, 1, kSramBytes);
  tile.set_console(stderr);
  tile.load_elf(firmware());
  std::memcpy(tile.sram().data(), initial.data(), kSramBytes);
  const emu::StopReason why = tile.hart().run(200'000'000);
  EXPECT_EQ(why, emu::StopReason::kHalted);
  const emu::Halt& h = tile.hart().halt_info();
  EXPECT_EQ(h.kind, emu::Halt::Kind::kExit) << "trap cause " << h.code << " pc 0x" << std::hex << h.pc;
  EXPECT_EQ(h.code, 0u);
  return std::vector<uint8_t>(tile.sram().begin(), tile.sram().end());
}

uint32_t word_at(const std::vector<uint8_t>& sram, uint32_t addr) {
  uint32_t v;
  std::memcpy(&v, sram.data() + (addr - kSramBase), 4);
  return v;
}

// ---- the cases -------------------------------------------------------------------------

void add_relu_grad(Program& p, Rng& r) {
  // every special against every special, then random values with random signs and zeros
  const uint32_t ns = static_cast<uint32_t>(kSpecials.size());
  std::vector<uint32_t> dy, y;
  for (uint32_t i = 0; i < ns * ns; ++i) {
    dy.push_back(kSpecials[i / ns]);
    y.push_back(kSpecials[i % ns]);
  }
  for (int i = 0; i < 100; ++i) {
    dy.push_back(random_float(r, -20, 20));
    y.push_back(i % 7 == 0 ? (r() & 0x80000000u) : random_float(r, -20, 20));
  }
  const uint32_t n = static_cast<uint32_t>(dy.size());
  auto ref = [&](std::vector<uint32_t> g, const std::vector<uint32_t>& yy) {
    for (uint32_t i = 0; i < n; ++i) g[i] = f32(yy[i]) > 0.0f ? g[i] : 0u;  // NaN y: not > 0
    return g;
  };
  const uint32_t a_dy = p.put(dy), a_y = p.put(y), dx = p.zeros(n);
  p.vertex("relu_grad", {dx, a_dy, a_y, n});
  p.expect({"relu_grad", dx, ref(dy, y), {}, n});
  // in place: dx = dy
  const uint32_t b_dy = p.put(dy), b_y = p.put(y);
  p.vertex("relu_grad", {b_dy, b_dy, b_y, n});
  p.expect({"relu_grad (in place)", b_dy, ref(dy, y), {}, n});
}

void add_matmuls(Program& p, Rng& r, uint32_t m, uint32_t k, uint32_t n) {
  auto values = [&](uint32_t count) {
    std::vector<uint32_t> v;
    for (uint32_t i = 0; i < count; ++i)
      v.push_back(i % 17 == 3 ? kSpecials[r() % kSpecials.size()] : random_float(r, -4, 4));
    return v;
  };
  {  // a: k x m, b: k x n
    const std::vector<uint32_t> a = values(k * m), b = values(k * n);
    std::vector<uint32_t> e;
    for (uint32_t i = 0; i < m; ++i)
      for (uint32_t j = 0; j < n; ++j) {
        float acc = 0.0f;
        for (uint32_t q = 0; q < k; ++q) acc = std::fma(f32(a[q * m + i]), f32(b[q * n + j]), acc);
        e.push_back(bits(acc));
      }
    const uint32_t c = p.zeros(m * n);
    p.vertex("matmul_tn", {c, p.put(a), p.put(b), m, k, n});
    p.expect({"matmul_tn", c, e, {}, m * n});
    // and against matmul on the explicitly transposed a
    std::vector<uint32_t> at(m * k);
    for (uint32_t i = 0; i < m; ++i)
      for (uint32_t q = 0; q < k; ++q) at[i * k + q] = a[q * m + i];
    const uint32_t c2 = p.zeros(m * n);
    p.vertex("matmul", {c2, p.put(at), p.put(b), m, k, n});
    p.expect({"matmul (a transposed)", c2, e, {}, m * n});
  }
  {  // a: m x k, b: n x k
    const std::vector<uint32_t> a = values(m * k), b = values(n * k);
    std::vector<uint32_t> e;
    for (uint32_t i = 0; i < m; ++i)
      for (uint32_t j = 0; j < n; ++j) {
        float acc = 0.0f;
        for (uint32_t q = 0; q < k; ++q) acc = std::fma(f32(a[i * k + q]), f32(b[j * k + q]), acc);
        e.push_back(bits(acc));
      }
    const uint32_t c = p.zeros(m * n);
    p.vertex("matmul_nt", {c, p.put(a), p.put(b), m, k, n});
    p.expect({"matmul_nt", c, e, {}, m * n});
  }
  for (uint32_t kk : {0u, 1u}) {  // empty reduction: +0; one term
    const std::vector<uint32_t> a = values(3 * kk), b = values(2 * kk);
    std::vector<uint32_t> e(6, 0u);
    if (kk == 1)
      for (uint32_t i = 0; i < 3; ++i)
        for (uint32_t j = 0; j < 2; ++j) e[i * 2 + j] = bits(std::fma(f32(a[i]), f32(b[j]), 0.0f));
    const uint32_t c = p.put(std::vector<uint32_t>(6, 0xdeadbeefu)), c2 = p.put(std::vector<uint32_t>(6, 0xdeadbeefu));
    p.vertex("matmul_tn", {c, kk ? p.put(a) : 0u, kk ? p.put(b) : 0u, 3, kk, 2});
    p.vertex("matmul_nt", {c2, kk ? p.put(a) : 0u, kk ? p.put(b) : 0u, 3, kk, 2});
    p.expect({"matmul_tn k=" + std::to_string(kk), c, e, {}, 6});
    p.expect({"matmul_nt k=" + std::to_string(kk), c2, e, {}, 6});
  }
}

void add_sgd(Program& p, Rng& r) {
  for (const float momentum : {0.9f, 0.0f, 0.99f}) {
    std::vector<uint32_t> w, v, g;
    const uint32_t ns = static_cast<uint32_t>(kSpecials.size());
    for (uint32_t i = 0; i < 150; ++i) {
      w.push_back(random_float(r, -6, 2));
      v.push_back(random_float(r, -12, -2));
      g.push_back(random_float(r, -14, 0));
    }
    for (uint32_t i = 0; i < ns; ++i) {  // specials in each operand
      w.push_back(kSpecials[i]), v.push_back(random_float(r, -8, 0)), g.push_back(random_float(r, -8, 0));
      w.push_back(random_float(r, -8, 0)), v.push_back(kSpecials[i]), g.push_back(random_float(r, -8, 0));
      w.push_back(random_float(r, -8, 0)), v.push_back(random_float(r, -8, 0)), g.push_back(kSpecials[i]);
    }
    const uint32_t n = static_cast<uint32_t>(w.size());
    const float lr = 0.05f;
    std::vector<uint32_t> ew(n), ev(n);
    for (uint32_t i = 0; i < n; ++i) {
      const float vi = f32(v[i]) * momentum + f32(g[i]);  // -ffp-contract=off: two roundings
      ev[i] = bits(vi);
      ew[i] = bits(std::fma(vi, -lr, f32(w[i])));
    }
    const uint32_t aw = p.put(w), av = p.put(v), ag = p.put(g), alr = p.put({bits(lr)});
    p.vertex("sgd_momentum", {aw, av, ag, alr, n, bits(momentum)});
    p.expect({"sgd_momentum w", aw, ew, {}, n});
    p.expect({"sgd_momentum v", av, ev, {}, n});
  }
}

// The correctly rounded lr0 * (total - t) / total (the codelet's definition).
float lr_correct(float lr0, uint32_t t, uint32_t total) {
  if (t >= total) return 0.0f;
  // exact in long double (64-bit significand): lr0 * (total - t) has at most 56 bits; the
  // division rounds once, then to float: a double rounding only within 2^-40 of a tie.
  const long double x = static_cast<long double>(lr0) * (total - t) / total;
  return static_cast<float>(x);
}

void add_lr_linear(Program& p, Rng& r) {
  struct Case {
    float lr0;
    uint32_t t, total;
  };
  std::vector<Case> cases = {{0.1f, 0, 1000},  {0.1f, 1, 1000},     {0.1f, 999, 1000},
                             {0.1f, 1000, 1000}, {0.1f, 5000, 1000}, {0.1f, 0, 0},
                             {0.001f, 675, 1000}, {0.5f, 3, 4},      {0.01f, 59999, 60000},
                             {1e-3f, 0xfffffffeu, 0xffffffffu}, {0.1f, 0xffffffffu, 3},
                             {0x1.000002p0f, 1, 4}};
  for (int i = 0; i < 200; ++i) {
    const uint32_t total = 1 + r() % (i < 100 ? 1000 : (1u << 24));
    cases.push_back({f32(random_float(r, -14, -1) & 0x7fffffffu), r() % (total + 2), total});
  }
  int differ = 0;
  for (const Case& c : cases) {
    const uint32_t lr = p.zeros(1), step = p.put({c.t});
    p.vertex("lr_linear", {lr, step, bits(c.lr0), c.total});
    const float want = lr_correct(c.lr0, c.t, c.total);
    p.expect({"lr_linear lr", lr, {bits(want)}, {}, 1});
    p.expect({"lr_linear step", step, {c.t + 1}, {}, 1});
    // PyTorch's LambdaLR(lambda t: 1 - t/total), in double, as SGD applies it: f32
    if (c.t < c.total) {
      const float torch = static_cast<float>(static_cast<double>(c.lr0) *
                                             (1.0 - static_cast<double>(c.t) / c.total));
      EXPECT_LE(std::abs(static_cast<int64_t>(bits(torch)) - bits(want)), 1)
          << c.lr0 << " " << c.t << " " << c.total;
      differ += bits(torch) != bits(want);
    }
  }
  EXPECT_LE(differ, 2) << "lr_linear: more cases 1 ulp from PyTorch's double formula than expected";
}

// softmax_xent: exact bits against the header's operations restated here (std::fma and the
// fp_rules.h exp/log: the same functions, so this checks the order of operations), and a
// double-precision reference within a tolerance.
void add_softmax_xent(Program& p, Rng& r, bool in_place) {
  const uint32_t rows = 14, cols = 10;
  std::vector<uint32_t> x, labels;
  for (uint32_t i = 0; i < rows * cols; ++i) x.push_back(random_float(r, -3, 3));
  for (uint32_t i = 0; i < rows; ++i) labels.push_back(r() % cols);
  auto row = [&](uint32_t i) { return x.begin() + i * cols; };
  row(1)[3] = 0x7fc00000u;                          // a NaN
  row(2)[5] = 0x7f800000u;                          // +inf
  std::fill(row(3), row(3) + cols, 0xff800000u);    // all -inf
  labels[4] = cols;                                 // label out of range
  labels[5] = 0xffffff9cu;                          // PyTorch's ignore_index -100
  for (uint32_t c = 0; c < cols; ++c) row(6)[c] = bits(30.0f * static_cast<float>(c));  // confident
  row(6)[0] = 0xff800000u;                          // -inf: p = 0
  std::fill(row(7), row(7) + cols, 0x3f800000u);    // all equal
  row(8)[2] = 0x80000000u, row(8)[3] = 0x00000001u; // -0, subnormal
  labels[6] = cols - 1;
  const float scale = 1.0f / rows;

  std::vector<uint32_t> e_loss(rows), e_dx(rows * cols);
  std::vector<double> r_loss(rows), r_dx(rows * cols);
  for (uint32_t i = 0; i < rows; ++i) {
    const float* xr = reinterpret_cast<const float*>(&x[i * cols]);
    const uint32_t L = labels[i];
    float m = xr[0];
    for (uint32_t c = 1; c < cols; ++c) m = fw::fp_max(m, xr[c]);
    float s = 0.0f;
    for (uint32_t c = 0; c < cols; ++c) s = c == 0 ? fw::fp_expf(xr[c] - m) : s + fw::fp_expf(xr[c] - m);
    const float lse = m + fw::fp_logf(s);
    e_loss[i] = L < cols ? bits(lse - xr[L]) : 0x7fc00000u;
    for (uint32_t c = 0; c < cols; ++c)
      e_dx[i * cols + c] = bits(std::fma(fw::fp_expf(xr[c] - lse), scale, c == L ? -scale : 0.0f));
    // double precision (skipping NaNs in the max as fp_max does)
    double md = -INFINITY;
    for (uint32_t c = 0; c < cols; ++c)
      if (!std::isnan(xr[c])) md = std::max(md, double{xr[c]});
    double sd = 0;
    for (uint32_t c = 0; c < cols; ++c) sd += std::exp(double{xr[c]} - md);
    const double lsed = md + std::log(sd);
    r_loss[i] = L < cols ? lsed - xr[L] : NAN;
    for (uint32_t c = 0; c < cols; ++c)
      r_dx[i * cols + c] = (std::exp(double{xr[c]} - lsed) - (c == L ? 1.0 : 0.0)) * scale;
  }
  const uint32_t ax = p.put(x), al = p.put(labels), loss = p.zeros(rows);
  const uint32_t dx = in_place ? ax : p.zeros(rows * cols);
  p.vertex("softmax_xent", {dx, loss, ax, al, rows, cols, bits(scale)});
  const std::string tag = in_place ? "softmax_xent (in place)" : "softmax_xent";
  // Tolerance: a few ulps of the result, plus a few ulps of the terms that cancel
  // (lse and x[L] in the loss, scale at the label).
  auto ulp_of = [](double v) { return std::ldexp(1.0, std::ilogb(std::max(std::fabs(v), 0x1p-126)) - 23); };
  auto near = [=](double got, double ref, double mag, double ulps) {
    if (std::isnan(ref) || std::isnan(got)) return std::isnan(ref) == std::isnan(got);
    return std::fabs(got - ref) <= ulps * (ulp_of(ref) + ulp_of(mag));
  };
  const std::vector<float> xs = [&] {
    std::vector<float> v;
    for (uint32_t u : x) v.push_back(f32(u));
    return v;
  }();
  p.expect({tag + " loss", loss, e_loss,
            [=](uint32_t i, uint32_t value) -> std::string {
              const uint32_t L = labels[i];
              const double mag = L < cols ? std::fabs(double{xs[i * cols + L]}) : 0.0;
              return near(f32(value), r_loss[i], mag, 4) ? "" : "loss vs double: ref " + std::to_string(r_loss[i]);
            },
            rows});
  p.expect({tag + " dlogits", dx, e_dx,
            [=](uint32_t i, uint32_t value) -> std::string {
              return near(f32(value), r_dx[i], scale, 4) ? "" : "dlogits vs double: ref " + std::to_string(r_dx[i]);
            },
            rows * cols});
}

// rng_uniform: out[i] = fma(f32(x >> 8), step, lo), x = word 0 of Philox4x32-10 of the
// counter {first + i, stream, 0, 0} under the key {seed, 0x54535241}; with step = (hi - lo)
// * 2^-24 the same bits as the documented fma((x >> 8) * 2^-24, hi - lo, lo).
void add_rng_uniform(Program& p, Rng& r) {
  struct Case {
    uint32_t seed, n, first, stream;
    float lo, hi;
  };
  const float b = 1.0f / std::sqrt(784.0f);
  std::vector<Case> cases = {{0, 40, 0, 0, -b, b},
                             {1, 40, 0, 0, -b, b},
                             {0, 40, 0, 1, -b, b},
                             {12345, 50, 1000, 3, -0.0625f, 0.0625f},
                             {0xffffffffu, 20, 0xfffffff6u, 5, -1.0f, 1.0f},  // the index wraps
                             {7, 0, 0, 0, -1.0f, 1.0f},                       // n = 0
                             {7, 33, 17, 2, 0.0f, 1.0f},                      // U(0, 1)
                             {99, 25, 5, 0xffffffffu, 2.0f, 3.0f}};
  for (int i = 0; i < 6; ++i) {
    const float w = f32(random_float(r, -8, 0) & 0x7fffffffu);
    cases.push_back({r(), 1 + r() % 60, r(), r() % 8, -w, w});
  }
  for (const Case& c : cases) {
    const float width = c.hi - c.lo, step = width * 0x1p-24f;
    ASSERT_EQ(double(width), double(c.hi) - double(c.lo));
    std::vector<uint32_t> e;
    for (uint32_t i = 0; i < c.n; ++i) {
      const uint32_t x = fwtest::philox4x32_10({c.first + i, c.stream, 0, 0}, {c.seed, 0x54535241u})[0];
      const float u = static_cast<float>(x >> 8) * 0x1p-24f;
      const float v = std::fma(u, width, c.lo);
      ASSERT_EQ(bits(v), bits(std::fma(static_cast<float>(x >> 8), step, c.lo)));
      ASSERT_TRUE(v >= c.lo && v <= c.hi);
      e.push_back(bits(v));
    }
    const uint32_t seed = p.put({c.seed}), out = p.put(std::vector<uint32_t>(c.n + 1, 0xdeadbeefu));
    p.vertex("rng_uniform", {out, seed, c.n, c.first, c.stream, bits(c.lo), bits(step)});
    e.push_back(0xdeadbeefu);  // the word after stays
    p.expect({"rng_uniform seed " + std::to_string(c.seed) + " stream " + std::to_string(c.stream), out, e, {},
              c.n + 1});
  }
  {  // NaN step: IEEE fma (NaN everywhere)
    const uint32_t seed = p.put({1}), out = p.zeros(3);
    p.vertex("rng_uniform", {out, seed, 3, 0, 0, bits(0.0f), 0x7fc00000u});
    p.expect({"rng_uniform NaN step", out, {0x7fc00000u, 0x7fc00000u, 0x7fc00000u}, {}, 3});
  }
}

Program& build_program() {
  static Program p;
  static bool built = false;
  if (!built) {
    built = true;
    Rng r{std::mt19937(12345)};
    add_relu_grad(p, r);
    add_matmuls(p, r, 6, 11, 5);
    add_sgd(p, r);
    add_lr_linear(p, r);
    add_softmax_xent(p, r, false);
    add_softmax_xent(p, r, true);
    add_rng_uniform(p, r);
    {  // cols = 0: loss NaN, nothing else written
      const uint32_t loss = p.zeros(2), labels = p.put({0, 0});
      p.vertex("softmax_xent", {0x80004000u, loss, 0x80004000u, labels, 2, 0, bits(0.5f)});
      p.expect({"softmax_xent cols=0", loss, {0x7fc00000u, 0x7fc00000u}, {}, 2});
    }
    {  // native mode's full 4 x 16 blocks and both edges (runtime/native_simd.h)
      Rng wide{std::mt19937(2020)};
      add_matmuls(p, wide, 7, 9, 37);
    }
  }
  return p;
}

const std::vector<uint8_t>& initial_memory() {
  static const std::vector<uint8_t> m = build_program().finish();
  return m;
}

// philox_ref.h against Random123's known answers (every line of the file: the counter,
// the key and all four output words).
TEST(TrainingCodelets, PhiloxReferenceMatchesRandom123KnownAnswers) {
  std::ifstream in(TESSERA_PHILOX_KAT);
  ASSERT_TRUE(in) << TESSERA_PHILOX_KAT;
  int vectors = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    uint32_t w[10];
    for (uint32_t& v : w) ASSERT_TRUE(ss >> std::hex >> v) << line;
    const std::array<uint32_t, 4> got = fwtest::philox4x32_10({w[0], w[1], w[2], w[3]}, {w[4], w[5]});
    for (int i = 0; i < 4; ++i) EXPECT_EQ(got[i], w[6 + i]) << line << " word " << i;
    ++vectors;
  }
  EXPECT_EQ(vectors, 55);
}

TEST(TrainingCodelets, NativeMatchesPlainCxxReferences) {
  const std::vector<uint8_t>& initial = initial_memory();
  const std::vector<uint8_t> out = run_native(initial);
  int failures = 0;
  for (const Check& c : build_program().checks()) {
    for (uint32_t i = 0; i < c.words; ++i) {
      const uint32_t got = word_at(out, c.addr + 4 * i);
      if (!c.expected.empty() && !same_or_both_nan(got, c.expected[i]) && ++failures <= 30)
        ADD_FAILURE() << c.name << "[" << i << "] = 0x" << std::hex << got << " (" << f32(got)
                      << "), expected 0x" << c.expected[i] << " (" << f32(c.expected[i]) << ")";
      if (c.approx) {
        const std::string why = c.approx(i, got);
        if (!why.empty() && ++failures <= 30)
          ADD_FAILURE() << c.name << "[" << i << "] = " << f32(got) << ": " << why;
      }
    }
  }
  EXPECT_EQ(failures, 0);
  // Every training codelet ran.
  for (const char* name :
       {"relu_grad", "softmax_xent", "matmul_tn", "matmul_nt", "sgd_momentum", "lr_linear", "rng_uniform"})
    EXPECT_NE(std::find(build_program().ran().begin(), build_program().ran().end(), name),
              build_program().ran().end())
        << name;
}

TEST(TrainingCodelets, RiscvAndNativeGiveTheSameBits) {
  const std::vector<uint8_t>& initial = initial_memory();
  const std::vector<uint8_t> native = run_native(initial);
  const std::vector<uint8_t> iss = run_iss(initial);
  // Every word above the firmware: inputs, outputs (the state records and the control
  // program too, which neither build changes).
  const uint32_t from = firmware().symbol(fw::kSymFirmwareEnd);
  int mismatches = 0, nan_payloads = 0, compared = 0;
  for (uint32_t a = from; a < kSramBase + kSramBytes; a += 4, ++compared) {
    const uint32_t x = word_at(iss, a), y = word_at(native, a);
    if (x != y && same_or_both_nan(x, y)) ++nan_payloads;
    if (!same_or_both_nan(x, y) && ++mismatches <= 20)
      ADD_FAILURE() << "word 0x" << std::hex << a << ": RISC-V 0x" << x << ", native 0x" << y;
  }
  // and the ISS did run them: its outputs are the expected ones too
  int checked = 0;
  for (const Check& c : build_program().checks())
    for (uint32_t i = 0; i < c.words; ++i, ++checked)
      if (!c.expected.empty() && !same_or_both_nan(word_at(iss, c.addr + 4 * i), c.expected[i]) &&
          ++mismatches <= 40)
        ADD_FAILURE() << c.name << "[" << i << "] on the ISS: 0x" << std::hex
                      << word_at(iss, c.addr + 4 * i) << ", expected 0x" << c.expected[i];
  EXPECT_EQ(mismatches, 0);
  std::printf("%d words compared (%d output words checked, %d NaNs with different payloads)\n",
              compared, checked, nan_payloads);
}

}  // namespace
