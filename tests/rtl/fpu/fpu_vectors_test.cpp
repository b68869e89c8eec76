// rtl.fpu_vectors: the Verilated tile FPU (rtl/tile/fpu/tess_fpu) against tessera_fp, bit for
// bit (result and fflags), one pipelined operation issued per cycle with div/sqrt
// interleaved the way the core drives them (operation held 16 cycles in E1).
//
//   fpu_vectors_test [--seed N] [--vectors N] [--div-permille N] [--self-test]
//
// The seed comes from --seed, else the environment variable TESSERA_SEED, else 1.
// --self-test corrupts one expected value (a flipped bit) and succeeds only if the checker
// reports exactly that mismatch: proof that the comparison can fail.
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "operand_gen.h"
#include "tessera/fp/fp32.h"
#include "tessera/vlt/fpu_harness.h"

namespace {

namespace fp = tessera::fp;
using tessera::fp::testing::OperandGen;
using tessera::vlt::FpuHarness;
using tessera::vlt::FpuInputs;
using tessera::vlt::FpuOp;
using tessera::vlt::FpuOutputs;
using tessera::vlt::fpu_op_latency;
using tessera::vlt::fpu_op_name;
using tessera::vlt::kNumFpuOps;

struct Vector {
  FpuOp op = FpuOp::kSgnj;
  uint8_t rm = 0;
  uint32_t a = 0, b = 0, c = 0;
  uint32_t res = 0;   // expected
  uint32_t flags = 0;
  uint64_t index = 0;  // vector number
  uint64_t issue_cycle = 0;
  bool valid = false;
};

// The reference: tessera_fp (and the trivial bit operations it does not provide).
void reference(Vector& v) {
  const auto rm = static_cast<fp::Rm>(v.rm);
  uint32_t f = 0;
  uint32_t r = 0;
  switch (v.op) {
    case FpuOp::kAdd: r = fp::add(v.a, v.b, rm, f); break;
    case FpuOp::kSub: r = fp::sub(v.a, v.b, rm, f); break;
    case FpuOp::kMul: r = fp::mul(v.a, v.b, rm, f); break;
    case FpuOp::kMadd: r = fp::fmadd(v.a, v.b, v.c, rm, f); break;
    case FpuOp::kMsub: r = fp::fmsub(v.a, v.b, v.c, rm, f); break;
    case FpuOp::kNmsub: r = fp::fnmsub(v.a, v.b, v.c, rm, f); break;
    case FpuOp::kNmadd: r = fp::fnmadd(v.a, v.b, v.c, rm, f); break;
    case FpuOp::kDiv: r = fp::div(v.a, v.b, rm, f); break;
    case FpuOp::kSqrt: r = fp::sqrt(v.a, rm, f); break;
    case FpuOp::kSgnj: r = (v.a & 0x7fffffffu) | (v.b & 0x80000000u); break;
    case FpuOp::kSgnjn: r = (v.a & 0x7fffffffu) | (~v.b & 0x80000000u); break;
    case FpuOp::kSgnjx: r = v.a ^ (v.b & 0x80000000u); break;
    case FpuOp::kMin: r = fp::fmin(v.a, v.b, f); break;
    case FpuOp::kMax: r = fp::fmax(v.a, v.b, f); break;
    case FpuOp::kEq: r = fp::feq(v.a, v.b, f); break;
    case FpuOp::kLt: r = fp::flt(v.a, v.b, f); break;
    case FpuOp::kLe: r = fp::fle(v.a, v.b, f); break;
    case FpuOp::kClass: r = fp::fclass(v.a); break;
    case FpuOp::kMvXW:
    case FpuOp::kMvWX: r = v.a; break;
    case FpuOp::kCvtWS: r = fp::cvt_w_s(v.a, rm, f); break;
    case FpuOp::kCvtWuS: r = fp::cvt_wu_s(v.a, rm, f); break;
    case FpuOp::kCvtSW: r = fp::cvt_s_w(v.a, rm, f); break;
    case FpuOp::kCvtSWu: r = fp::cvt_s_wu(v.a, rm, f); break;
    default: break;
  }
  v.res = r;
  v.flags = f;
}

// Operands aimed at each operation's hard cases (tests/fp/operand_gen: NaNs, infinities,
// signed zeros, subnormals, extremes, exact halfway cases, overflow/underflow edges,
// exact cancellation, integers near 2^31 / 2^32).
void make_operands(OperandGen& g, Vector& v) {
  v.c = static_cast<uint32_t>(g.next());  // unused operands carry noise
  v.b = static_cast<uint32_t>(g.next() >> 32);
  switch (v.op) {
    case FpuOp::kAdd:
    case FpuOp::kSub: g.add_operands(v.a, v.b); break;
    case FpuOp::kMul: g.mul_operands(v.a, v.b); break;
    case FpuOp::kMadd:
    case FpuOp::kMsub:
    case FpuOp::kNmsub:
    case FpuOp::kNmadd: g.fma_operands(v.a, v.b, v.c); break;
    case FpuOp::kDiv: g.div_operands(v.a, v.b); break;
    case FpuOp::kSqrt: v.a = g.sqrt_operand(); break;
    case FpuOp::kMin:
    case FpuOp::kMax:
    case FpuOp::kEq:
    case FpuOp::kLt:
    case FpuOp::kLe: g.compare_operands(v.a, v.b); break;
    case FpuOp::kCvtWS:
    case FpuOp::kCvtWuS: v.a = g.float_to_int_operand(); break;
    case FpuOp::kCvtSW:
    case FpuOp::kCvtSWu: v.a = g.int_operand(); break;
    default:
      v.a = g.any_float();
      v.b = g.any_float();
      break;
  }
  // Sub / fmsub & co. get the swapped-sign constructions too (b = -a becomes b = a).
  if ((v.op == FpuOp::kSub || v.op == FpuOp::kMsub || v.op == FpuOp::kNmadd) && g.chance(50)) {
    if (v.op == FpuOp::kSub) v.b ^= 0x80000000u; else v.c ^= 0x80000000u;
  }
}

std::string flags_str(uint32_t f) {
  std::string s;
  static constexpr const char* kNames[] = {"NX", "UF", "OF", "DZ", "NV"};
  for (int i = 4; i >= 0; --i) {
    if (f & (1u << i)) s += std::string(s.empty() ? "" : "|") + kNames[i];
  }
  return s.empty() ? "-" : s;
}

class Checker {
 public:
  explicit Checker(bool self_test, uint64_t inject_at) : self_test_(self_test), inject_at_(inject_at) {}

