// The matmul planner's cost model against the ISS: the calibrated codelet figures
// (compiler/ops/src/cost_model.cpp, from bench/calibrate_costs) against the compute cycles
// of matmul vertices, the planner's choice against the best plan found by running every
// plan, and the planner's byte estimate against what the memory planner allocated.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <random>

#include "tessera/arch/device_regs.h"
#include "tessera/emu/machine.h"
#include "tessera/ops/matmul.h"
#include "tessera/passes/passes.h"
#include "tessera/runtime/engine.h"

namespace tessera::testing {
namespace {

using namespace graph;

std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

const std::vector<uint8_t>& firmware() {
  static const std::vector<uint8_t> fw = read_bytes(std::string(TESSERA_TILE_BIN_DIR) + "/runtime/tessera-firmware.elf");
  return fw;
}

// C = A * B alone on `target` with `plan`: A (m x k) mapped linearly as a stream would put
// it, B a weight the op places; both hold initial values, so the program is only the
// matmul's steps (no host syncs) and its whole profile is the matmul's.
exe::Executable compile_matmul(const std::string& target, uint32_t m, uint32_t k, uint32_t n,
                               const ops::MatMulPlan& plan) {
  std::mt19937 rng(m * 1000 + k * 10 + n);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> a(m * k), b(k * n);
  for (float& x : a) x = d(rng);
  for (float& x : b) x = d(rng);
  Graph g(*arch::find_target(target));
  Tensor A = g.add_variable(DType::kF32, {m, k}, "A");
  g.map_linearly(A, k);
  g.set_initial_value(A, a);
  Tensor B = g.add_variable(DType::kF32, {k, n}, "B");
  g.set_initial_value(B, b);
  Program prog = Sequence();
  ops::matmul(g, prog, A, B, plan, "C");
  g.add_program("main", prog);
  passes::CompileOptions o;
  o.firmware = firmware();
  const exe::ElfImage elf = exe::parse_elf(o.firmware, "firmware");
  o.layout = exe::firmware_layout(elf);
  return passes::compile(g, o);
}

struct Run {
  std::vector<emu::SuperstepProfile> profile;  // every superstep but the last (ended by the halt)
  uint64_t end_cycle = 0;                      // the last tile's cycle at its halt: the whole run
};

// Runs "main" (no host syncs) on the ISS.
Run run_iss(const exe::Executable& e) {
  emu::MachineOptions mo;
  mo.target = arch::find_target(e.target);
  mo.mode = emu::Mode::kIss;
  emu::Machine m(mo);
  m.load_firmware(exe::parse_elf(e.firmware, "firmware"));
  runtime::Engine engine(m, e);
  engine.load();
  engine.run("main", std::chrono::seconds(60));
  Run r{m.profile(), 0};
  for (uint32_t t = 0; t < m.tile_count(); ++t) r.end_cycle = std::max(r.end_cycle, m.tile(t).hart().cycle());
  return r;
}

ops::MatMulPlan plan_of(uint32_t pm, uint32_t pk, uint32_t pn) {
  ops::MatMulPlan p;
  p.pm = pm;
  p.pk = pk;
  p.pn = pn;
  return p;
}

// (a) The compute of one matmul vertex: the superstep of the partials is the one whose
// slowest tile is slowest (plans with pk == 1 reduce one row per vertex, far less work).
TEST(CostModel, MatmulVertexComputeWithinTenPercentOfIss) {
  const auto cost = ops::CostModel::for_target(*arch::find_target("small"));
  const uint32_t shapes[][3] = {{4, 32, 4}, {8, 49, 8}, {7, 40, 9}, {16, 64, 16}};
  for (const auto& s : shapes) {
    const exe::Executable e = compile_matmul("small", s[0], s[1], s[2], plan_of(1, 1, 1));
    const auto prof = run_iss(e).profile;
    uint64_t measured = 0;
    for (const emu::SuperstepProfile& p : prof) measured = std::max(measured, p.compute_cycles);
    const double est = cost.matmul(double(s[0]) * s[1] * s[2]);
    const double err = (est - double(measured)) / double(measured);
    std::printf("matmul vertex %ux%ux%u: estimate %.0f, ISS %llu cycles (%+.1f%%)\n", s[0], s[1], s[2], est,
                static_cast<unsigned long long>(measured), 100 * err);
    EXPECT_LT(std::fabs(err), 0.10) << s[0] << "x" << s[1] << "x" << s[2];
  }
}

// (b) The planner's plan, run, against every plan run, on the 4-tile target. A run's cycles
// are its last tile's at the halt (the profile lacks the last superstep, the reduce); they
// include the firmware's start, the same for every plan.
TEST(CostModel, PlannerWithinTenPercentOfBestMeasuredPlan) {
  const arch::Target& t = *arch::find_target("tiny");
  const auto cost = ops::CostModel::for_target(t);
  const uint32_t shapes[][3] = {{8, 64, 8}, {16, 32, 16}, {4, 128, 4}};
  for (const auto& s : shapes) {
    const uint32_t m = s[0], k = s[1], n = s[2];
    const ops::MatMulPlan chosen = ops::plan_matmul(m, k, n, t.tiles, cost);
    uint64_t best = std::numeric_limits<uint64_t>::max(), mine = 0;
    std::string best_name;
    for (uint32_t pm = 1; pm <= std::min(m, t.tiles); ++pm)
      for (uint32_t pk = 1; pk <= std::min(k, t.tiles / pm); ++pk)
        for (uint32_t pn = 1; pn <= std::min(n, t.tiles / (pm * pk)); ++pn) {
          const uint64_t c = run_iss(compile_matmul("tiny", m, k, n, plan_of(pm, pk, pn))).end_cycle;
          const std::string name = std::to_string(pm) + "x" + std::to_string(pk) + "x" + std::to_string(pn);
          if (c < best) best = c, best_name = name;
          if (pm == chosen.pm && pk == chosen.pk && pn == chosen.pn) mine = c;
        }
    ASSERT_GT(mine, 0u);
    const double err = (double(mine) - double(best)) / double(best);
    std::printf("matmul %ux%ux%u on tiny: planner %ux%ux%u (estimated %.0f) runs %llu cycles; best %s runs %llu "
                "(%+.1f%%)\n",
                m, k, n, chosen.pm, chosen.pk, chosen.pn, chosen.total(), static_cast<unsigned long long>(mine),
                best_name.c_str(), static_cast<unsigned long long>(best), 100 * err);
    EXPECT_LE(err, 0.10) << m << "x" << k << "x" << n;
  }
}

// (c) MatMulPlan::bytes against the memory planner: the tensor bytes on the busiest tile,
// less A's own share there (the input). B, the weight the op places, counts: its blocks
// where it lies, plus the copies when the plan gathers them (pm > 1 or pn > 1). The planner
// counts every temporary as live at once; the memory planner reuses bytes of temporaries
// whose lifetimes do not overlap, so the estimate is an upper bound, and a close one.
TEST(CostModel, PlanBytesBoundWhatTheMemoryPlannerAllocates) {
  const auto cost = ops::CostModel::for_target(*arch::find_target("small"));
  const uint32_t cases[][6] = {{16, 64, 16, 1, 1, 1}, {16, 64, 16, 2, 2, 2}, {32, 96, 24, 2, 4, 2},
                               {25, 100, 20, 1, 8, 1}, {64, 32, 64, 4, 1, 4}};
  for (const auto& c : cases) {
    const exe::Executable e = compile_matmul("small", c[0], c[1], c[2], plan_of(c[3], c[4], c[5]));
    const ops::MatMulPlan est = ops::estimate_matmul(c[0], c[1], c[2], c[3], c[4], c[5], cost);
    std::vector<double> a_share(e.tiles, 0.0);
    for (const exe::Interval& i : e.find_tensor("A")->intervals) a_share[i.tile] += 4.0 * i.count;
    double busiest = 0;
    uint32_t at = 0;
    for (uint32_t t = 0; t < e.tiles; ++t) {
      const double mine = e.memory[t].tensors - a_share[t];
      if (mine > busiest) busiest = mine, at = t;
    }
    const double err = (est.bytes - busiest) / busiest;
    std::printf("matmul %ux%ux%u plan %ux%ux%u: estimated %.0f bytes, allocated %.0f on tile %u (%+.1f%%)\n", c[0],
                c[1], c[2], c[3], c[4], c[5], est.bytes, busiest, at, 100 * err);
    EXPECT_GE(err, -1e-9);  // never less than what is allocated
    EXPECT_LT(err, 0.35);
  }
}

}  // namespace
}  // namespace tessera::testing
