// Randomized cross-check of tessera::fp against the MPFR reference model (mpfr_ref.h).
//
// Every operand set is checked under all five rounding modes, through the public API (fast
// path + fallback) and, for the arithmetic ops, through the software path directly.
// Seed: TESSERA_SEED (decimal or 0x-hex), default below; it is printed at start.
// TESSERA_FP_SCALE (e.g. 10) multiplies the number of random operand sets.
#include <gtest/gtest.h>
#include "tessera/testutil/seed.h"

#include <bit>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

#include "mpfr_ref.h"
#include "operand_gen.h"

namespace tessera::fp::testing {
namespace {

constexpr uint64_t kDefaultSeed = 0x7e55e7a5eedull;
constexpr int kMaxReportsPerOp = 8;

uint64_t g_seed = kDefaultSeed;
uint64_t g_vectors = 0;

double scale_from_env() {
  const char* s = std::getenv("TESSERA_FP_SCALE");
  const double v = (s && *s) ? std::strtod(s, nullptr) : 1.0;
  return v > 0 ? v : 1.0;
}

class FpEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    g_seed = tessera::testutil::default_seed("fp against MPFR", kDefaultSeed);
    start_ = std::chrono::steady_clock::now();
  }
  void TearDown() override {
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::printf("[ fp ] %" PRIu64 " vectors checked against MPFR in %.2f s (seed 0x%" PRIx64 ")\n",
                g_vectors, s, g_seed);
  }

 private:
  std::chrono::steady_clock::time_point start_;
};
[[maybe_unused]] ::testing::Environment* const g_env =
    ::testing::AddGlobalTestEnvironment(new FpEnvironment);

std::string describe_operand(uint32_t x) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "0x%08x (%a)", x, static_cast<double>(std::bit_cast<float>(x)));
  return buf;
}

// Checks vectors of one op, reports the first few mismatches in full and counts the rest.
class Checker {
 public:
  explicit Checker(Op op) : op_(op) {}
  ~Checker() {
    g_vectors += count_;
    std::printf("[ fp ] %-9s %8" PRIu64 " vectors; expected flags NX %" PRIu64 " UF %" PRIu64
                " OF %" PRIu64 " DZ %" PRIu64 " NV %" PRIu64 "; ties (rne != rmm) %" PRIu64
                "; tiny results %" PRIu64 "\n",
                op_name(op_), count_, flag_count_[0], flag_count_[1], flag_count_[2],
                flag_count_[3], flag_count_[4], ties_, tiny_);
    EXPECT_EQ(failures_, 0u) << op_name(op_) << ": " << failures_ << " mismatches in " << count_
                             << " vectors (TESSERA_SEED=0x" << std::hex << g_seed << ")";
  }

  Outcome check(Rm rm, uint32_t a, uint32_t b, uint32_t c) {
    const Outcome expected = reference(op_, a, b, c, rm);
    for (int i = 0; i < 5; ++i) flag_count_[i] += (expected.flags >> i) & 1;
    const Outcome api = call_api(op_, a, b, c, rm);
    if (api != expected) report("api", rm, a, b, c, expected, api);
    Outcome soft;
    if (call_soft(op_, a, b, c, rm, soft) && soft != expected) {
      report("soft", rm, a, b, c, expected, soft);
    }
    ++count_;
    return expected;
  }

  // All five rounding modes (or just one for ops without a rounding mode).
  void check_all_rm(uint32_t a, uint32_t b, uint32_t c) {
    if (!uses_rm(op_)) {
      check(Rm::kRne, a, b, c);
      return;
    }
    Outcome per_rm[5];
    for (int r = 0; r < 5; ++r) per_rm[r] = check(static_cast<Rm>(r), a, b, c);
    // Coverage: an exact tie is where RNE and RMM disagree (only ties separate them).
    ties_ += per_rm[0].bits != per_rm[4].bits;
    const uint32_t mag = per_rm[0].bits & 0x7fffffffu;
    tiny_ += op_ <= Op::kFnmadd && mag != 0 && mag < 0x00800000u;
  }

 private:
  void report(const char* path, Rm rm, uint32_t a, uint32_t b, uint32_t c, Outcome expected,
              Outcome actual) {
    if (failures_++ >= kMaxReportsPerOp) return;
    std::string msg = std::string(op_name(op_)) + " rm=" + rm_name(rm) + " path=" + path +
                      "\n  a=" + describe_operand(a);
    if (arity(op_) > 1) msg += "\n  b=" + describe_operand(b);
    if (arity(op_) > 2) msg += "\n  c=" + describe_operand(c);
    char buf[160];
    std::snprintf(buf, sizeof buf, "\n  expected 0x%08x flags %s\n  actual   0x%08x flags %s",
                  expected.bits, flags_string(expected.flags).c_str(), actual.bits,
                  flags_string(actual.flags).c_str());
    ADD_FAILURE() << msg << buf;
  }

