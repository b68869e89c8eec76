// The matmul op: its planner, and C = A * B lowered for many plans, compiled and run on
// the emulator, bit for bit against plain C++ in the same order of operations (an fma chain
// per k-block, the k-block partials added in order).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <fstream>
#include <random>

#include "tessera/arch/device_regs.h"
#include "tessera/emu/machine.h"
#include "tessera/ops/matmul.h"
#include "tessera/passes/passes.h"
#include "tessera/runtime/engine.h"
#include "tessera/testutil/on_emulator.h"

namespace tessera::testing {
namespace {

using namespace graph;

std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

uint32_t split_begin(uint32_t total, uint32_t parts, uint32_t i) {
  return static_cast<uint32_t>(uint64_t{total} * i / parts);
}

struct Case {
  uint32_t m, k, n;
  ops::MatMulPlan plan;
  std::vector<float> a, b;

  Case(uint32_t m_, uint32_t k_, uint32_t n_, uint32_t pm, uint32_t pk, uint32_t pn) : m(m_), k(k_), n(n_) {
    plan.pm = pm;
    plan.pk = pk;
    plan.pn = pn;
    std::mt19937 rng(m * 1000 + k * 10 + n);
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    for (uint32_t i = 0; i < m * k; ++i) a.push_back(d(rng));
    for (uint32_t i = 0; i < k * n; ++i) b.push_back(d(rng));
  }

  std::vector<float> reference() const {
    std::vector<float> c(m * n);
    for (uint32_t i = 0; i < m; ++i)
      for (uint32_t j = 0; j < n; ++j) {
        float sum = 0.0f;
        for (uint32_t ik = 0; ik < plan.pk; ++ik) {
          float acc = 0.0f;
          for (uint32_t p = split_begin(k, plan.pk, ik); p < split_begin(k, plan.pk, ik + 1); ++p)
            acc = std::fmaf(a[i * k + p], b[p * n + j], acc);
          sum = ik == 0 ? acc : sum + acc;
        }
        c[i * n + j] = sum;
      }
    return c;
  }