  // Compares one result; returns false (after printing the report) on the first mismatch.
  bool check(const Vector& v, uint32_t got_res, uint32_t got_flags, uint64_t cycle,
             const char* port) {
    uint32_t exp_res = v.res;
    if (self_test_ && v.index == inject_at_) exp_res ^= 1u << (v.index % 32);
    if (exp_res == got_res && v.flags == got_flags) return true;
    std::printf(
        "MISMATCH vector %" PRIu64 " (%s, rm=%u) issued cycle %" PRIu64 ", checked cycle %" PRIu64
        " on %s\n"
        "  a=0x%08x b=0x%08x c=0x%08x\n"
        "  expected res=0x%08x flags=0x%02x (%s)\n"
        "  got      res=0x%08x flags=0x%02x (%s)\n",
        v.index, fpu_op_name(v.op), v.rm, v.issue_cycle, cycle, port, v.a, v.b, v.c, exp_res,
        v.flags, flags_str(v.flags).c_str(), got_res, got_flags, flags_str(got_flags).c_str());
    mismatch_index_ = v.index;
    return false;
  }
  uint64_t mismatch_index() const { return mismatch_index_; }

 private:
  bool self_test_;
  uint64_t inject_at_;
  uint64_t mismatch_index_ = ~0ull;
};

// Operation mix (weights, out of the total): every op, the arithmetic ones more often.
struct OpWeight {
  FpuOp op;
  uint32_t weight;
};
constexpr OpWeight kPipelinedMix[] = {
    {FpuOp::kAdd, 90},    {FpuOp::kSub, 60},    {FpuOp::kMul, 90},    {FpuOp::kMadd, 50},
    {FpuOp::kMsub, 40},   {FpuOp::kNmsub, 40},  {FpuOp::kNmadd, 40},  {FpuOp::kSgnj, 8},
    {FpuOp::kSgnjn, 8},   {FpuOp::kSgnjx, 8},   {FpuOp::kMin, 20},    {FpuOp::kMax, 20},
    {FpuOp::kEq, 15},     {FpuOp::kLt, 15},     {FpuOp::kLe, 15},     {FpuOp::kClass, 12},
    {FpuOp::kMvXW, 5},    {FpuOp::kMvWX, 5},    {FpuOp::kCvtWS, 35},  {FpuOp::kCvtWuS, 35},
    {FpuOp::kCvtSW, 30},  {FpuOp::kCvtSWu, 30},
};

FpuOp pick_pipelined(OperandGen& g) {
  static const uint32_t total = [] {
    uint32_t t = 0;
    for (const auto& w : kPipelinedMix) t += w.weight;
    return t;
  }();
  uint32_t r = g.below(total);
  for (const auto& w : kPipelinedMix) {
    if (r < w.weight) return w.op;
    r -= w.weight;
  }
  return FpuOp::kAdd;
}

int run(uint64_t seed, uint64_t num_vectors, uint32_t div_permille, bool self_test) {
  OperandGen gen(seed);
  FpuHarness fpu;
  fpu.reset();

  // --self-test: the vector whose expectation gets one bit flipped (any op, mid-run).
  const uint64_t inject_at = self_test ? num_vectors / 2 : ~0ull;
  Checker checker(self_test, inject_at);

  Vector due[5][8];  // expected results per latency port, indexed by due cycle mod 8
  uint64_t per_op[kNumFpuOps] = {};
  uint64_t issued = 0;
  bool ok = true;
  Vector div_vec;     // the div/sqrt held in E1
  int hold_left = 0;  // cycles of the hold still to go (16 .. 1), 0 = none

  auto new_vector = [&](FpuOp op) {
    Vector v;
    v.op = op;
    v.rm = static_cast<uint8_t>(gen.below(5));
    make_operands(gen, v);
    reference(v);
    v.index = issued++;
    v.issue_cycle = fpu.cycle();
    v.valid = true;
    ++per_op[static_cast<int>(op)];
    return v;
  };
  auto drive = [](FpuInputs& in, const Vector& v) {
    in.op = v.op;
    in.rm = v.rm;
    in.a = v.a;
    in.b = v.b;
    in.c = v.c;
  };

  while (ok) {
    const uint64_t cyc = fpu.cycle();
    FpuInputs in;
    Vector cur;  // a pipelined op issued this cycle
    if (hold_left == 0 && issued < num_vectors) {
      if (gen.below(1000) < div_permille) {
        div_vec = new_vector(gen.below(3) ? FpuOp::kDiv : FpuOp::kSqrt);
        hold_left = 16;
      } else {
        cur = new_vector(pick_pipelined(gen));
        const int lat = fpu_op_latency(cur.op);
        if (lat > 1) due[lat][(cyc + lat - 1) % 8] = cur;
      }
    }
    if (hold_left > 0) {
      drive(in, div_vec);
      in.div_start = hold_left == 16;
      in.issue = hold_left == 1;  // E1 issues it on its last cycle
    } else if (cur.valid) {
      drive(in, cur);
      in.issue = true;
    } else {
      bool pending = false;
      for (int l = 2; l <= 4; ++l)
        for (const auto& d : due[l]) pending |= d.valid;
      if (!pending) break;
      in.op = FpuOp::kSgnj;  // idle: nothing issues, the pipelines drain
      in.a = static_cast<uint32_t>(gen.next());
    }

    const FpuOutputs out = fpu.eval(in);

    if (cur.valid && fpu_op_latency(cur.op) == 1)
      ok &= checker.check(cur, out.res[1], out.flags[1], cyc, "res1_o");
    for (int l = 2; l <= 4 && ok; ++l) {
      Vector& d = due[l][cyc % 8];
      if (d.valid && d.issue_cycle + l - 1 == cyc) {
        static constexpr const char* kPorts[] = {"", "", "res2_o", "", "res4_o"};
        ok &= checker.check(d, out.res[l], out.flags[l], cyc, kPorts[l]);
        d.valid = false;
      }
    }
    if (ok && hold_left > 0) {
      if (out.div_done != (hold_left == 1)) {
        std::printf("MISMATCH vector %" PRIu64 " (%s): div_done_o=%d in cycle %d of 16\n",
                    div_vec.index, fpu_op_name(div_vec.op), out.div_done, 17 - hold_left);
        ok = false;
      } else if (hold_left == 1) {
        ok &= checker.check(div_vec, out.res_div, out.flags_div, cyc, "res_div_o");
      }
      --hold_left;
    }
    fpu.clock();
  }

  std::printf("seed %" PRIu64 ": %" PRIu64 " vectors in %" PRIu64 " cycles%s\n", seed, issued,
              fpu.cycle(), ok ? "" : " (stopped at the first mismatch)");
  for (int i = 0; i < kNumFpuOps; ++i)
    std::printf("  %-10s %10" PRIu64 "\n", fpu_op_name(static_cast<FpuOp>(i)), per_op[i]);

  if (self_test) {
    if (!ok && checker.mismatch_index() == inject_at) {
      std::printf("self-test: the injected wrong expectation (vector %" PRIu64
                  ") was reported: PASS\n", inject_at);
      return 0;
    }
    std::printf("self-test: the injected mismatch at vector %" PRIu64 " was %s: FAIL\n",
                inject_at, ok ? "not detected" : "not the first one reported");
    return 1;
  }
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t seed = 1;
  if (const char* env = std::getenv("TESSERA_SEED"); env && *env) seed = std::strtoull(env, nullptr, 0);
  uint64_t vectors = 1000000;
  uint32_t div_permille = 15;
  bool self_test = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> uint64_t {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", arg.c_str());
        std::exit(2);
      }
      return std::strtoull(argv[++i], nullptr, 0);
    };
    if (arg == "--seed") {
      seed = value();
    } else if (arg == "--vectors") {
      vectors = value();
    } else if (arg == "--div-permille") {
      div_permille = static_cast<uint32_t>(value());
    } else if (arg == "--self-test") {
      self_test = true;
    } else {
      std::fprintf(stderr,
                   "usage: %s [--seed N] [--vectors N] [--div-permille N] [--self-test]\n",
                   argv[0]);
      return 2;
    }
  }
  if (self_test && vectors > 200000) vectors = 200000;
  return run(seed, vectors, div_permille, self_test);
}