  Op op_;
  uint64_t count_ = 0;
  uint64_t failures_ = 0;
  uint64_t flag_count_[5] = {};
  uint64_t ties_ = 0, tiny_ = 0;
};

using Gen = std::function<void(OperandGen&, uint32_t&, uint32_t&, uint32_t&)>;

// Random operand sets from `gen`, each checked under every rounding mode.
void run_random(Op op, int base_sets, const Gen& gen) {
  OperandGen g(g_seed * 0x9e3779b97f4a7c15ull + static_cast<uint64_t>(op) * 1000003u + 1);
  Checker ck(op);
  const int sets = static_cast<int>(base_sets * scale_from_env());
  for (int i = 0; i < sets; ++i) {
    uint32_t a = 0, b = 0, c = 0;
    gen(g, a, b, c);
    ck.check_all_rm(a, b, c);
  }
}

// Every pair of special values (and for fma, a set of special addends).
void run_specials(Op op) {
  Checker ck(op);
  const int n = OperandGen::num_specials();
  static constexpr uint32_t kAddends[] = {0x00000000, 0x80000000, 0x7f800000, 0xff800000,
                                          0x7fc00000, 0x7f800001, 0x3f800000, 0x00000001};
  for (int i = 0; i < n; ++i) {
    const uint32_t a = OperandGen::special_at(i);
    if (arity(op) == 1) {
      ck.check_all_rm(a, 0, 0);
      continue;
    }
    for (int j = 0; j < n; ++j) {
      const uint32_t b = OperandGen::special_at(j);
      if (arity(op) == 2) {
        ck.check_all_rm(a, b, 0);
      } else {
        for (uint32_t c : kAddends) ck.check_all_rm(a, b, c);
      }
    }
  }
}

constexpr int kArithSets = 80000;  // x5 rounding modes
constexpr int kCvtSets = 40000;
constexpr int kCmpSets = 60000;

const Gen kAddGen = [](OperandGen& g, uint32_t& a, uint32_t& b, uint32_t&) {
  g.add_operands(a, b);
};
const Gen kMulGen = [](OperandGen& g, uint32_t& a, uint32_t& b, uint32_t&) {
  g.mul_operands(a, b);
};
const Gen kDivGen = [](OperandGen& g, uint32_t& a, uint32_t& b, uint32_t&) {
  g.div_operands(a, b);
};
const Gen kSqrtGen = [](OperandGen& g, uint32_t& a, uint32_t&, uint32_t&) { a = g.sqrt_operand(); };
const Gen kFmaGen = [](OperandGen& g, uint32_t& a, uint32_t& b, uint32_t& c) {
  g.fma_operands(a, b, c);
};
const Gen kF2IGen = [](OperandGen& g, uint32_t& a, uint32_t&, uint32_t&) {
  a = g.float_to_int_operand();
};
const Gen kI2FGen = [](OperandGen& g, uint32_t& a, uint32_t&, uint32_t&) { a = g.int_operand(); };
const Gen kCmpGen = [](OperandGen& g, uint32_t& a, uint32_t& b, uint32_t&) {
  g.compare_operands(a, b);
};
const Gen kClassGen = [](OperandGen& g, uint32_t& a, uint32_t&, uint32_t&) { a = g.any_float(); };

