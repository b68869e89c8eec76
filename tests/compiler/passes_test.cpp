// A golden test per pass on the tiny graph, and the passes' own errors.
#include <gtest/gtest.h>

#include <algorithm>

#include "golden.h"
#include "tessera/passes/passes.h"
#include "tiny_graph.h"

namespace tessera::testing {
namespace {

using namespace passes;

// A fixed layout, not the real firmware's, so the goldens do not move with the firmware.
constexpr exe::FirmwareLayout kLayout{.entry = 0x80000000u, .header = 0x80000100u, .text_end = 0x80000100u,
                                       .stack_bottom = 0x80001000u, .stack_top = 0x80002000u, .firmware_end = 0x80002000u};

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

// Four runs of 2 from 8-element rows of `src` (tile 0) to `dst` on tile 1, where dst's
// runs lie in two intervals (its elements 2-3 live on tile 2): one strided send, whose runs
// land where the memory plan put each run's elements.
TEST(Passes, FoldsRunsAtEvenStridesIntoOneSend) {
  using namespace graph;
  Graph g(*arch::find_target("tiny"));
  const Tensor src = g.add_variable(DType::kF32, {32}, "src"), dst = g.add_variable(DType::kF32, {10}, "dst");
  g.set_tile_mapping(src, 0);
  g.set_tile_mapping(dst, 1);
  g.set_tile_mapping(dst.slice(2, 4), 2);
  Stream in = g.add_stream("in", DType::kF32, {32});
  Stream out = g.add_stream("out", DType::kF32, {10});
  const uint32_t runs[4][2] = {{2, 0}, {10, 4}, {18, 6}, {26, 8}};  // (src, dst) first elements
  std::vector<Program> steps{HostWrite(in, src)};
  for (const auto& [s, d] : runs) steps.push_back(Copy(src.slice(s, s + 2), dst.slice(d, d + 2)));
  steps.push_back(HostRead(out, dst));
  g.add_program("main", Sequence(steps));
  graph::validate(g);
  const Lowered l = lower_programs(g);
  ExchangePlan x = plan_exchanges(g, l);
  ASSERT_EQ(x.exchanges.size(), 1u);
  ASSERT_EQ(x.exchanges[0].sends[0].size(), 4u);  // before memory planning: a transfer per run
  const MemoryPlan m = plan_memory(g, l, x, kLayout);
  ASSERT_TRUE(m.errors.empty());
  const Resolved r = resolve_addresses(g, l, x, m);
  ASSERT_EQ(r.tiles[0].sends[0].size(), 1u);
  const Resolved::Tile::Send& send = r.tiles[0].sends[0][0];
  EXPECT_EQ(send.count, 4u);
  EXPECT_EQ(send.entry.bytes, 8u);
  EXPECT_EQ(send.entry.dst_node, 1u);
  for (uint32_t k = 0; k < 4; ++k) {
    EXPECT_EQ(send.entry.src + k * send.src_stride, m.addr_of(src.slice(runs[k][0], runs[k][0] + 2))) << k;
    EXPECT_EQ(send.entry.dst_addr + k * send.dst_stride, m.addr_of(dst.slice(runs[k][1], runs[k][1] + 2))) << k;
  }
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

// Constants that alone overflow a tile stop the compile right after validate (check_fit):
// the error says "at least", the report holds those bytes, and no later pass ran (the same
// graph with the constant made a plain variable goes on to plan_memory's full report).
TEST(Passes, StopsBeforeLoweringWhenConstantsAloneDoNotFit) {
  for (bool constant : {true, false}) {
    graph::Graph g(*arch::find_target("tiny"));  // 64 KiB per tile, 57344 above kLayout's firmware
    auto big = g.add_variable(graph::DType::kF32, {15000}, "big");
    g.set_tile_mapping(big, 1);
    if (constant) g.set_initial_value(big, std::vector<float>(15000, 1.0f));
    auto small = g.add_variable(graph::DType::kF32, {16}, "small");
    g.map_linearly(small);
    g.add_program("p", graph::Sequence({graph::Copy(big.slice(0, 4), small.slice(4, 8))}));
    std::vector<std::string> passes;
    CompileOptions o;
    o.firmware = {0, 0, 0, 0};
    o.layout = kLayout;
    o.progress = [&](const std::string& line) { passes.push_back(line.substr(0, line.find("  "))); };  // the name
    try {
      compile(g, o);
      FAIL() << "no error";
    } catch (const CompileError& e) {
      const std::string what = e.what();
      ASSERT_EQ(e.memory.size(), 4u);
      if (constant) {
        EXPECT_NE(what.find("tile 1 needs at least 60000 bytes above the firmware (60000 of tensors with an "
                            "initial value, 0 of vertex state), 57344 available"),
                  std::string::npos)
            << what;
        EXPECT_EQ(e.memory[1].tensors, 60000u);
        EXPECT_EQ(passes, (std::vector<std::string>{"validate"}));
      } else {
        EXPECT_NE(what.find("tile 1 needs 6"), std::string::npos) << what;
        EXPECT_EQ(passes.back(), "plan memory");
      }
    }
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

TEST(Passes, PlansMemoryByLiveRange) {
  using namespace graph;
  Graph g(*arch::find_target("tiny"));
  auto var = [&](const char* name) {
    Tensor t = g.add_variable(DType::kF32, {4}, name);
    g.set_tile_mapping(t, 0);
    return t;
  };
  const Tensor a = var("a"), t1 = var("t1"), t2 = var("t2"), u = var("u"), r = var("r"), r2 = var("r2"),
               post = var("post");
  auto scale = [&](const Tensor& dst, const Tensor& src) {
    ComputeSet cs = g.add_compute_set("cs" + std::to_string(g.compute_sets().size()));
    Vertex v = g.add_vertex(cs, "scale", 0);
    g.connect(v, "dst", dst);
    g.connect(v, "src", src);
    g.set_field(v, "n", 4);
    g.set_field_f32(v, "scale", 2.0f);
    return Execute(cs);
  };
  Stream in = g.add_stream("in", DType::kF32, {4});
  Stream out = g.add_stream("out", DType::kF32, {4});
  // t1 and t2 live one after the other; u is written before the Repeat and read at the
  // start of its body, so it lives for the whole Repeat and must not share with r, which
  // is written later in the body; r and r2 are written before they are read in each
  // iteration, one after the other, so they share; post comes after the Repeat.
  g.add_program("main", Sequence({HostWrite(in, a), scale(t1, a), scale(a, t1), scale(t2, a), scale(a, t2),
                                  scale(u, a),
                                  Repeat(3, Sequence({scale(a, u), scale(r, a), scale(a, r), scale(r2, a), scale(a, r2)})),
                                  scale(post, a), scale(a, post), HostRead(out, a)}));
  graph::validate(g);
  const Lowered l = lower_programs(g);
  ExchangePlan x = plan_exchanges(g, l);
  const MemoryPlan m = plan_memory(g, l, x, kLayout);
  ASSERT_TRUE(m.errors.empty());
  auto addr = [&](const Tensor& t) { return m.addr_of(t); };
  EXPECT_EQ(addr(t1), addr(t2));
  EXPECT_EQ(addr(post), addr(t1));
  EXPECT_NE(addr(a), addr(t1));
  const uint32_t ua = addr(u), ra = addr(r);
  EXPECT_TRUE(ua + 16 <= ra || ra + 16 <= ua) << std::hex << ua << " " << ra;
  EXPECT_NE(addr(a), ua);
  EXPECT_NE(addr(a), ra);
  EXPECT_EQ(addr(r2), ra);
  // Peak: a, u and r live at once inside the Repeat (48 bytes), not the sum of seven (112).
  EXPECT_EQ(m.tiles[0].usage.tensors, 48u);
  // The same graph gets the same addresses.
  const MemoryPlan again = plan_memory(g, l, x, kLayout);
  for (const Tensor& t : {a, t1, t2, u, r, r2, post}) EXPECT_EQ(again.addr_of(t), addr(t));
}

// A variable of `n` f32 on tile 0, and a compute set of scale vertices on tile 0, one per
// (dst, src) pair of equal sizes: the building blocks of the memory-planning tests below.
graph::Tensor var_on_tile0(graph::Graph& g, const char* name, uint32_t n) {
  graph::Tensor t = g.add_variable(graph::DType::kF32, {n}, name);
  g.set_tile_mapping(t, 0);
  return t;
}
graph::Program scale_all(graph::Graph& g, const std::vector<std::pair<graph::Tensor, graph::Tensor>>& pairs) {
  graph::ComputeSet cs = g.add_compute_set("cs" + std::to_string(g.compute_sets().size()));
  for (const auto& [dst, src] : pairs) {
    graph::Vertex v = g.add_vertex(cs, "scale", 0);
    g.connect(v, "dst", dst);
    g.connect(v, "src", src);
    g.set_field(v, "n", dst.size());
    g.set_field_f32(v, "scale", 2.0f);
  }
  return graph::Execute(cs);
}

// One tile's temporaries A (8 bytes, steps 1-2), B (16, steps 2-3) and C (24, steps 3-4):
// placed in creation order, C cannot go below B and the three span 48 bytes; the largest
// first, they span 40, the peak (B and C at step 3).
TEST(Passes, PlacesTheLargestTemporariesFirst) {
  using namespace graph;
  Graph g(*arch::find_target("tiny"));
  auto var = [&](const char* name, uint32_t n) { return var_on_tile0(g, name, n); };
  const Tensor x = var("x", 6), a = var("a", 2), b = var("b", 4), c = var("c", 6);
  auto scale = [&](std::vector<std::pair<Tensor, Tensor>> pairs) { return scale_all(g, pairs); };
  Stream in = g.add_stream("in", DType::kF32, {6});
  Stream out = g.add_stream("out", DType::kF32, {6});
  g.add_program("main", Sequence({HostWrite(in, x), scale({{a, x.slice(0, 2)}}),
                                  scale({{b.slice(0, 2), a}, {b.slice(2, 4), x.slice(2, 4)}}),
                                  scale({{c.slice(0, 4), b}, {c.slice(4, 6), x.slice(0, 2)}}), scale({{x, c}}),
                                  HostRead(out, x)}));
  graph::validate(g);
  const Lowered l = lower_programs(g);
  ExchangePlan xp = plan_exchanges(g, l);
  const MemoryPlan m = plan_memory(g, l, xp, kLayout);
  ASSERT_TRUE(m.errors.empty());
  uint32_t lo = UINT32_MAX, hi = 0;
  for (const Tensor& t : {a, b, c}) {
    lo = std::min(lo, m.addr_of(t));
    hi = std::max(hi, m.addr_of(t) + t.size() * 4);
  }
  EXPECT_EQ(hi - lo, 40u);
  EXPECT_EQ(m.tiles[0].usage.tensors, 24u + 40u);  // x for the whole run, and the peak
}

// Past the end of SRAM, temporaries still share by live range: a tile holding two
// temporaries of 3/2 of its SRAM each, one after the other, needs one of them, not both.
TEST(Passes, CountsWhatATileNeedsWithSharingPastTheEnd) {
  using namespace graph;
  Graph g(*arch::find_target("tiny"));
  const uint32_t n = g.target().sram_bytes / 4 * 3 / 2;
  const Tensor x = var_on_tile0(g, "x", 4), t1 = var_on_tile0(g, "t1", n), t2 = var_on_tile0(g, "t2", n);
  auto scale = [&](const Tensor& dst, const Tensor& src) { return scale_all(g, {{dst, src}}); };
  Stream in = g.add_stream("in", DType::kF32, {4});
  Stream out = g.add_stream("out", DType::kF32, {4});
  g.add_program("main", Sequence({HostWrite(in, x), scale(t1.slice(0, 4), x), scale(x, t1.slice(0, 4)),
                                  scale(t2.slice(0, 4), x), scale(x, t2.slice(0, 4)), HostRead(out, x)}));
  graph::validate(g);
  const Lowered l = lower_programs(g);
  ExchangePlan xp = plan_exchanges(g, l);
  const MemoryPlan m = plan_memory(g, l, xp, kLayout);
  ASSERT_EQ(m.errors.size(), 1u);
  EXPECT_LT(m.tiles[0].needed, uint64_t{n} * 4 + 1024) << m.errors[0];
  EXPECT_GT(m.tiles[0].needed, uint64_t{n} * 4);
  // The peak: at a compute set that uses t1 (or t2) and x, and no more.
  EXPECT_NE(m.peak.find("tile 0's tensors peak at compute set 'cs"), std::string::npos) << m.peak;
  EXPECT_NE(m.peak.find(": 96 KB live, 0 bytes of it kept"), std::string::npos) << m.peak;
  EXPECT_NE(m.peak.find("2 temporaries; the largest: t1 96 KB, x 16 bytes"), std::string::npos) << m.peak;
}

TEST(Passes, KeepsTensorsReadBeforeWrittenOrUsedByTwoProgramsForTheWholeRun) {
  using namespace graph;
  Graph g(*arch::find_target("tiny"));
  auto var = [&](const char* name) {
    Tensor t = g.add_variable(DType::kF32, {4}, name);
    g.set_tile_mapping(t, 0);
    return t;
  };
  const Tensor acc = var("acc"), tmp = var("tmp"), shared = var("shared"), late = var("late");
  auto scale = [&](const Tensor& dst, const Tensor& src) {
    ComputeSet cs = g.add_compute_set("cs" + std::to_string(g.compute_sets().size()));
    Vertex v = g.add_vertex(cs, "scale", 0);
    g.connect(v, "dst", dst);
    g.connect(v, "src", src);
    g.set_field(v, "n", 4);
    g.set_field_f32(v, "scale", 2.0f);
    return Execute(cs);
  };
  // acc is read before it is written (state across runs); shared is used by two programs.
  g.add_program("a", Sequence({scale(tmp, acc), scale(acc, tmp), scale(shared, acc)}));
  g.add_program("b", Sequence({scale(late, shared), scale(shared, late)}));
  graph::validate(g);
  const Lowered l = lower_programs(g);
  ExchangePlan x = plan_exchanges(g, l);
  const MemoryPlan m = plan_memory(g, l, x, kLayout);
  std::vector<uint32_t> addrs;
  for (const Tensor& t : {acc, tmp, shared}) addrs.push_back(m.addr_of(t));
  std::sort(addrs.begin(), addrs.end());
  EXPECT_EQ(std::unique(addrs.begin(), addrs.end()), addrs.end());
  EXPECT_NE(m.addr_of(late), m.addr_of(acc));
  EXPECT_NE(m.addr_of(late), m.addr_of(shared));
  EXPECT_EQ(m.addr_of(late), m.addr_of(tmp));  // program b's temporary reuses a's
}

}  // namespace
}  // namespace tessera::testing