  // A streams in (mapped linearly), B is a weight the op places, C streams out.
  exe::Executable compile() const {
    Graph g(*arch::find_target("small"));
    Tensor A = g.add_variable(DType::kF32, {m, k}, "A");
    g.map_linearly(A, k);
    Tensor B = g.add_variable(DType::kF32, {k, n}, "B");
    g.set_initial_value(B, b);
    Program prog = Sequence();
    Stream as = g.add_stream("a", DType::kF32, {m, k}), cs = g.add_stream("c", DType::kF32, {m, n});
    prog.add(HostWrite(as, A));
    Tensor C = ops::matmul(g, prog, A, B, plan, "C");
    prog.add(HostRead(cs, C));
    g.add_program("main", prog);
    passes::CompileOptions o;
    o.firmware = read_bytes(std::string(TESSERA_TILE_BIN_DIR) + "/runtime/tessera-firmware.elf");
    const exe::ElfImage elf = exe::parse_elf(o.firmware, "firmware");
    o.layout = exe::firmware_layout(elf);
    return passes::compile(g, o);
  }
};

// Loads `e` onto a machine through the host runtime and runs "main": stream "a" in, "c" out.
std::vector<float> run(const exe::Executable& e, emu::Mode mode, std::vector<float> in, uint32_t out_size) {
  testutil::OnEmulator loaded(e, mode);
  runtime::Engine& engine = loaded.engine;
  std::vector<float> out(out_size);
  engine.connect_stream("a", std::span(in));
  engine.connect_stream("c", std::span(out));
  engine.run("main", std::chrono::seconds(60));
  return out;
}

void expect_bits(const std::vector<float>& got, const std::vector<float>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(std::bit_cast<uint32_t>(got[i]), std::bit_cast<uint32_t>(want[i])) << what << " element " << i;
}

TEST(MatMul, EveryPlanShapeMatchesPlainCpp) {
  const uint32_t plans[][3] = {{1, 1, 1}, {2, 1, 1}, {1, 4, 1}, {1, 1, 4}, {2, 2, 2}, {1, 16, 1}, {3, 5, 1}, {4, 1, 3}};
  for (const auto& p : plans) {
    const Case c(7, 40, 9, p[0], p[1], p[2]);
    const std::string what = "plan " + std::to_string(p[0]) + "x" + std::to_string(p[1]) + "x" + std::to_string(p[2]);
    exe::Executable e;
    ASSERT_NO_THROW(e = c.compile()) << what;
    expect_bits(run(e, emu::Mode::kNative, c.a, c.m * c.n), c.reference(), what);
  }
}

TEST(MatMul, IssAndNativeAgree) {
  const Case c(5, 33, 6, 1, 3, 2);
  const exe::Executable e = c.compile();
  const auto iss = run(e, emu::Mode::kIss, c.a, c.m * c.n), native = run(e, emu::Mode::kNative, c.a, c.m * c.n);
  expect_bits(iss, c.reference(), "iss");
  expect_bits(native, iss, "native vs iss");
}

TEST(MatMulPlanner, ChoosesTheCheapestEstimateAndUsesTheTiles) {
  const auto cost = ops::CostModel::for_target(*arch::find_target("small"));
  const ops::MatMulPlan p = ops::plan_matmul(100, 784, 128, 16, cost);
  std::printf("plan for 100x784x128 on 16 tiles: %ux%ux%u, estimated %.0f compute + %.0f exchange cycles\n", p.pm,
              p.pk, p.pn, p.compute, p.exchange);
  EXPECT_GT(p.tiles(), 8u);
  EXPECT_LE(p.tiles(), 16u);
  for (uint32_t pk : {1u, 2u, 4u, 8u, 16u})
    EXPECT_LE(p.total(), ops::estimate_matmul(100, 784, 128, 1, pk, 1, cost).total() + 1e-6);
  EXPECT_EQ(ops::plan_matmul(1, 1, 1, 16, cost).tiles(), 1u);
}

// Planned for native mode, AlexNet's first classifier layer at batch 1 on ipu-mk2's tiles:
// the machine's plan takes nearly every tile with vertices a few columns wide, the host's
// vertices of at least 64 columns (a kernel block of 8 chains) on far fewer tiles, and no
// plan of the search estimates less for the host.
TEST(MatMulPlanner, ForTheHostOneRowTakesWideVerticesOnFewTiles) {
  const auto cost = ops::CostModel::for_target(*arch::find_target("ipu-mk2"));
  const uint32_t m = 1, k = 9216, n = 4096, tiles = 1472;
  const double bytes = 600e3;
  const ops::MatMulPlan machine = ops::plan_matmul(m, k, n, tiles, cost, 0xFFFFFFFFu, bytes);
  const ops::MatMulPlan host = ops::plan_matmul(m, k, n, tiles, cost, 0xFFFFFFFFu, bytes, ops::PlanFor::kHost);
  std::printf("1x9216x4096 on 1,472 tiles: machine %ux%ux%u, host %ux%ux%u (%.2f ms estimated)\n", machine.pm, machine.pk,
              machine.pn, host.pm, host.pk, host.pn, host.host_ns / 1e6);
  EXPECT_GT(machine.tiles(), tiles * 9 / 10);
  EXPECT_LT(host.tiles(), machine.tiles() / 2);
  EXPECT_GE(n / host.pn, 64u);
  EXPECT_LE(host.bytes, bytes);
  for (uint32_t pk = 1; pk <= tiles; pk *= 2)
    for (uint32_t pn = 1; pk * pn <= tiles; pn *= 2) {
      const ops::MatMulPlan e = ops::estimate_matmul(m, k, n, 1, pk, pn, cost);
      if (e.bytes <= bytes) {
        EXPECT_LE(host.host_ns, e.host_ns + 1e-6) << pk << " x " << pn;
      }
    }
}

TEST(MatMul, RejectsShapesThatDoNotMultiply) {
  Graph g(*arch::find_target("small"));
  Tensor A = g.add_variable(DType::kF32, {3, 4}, "A"), B = g.add_variable(DType::kF32, {5, 2}, "B");
  Program prog = Sequence();
  EXPECT_THROW(ops::matmul(g, prog, A, B, ops::MatMulPlan{}, "C"), GraphError);
}

}  // namespace
}  // namespace tessera::testing