TEST(FpMpfr, Add) { run_random(Op::kAdd, kArithSets, kAddGen); }
TEST(FpMpfr, Sub) { run_random(Op::kSub, kArithSets, kAddGen); }
TEST(FpMpfr, Mul) { run_random(Op::kMul, kArithSets, kMulGen); }
TEST(FpMpfr, Div) { run_random(Op::kDiv, kArithSets, kDivGen); }
TEST(FpMpfr, Sqrt) { run_random(Op::kSqrt, kArithSets, kSqrtGen); }
TEST(FpMpfr, Fmadd) { run_random(Op::kFmadd, kArithSets, kFmaGen); }
TEST(FpMpfr, Fmsub) { run_random(Op::kFmsub, kArithSets, kFmaGen); }
TEST(FpMpfr, Fnmsub) { run_random(Op::kFnmsub, kArithSets, kFmaGen); }
TEST(FpMpfr, Fnmadd) { run_random(Op::kFnmadd, kArithSets, kFmaGen); }
TEST(FpMpfr, CvtWS) { run_random(Op::kCvtWS, kCvtSets, kF2IGen); }
TEST(FpMpfr, CvtWuS) { run_random(Op::kCvtWuS, kCvtSets, kF2IGen); }
TEST(FpMpfr, CvtSW) { run_random(Op::kCvtSW, kCvtSets, kI2FGen); }
TEST(FpMpfr, CvtSWu) { run_random(Op::kCvtSWu, kCvtSets, kI2FGen); }
TEST(FpMpfr, Feq) { run_random(Op::kFeq, kCmpSets, kCmpGen); }
TEST(FpMpfr, Flt) { run_random(Op::kFlt, kCmpSets, kCmpGen); }
TEST(FpMpfr, Fle) { run_random(Op::kFle, kCmpSets, kCmpGen); }
TEST(FpMpfr, Fmin) { run_random(Op::kFmin, kCmpSets, kCmpGen); }
TEST(FpMpfr, Fmax) { run_random(Op::kFmax, kCmpSets, kCmpGen); }
TEST(FpMpfr, Fclass) { run_random(Op::kFclass, kCmpSets, kClassGen); }

TEST(FpMpfr, SpecialPairs) {
  for (Op op : {Op::kAdd, Op::kSub, Op::kMul, Op::kDiv, Op::kSqrt, Op::kFmadd, Op::kFmsub,
                Op::kFnmsub, Op::kFnmadd, Op::kCvtWS, Op::kCvtWuS, Op::kFeq, Op::kFlt, Op::kFle,
                Op::kFmin, Op::kFmax, Op::kFclass}) {
    run_specials(op);
  }
}

#if defined(__SSE2__)
// The library must not depend on the host's flush-to-zero / denormals-are-zero modes (a
// library built with -ffast-math can switch them on process-wide). Run the fast-path
// operations with both set; the reference model uses integer MPFR/GMP code only.
TEST(FpMpfr, HostFtzDazDoesNotChangeResults) {
  const unsigned saved = _mm_getcsr();
  _mm_setcsr(saved | 0x8040u);  // FTZ (bit 15) | DAZ (bit 6)
  for (Op op : {Op::kAdd, Op::kSub, Op::kMul, Op::kDiv, Op::kSqrt, Op::kFmadd}) {
    const Gen& gen = op == Op::kAdd || op == Op::kSub ? kAddGen
                     : op == Op::kMul                 ? kMulGen
                     : op == Op::kDiv                 ? kDivGen
                     : op == Op::kSqrt                ? kSqrtGen
                                                      : kFmaGen;
    OperandGen g(g_seed + 777 + static_cast<uint64_t>(op));
    Checker ck(op);
    for (int i = 0; i < 20000; ++i) {
      uint32_t a = 0, b = 0, c = 0;
      gen(g, a, b, c);
      ck.check(Rm::kRne, a, b, c);  // RNE: the host fast path
    }
  }
  _mm_setcsr(saved);
}
#endif

// RISC-V detects tininess after rounding. The reference derives it as "the exact result
// rounded to 24 bits with an unbounded exponent range is below 2^-126"; MPFR's underflow
// flag with emin = -125 (so 2^-126 is the smallest representable magnitude) means the same.
// This checks the two agree on products straddling 2^-126, including ones that round up to
// exactly 2^-126.
TEST(FpMpfr, UnderflowFlagIsAfterRoundingTininess) {
  OperandGen g(g_seed + 12345);
  int tiny = 0, not_tiny = 0;
  for (int i = 0; i < 20000; ++i) {
    // Significands of all ones make exact products just below a power of two.
    const uint32_t sa = g.below(2) ? 0xffffffu - g.below(4) : 0x800000u | g.mantissa();
    const uint32_t sb = g.below(2) ? 0xffffffu - g.below(4) : 0x800000u | g.mantissa();
    const int ea = g.range(-60, 0);
    const uint32_t a = OperandGen::make(g.below(2), ea, sa);
    const uint32_t b = OperandGen::make(g.below(2), -127 - ea + g.range(0, 1), sb);
    for (Rm rm : {Rm::kRne, Rm::kRtz, Rm::kRdn, Rm::kRup}) {
      const bool ref = reference_tiny_for_mul(a, b, rm);
      ASSERT_EQ(ref, mpfr_underflow_flag_for_mul(a, b, rm))
          << "a=" << describe_operand(a) << " b=" << describe_operand(b) << " rm=" << rm_name(rm);
      (ref ? tiny : not_tiny)++;
    }
  }
  EXPECT_GT(tiny, 1000);
  EXPECT_GT(not_tiny, 1000);
}

}  // namespace
}  // namespace tessera::fp::testing
