// A golden test per pass on the tiny graph, and the passes' own errors.
#include <gtest/gtest.h>

#include "golden.h"
#include "tessera/passes/passes.h"
#include "tiny_graph.h"

namespace tessera::testing {
namespace {

using namespace passes;

// A fixed layout, not the real firmware's, so the goldens do not move with the firmware.
constexpr FirmwareLayout kLayout{0x80000100u, 0x80002000u, 4096};

struct Stages {
  graph::Graph g = tiny_graph();
  Lowered l;
  ExchangePlan x;
  MemoryPlan m;
  Resolved r;
  Stages() {
    graph::validate(g);
    l = lower_programs(g);
    x = plan_exchanges(g, l);
    m = plan_memory(g, l, x, kLayout);
    r = resolve_addresses(g, l, x, m);
  }
};

TEST(Passes, LowerPrograms) {
  Stages s;
  expect_golden("lower_programs.txt", dump(s.g, s.l));
}

TEST(Passes, PlanExchanges) {
  Stages s;
  expect_golden("plan_exchanges.txt", dump(s.g, s.x));
}

TEST(Passes, PlanMemory) {
  Stages s;
  expect_golden("plan_memory.txt", dump(s.g, s.m));
}

TEST(Passes, ResolveAddresses) {
  Stages s;
  expect_golden("resolve_addresses.txt", dump(s.r));
}

TEST(Passes, Codegen) {
  Stages s;
  CompileOptions o;
  o.firmware = {1, 2, 3, 4};
  o.layout = kLayout;
  expect_golden("codegen.txt", dump(codegen(s.g, s.l, s.m, s.r, o)));
}

TEST(Passes, DependentCopiesGetTheirOwnExchange) {
  graph::Graph g(*arch::find_target("tiny"));
  auto t = g.add_variable(graph::DType::kF32, {12}, "t");
  g.map_linearly(t, 4);
  g.add_program("p", graph::Sequence({graph::Copy(t.slice(0, 4), t.slice(4, 8)),
                                      graph::Copy(t.slice(4, 8), t.slice(8, 12))}));
  const Lowered l = lower_programs(g);
  EXPECT_EQ(l.exchanges.size(), 2u);
}

TEST(Passes, RejectsAnExchangeWritingAnAddressTwice) {
  graph::Graph g(*arch::find_target("tiny"));
  auto t = g.add_variable(graph::DType::kF32, {12}, "t");
  g.map_linearly(t, 4);
  Lowered l;
  l.exchanges.push_back({{{t.slice(0, 4), t.slice(8, 12)}, {t.slice(4, 8), t.slice(8, 12)}}});
  try {
    plan_exchanges(g, l);
    FAIL() << "no error";
  } catch (const graph::GraphError& e) {
    EXPECT_STREQ(e.what(), "exchange 0: t[8:12] and t[8:12] are both written (an address written twice)");
  }
}

TEST(Passes, ReportsATileThatDoesNotFitAndStillReportsAll) {
  graph::Graph g(*arch::find_target("tiny"));  // 64 KiB per tile
  auto big = g.add_variable(graph::DType::kF32, {20000}, "big");
  g.set_tile_mapping(big, 2);
  auto small = g.add_variable(graph::DType::kF32, {16}, "small");
  g.map_linearly(small);
  g.add_program("p", graph::Sequence({graph::Copy(small.slice(0, 4), small.slice(4, 8))}));
  CompileOptions o;
  o.firmware = {0, 0, 0, 0};
  o.layout = kLayout;
  try {
    compile(g, o);
    FAIL() << "no error";
  } catch (const CompileError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("tile 2 needs 80"), std::string::npos) << what;
    EXPECT_NE(what.find("57344 available; largest tensors there: big 80000 bytes, small[8:12] 16 bytes"),
              std::string::npos)
        << what;
    ASSERT_EQ(e.memory.size(), 4u);
    EXPECT_EQ(e.memory[2].tensors, 80016u);
    EXPECT_EQ(e.memory[0].tensors, 16u);
    EXPECT_EQ(e.memory[0].code + e.memory[0].stack, 0x2000u);
  }
}

}  // namespace
}  // namespace tessera::testing
