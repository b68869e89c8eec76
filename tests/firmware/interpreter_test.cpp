// The control-program interpreter in native mode, with a fake register block that records
// every access: the hand-built programs of scenarios.h give the expected barriers, exits
// and register writes; plus native mode's own API (halting, codelet calls, threads).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <tuple>
#include <utility>
#include <vector>
#include <thread>

#include "runtime/native.h"
#include "runtime/native_simd.h"
#include "scenarios.h"

namespace {

using namespace tessera;
using namespace tessera::fwtest;

constexpr uint32_t kSramBytes = 64 * 1024;
constexpr uint32_t kHeader = kSramBase + 0x100;  // where a loader would put it (any address works)
constexpr uint32_t kFree = kSramBase + 0x2000;

struct Access {
  bool store;
  uint32_t offset, value;
  bool operator==(const Access&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Access& a) {
  return os << (a.store ? "store " : "load ") << std::hex << "0x" << a.offset << " = 0x" << a.value
            << std::dec;
}

// Records every access and latches what the emulator's tile would (Stop).
class RecordingRegs : public fw::NativeRegs {
 public:
  std::vector<Access> log;
  Stop latch;

  void store(uint32_t offset, uint32_t value) override {
    log.push_back({true, offset, value});
    switch (offset) {
      case kTileRegSync:
        latch.sync = value;
        break;
      case kTileRegXchgList:
        latch.xchg_list = value;
        break;
      case kTileRegXchgEntries:
        latch.xchg_entries = value;
        break;
      case kTileRegXchgStart:
        latch.xchg_started = true;
        break;
      case kTileRegRecvExpect:
        latch.recv_expect = value;
        break;
      case kTileRegExit:
        latch.halted = true, latch.exit_code = value;
        break;
      default:
        ADD_FAILURE() << "unexpected register store at 0x" << std::hex << offset;
    }
  }
  uint32_t load(uint32_t offset) override {
    log.push_back({false, offset, 0});
    return 0;
  }
};

struct NativeRun {
  std::vector<uint8_t> sram = std::vector<uint8_t>(kSramBytes);
  RecordingRegs regs;
  fw::NativeTile tile;
  TileImage image{sram, kHeader, kFree};

  NativeRun() {
    tile.sram = sram.data();
    tile.sram_bytes = kSramBytes;
    tile.regs = &regs;
    tile.header = kHeader;
  }

  // Runs to the end (at most `limit` stops); the stops as the register block saw them.
  std::vector<Stop> run(const Scenario& s, size_t limit = 100) {
    std::vector<Stop> stops;
    while (stops.size() < limit) {
      const fw::NativeStop why = fw::native_run_until_sync(tile);
      Stop st = regs.latch;
      regs.latch = {};
      if (why == fw::NativeStop::kHalted) {
        EXPECT_TRUE(tile.halted);
        EXPECT_TRUE(st.halted) << "halted without writing EXIT";
        EXPECT_EQ(tile.exit_code, st.exit_code);
        stops.push_back(st);
        break;
      }
      stops.push_back(st);
      if (s.between) s.between(stops.size() - 1, image);
    }
    return stops;
  }
};

class NativeScenario : public testing::TestWithParam<Scenario> {};

TEST_P(NativeScenario, StopsAsExpected) {
  const Scenario& s = GetParam();
  NativeRun r;
  s.build(r.image);
  const std::vector<Stop> stops = r.run(s);
  EXPECT_EQ(stops, s.expected);
  for (const Access& a : r.regs.log)
    EXPECT_TRUE(a.store) << "native mode must not read registers: " << a;
  if (s.check) s.check(r.image);
  // A halted tile stays halted and touches nothing.
  const size_t accesses = r.regs.log.size();
  EXPECT_EQ(fw::native_run_until_sync(r.tile), fw::NativeStop::kHalted);
  EXPECT_EQ(r.regs.log.size(), accesses);
}

std::string scenario_name(const testing::TestParamInfo<Scenario>& info) {
  std::string n;
  for (char c : info.param.name) n += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(Interpreter, NativeScenario, testing::ValuesIn(all_scenarios()),
                         scenario_name);

// The main program's register writes, one by one, in order.
TEST(Interpreter, MainProgramRegisterWrites) {
  NativeRun r;
  const Scenario s = main_scenario();
  s.build(r.image);
  r.run(s);
  std::vector<Access> expected;
  auto exchange = [&](uint32_t list, uint32_t entries, uint32_t recv) {
    expected.insert(expected.end(), {{true, kTileRegXchgList, list},
                                     {true, kTileRegXchgEntries, entries},
                                     {true, kTileRegRecvExpect, recv},
                                     {true, kTileRegXchgStart, 1},
                                     {true, kTileRegSync, 0}});
  };
  auto host_sync = [&](uint32_t recv) {
    expected.insert(expected.end(), {{true, kTileRegRecvExpect, recv}, {true, kTileRegSync, 1}});
  };
  for (uint32_t stream : {0, 1, 0}) {
    exchange(0x8000f100u, 2, 5);
    host_sync(stream == 0 ? 11 : 13);
  }
  expected.insert(expected.end(),
                  {{true, kTileRegRecvExpect, 0}, {true, kTileRegSync, 0}});  // Sync
  for (int i = 0; i < 4; ++i) exchange(0x8000f000u, 0, 3);
  expected.push_back({true, kTileRegExit, 0});
  EXPECT_EQ(r.regs.log, expected);
}

// Where the interpreter is between barriers: resumable state, kept in the NativeTile.
TEST(Interpreter, StateIsResumableAndLivesInTheTile) {
  NativeRun r;
  const Scenario s = main_scenario();
  s.build(r.image);
  ASSERT_EQ(fw::native_run_until_sync(r.tile), fw::NativeStop::kSync);  // at the first Exchange
  EXPECT_EQ(r.tile.state.pc, 9u);                                       // next: the If
  EXPECT_EQ(r.tile.state.depth, 1u);                                    // inside the Repeat
  EXPECT_EQ(r.tile.state.frames[0].left, 3u);
  fw::NativeTile copy = r.tile;  // a copy resumes from the same place
  ASSERT_EQ(fw::native_run_until_sync(copy), fw::NativeStop::kSync);
  EXPECT_EQ(copy.state.pc, 15u);    // after HostSync 0, where the else part begins
  EXPECT_EQ(copy.state.depth, 2u);  // the Repeat and the If's then part
  EXPECT_EQ(r.tile.state.pc, 9u);
}

// Passing idle supersteps (native mode's pass_idle_supersteps): a tile passes, in one call,
// the supersteps in which it runs no vertex, sends nothing and receives nothing, arriving
// at the first barrier with the registers run_until_sync writes there; it stops before a
// superstep with a vertex, a send or a receive, and before a HostSync, an If or End.
struct IdleRun : NativeRun {
  uint32_t empty_x = 0;  // exchange 0: nothing to send or receive (its list address only)
  uint32_t in = 0;       // compute set 1's vertex copies 7 here

  // The program; compute set 0 is empty, 1 has a vertex; exchange 0 is empty, 1 receives
  // one word, 2 sends one.
  explicit IdleRun(std::vector<uint32_t> program) {
    image.program = std::move(program);
    in = image.alloc(1);
    const uint32_t out = image.put({7});
    image.compute_sets = {{}, {image.vertex("copy", {in, out, 1})}};
    const uint32_t list = image.put({out, 4, 0, in});  // one SendEntry
    image.exchanges = {{list, 0, 0}, {list, 0, 1}, {list, 1, 0}};
    image.streams = {{0}};
    image.conditions = {image.alloc(1)};
    image.write_header(image.write());
    empty_x = list;
  }
  // Passes up to `most`; the position after, the stops written.
  std::pair<uint32_t, std::vector<Access>> pass(uint32_t most = 100) {
    regs.log.clear();
    const uint32_t n = fw::native_pass_idle_supersteps(tile, most);
    return {n, regs.log};
  }
};

TEST(PassIdle, PassesEmptySupersteps_ArrivingAtTheFirstAsAnExchangeWould) {
  IdleRun r({kCtlExecute, 0, kCtlExchange, 0,       // 1: idle
             kCtlSync,                               // 2: idle
             kCtlRepeat, 2, 3, kCtlExecute, 0, kCtlSync,  // 3, 4: idle
             kCtlExecute, 0, kCtlExecute, 1, kCtlExchange, 0, kCtlEnd});  // 5: a vertex
  const auto [n, log] = r.pass();
  EXPECT_EQ(n, 4u);
  // After the Repeat's last Sync: at its body's end, closed by the next step.
  EXPECT_EQ(r.tile.state.pc, 11u);
  EXPECT_EQ(r.tile.state.depth, 1u);
  EXPECT_EQ(r.tile.state.frames[0].left, 1u);
  const std::vector<Access> arrive = {{true, kTileRegXchgList, r.empty_x}, {true, kTileRegXchgEntries, 0},
                                      {true, kTileRegRecvExpect, 0},       {true, kTileRegXchgStart, 1},
                                      {true, kTileRegSync, 0}};
  EXPECT_EQ(log, arrive);
  // Nothing more to pass: the next call writes nothing, and the turn runs the vertex.
  EXPECT_EQ(r.pass().first, 0u);
  EXPECT_TRUE(r.regs.log.empty());
  EXPECT_EQ(fw::native_run_until_sync(r.tile), fw::NativeStop::kSync);
  EXPECT_EQ(r.image.get(r.in), 7u);
  EXPECT_EQ(fw::native_run_until_sync(r.tile), fw::NativeStop::kHalted);
  EXPECT_EQ(r.tile.exit_code, 0u);
}

TEST(PassIdle, ASyncFirstArrivesAsASync) {
  IdleRun r({kCtlSync, kCtlExchange, 0, kCtlEnd});
  const auto [n, log] = r.pass();
  EXPECT_EQ(n, 2u);
  EXPECT_EQ(log, (std::vector<Access>{{true, kTileRegRecvExpect, 0}, {true, kTileRegSync, 0}}));
  EXPECT_EQ(r.tile.state.pc, 3u);  // on End: passing stops there, the turn ends the program
}

TEST(PassIdle, StopsAtAnyWorkOrBarrierWithTheHost) {
  const std::vector<std::pair<const char*, std::vector<uint32_t>>> cases = {
      {"a vertex", {kCtlExecute, 1, kCtlSync, kCtlEnd}},
      {"a receive", {kCtlExecute, 0, kCtlExchange, 1, kCtlEnd}},
      {"a send", {kCtlExchange, 2, kCtlEnd}},
      {"a host sync", {kCtlHostSync, 0, kCtlEnd}},
      {"an If", {kCtlIf, 0, 1, 0, kCtlSync, kCtlEnd}},
      {"End", {kCtlEnd}},
      {"a compute set out of range", {kCtlExecute, 9, kCtlSync, kCtlEnd}},
      {"an exchange out of range", {kCtlExchange, 9, kCtlEnd}},
      {"an unknown op", {77, kCtlSync, kCtlEnd}},
      {"a Repeat running past the program", {kCtlRepeat, 2, 9, kCtlSync, kCtlEnd}},
      {"the program's end without End", {kCtlExecute, 0}},
  };
  for (const auto& [what, program] : cases) {
    // After one idle superstep (it passes that one and stops), and at once (nothing).
    for (const bool after_one : {true, false}) {
      std::vector<uint32_t> p = program;
      if (after_one) p.insert(p.begin(), kCtlSync);
      IdleRun r(p);
      const auto [n, log] = r.pass();
      EXPECT_EQ(n, after_one ? 1u : 0u) << what;
      EXPECT_EQ(r.tile.state.pc, after_one ? 1u : 0u) << what;
      EXPECT_EQ(log.size(), after_one ? 2u : 0u) << what;
      EXPECT_FALSE(r.tile.halted) << what << ": passing never halts the tile";
    }
  }
}

TEST(PassIdle, PassesAtMostAsAskedAndNothingOnAHaltedTile) {
  IdleRun r({kCtlRepeat, 1000, 1, kCtlSync, kCtlEnd});
  EXPECT_EQ(r.pass(3).first, 3u);
  EXPECT_EQ(r.tile.state.frames[0].left, 998u);  // the third body's run done, not yet closed
  EXPECT_EQ(r.pass(5000).first, 997u);
  EXPECT_EQ(r.tile.state.pc, 4u);
  EXPECT_EQ(fw::native_run_until_sync(r.tile), fw::NativeStop::kHalted);
  EXPECT_EQ(r.pass().first, 0u);
  EXPECT_TRUE(r.regs.log.empty());
}

// The watchdog: a program that loops without a barrier gives the thread back at the
// deadline, between two ops, and carries on from there when called again.
TEST(Native, ALoopWithoutABarrierYieldsAtTheDeadline) {
  NativeRun r;
  r.image.program = {kCtlRepeat, 0xffffffffu, 5, kCtlRepeat, 0xffffffffu, 2, kCtlExecute, 0, kCtlEnd};
  r.image.compute_sets = {{}};
  r.image.write_header(r.image.write());
  auto deadline_in = [](std::chrono::milliseconds ms) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               (std::chrono::steady_clock::now() + ms).time_since_epoch()).count();
  };
  uint32_t left = 0xffffffffu;
  for (int round = 0; round < 3; ++round) {
    r.tile.deadline_ns = deadline_in(std::chrono::milliseconds(20));
    const auto t0 = std::chrono::steady_clock::now();
    ASSERT_EQ(fw::native_run_until_sync(r.tile), fw::NativeStop::kYield);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
    EXPECT_FALSE(r.tile.halted);
    ASSERT_EQ(r.tile.state.depth, 2u);
    EXPECT_LT(r.tile.state.frames[1].left, left) << "no progress in round " << round;
    left = r.tile.state.frames[1].left;
  }
  EXPECT_TRUE(r.regs.log.empty());  // no barrier, no EXIT
}

TEST(Native, RunCodeletDirectly) {
  NativeRun r;
  const uint32_t a = r.image.put({0x3f800000u, 0x40000000u}), out = r.image.alloc(2);
  const uint32_t state = r.image.put({out, a, a, 2});
  EXPECT_EQ(fw::native_run_codelet(r.tile, fw::codelet_index("add"), state), fw::NativeStop::kSync);
  EXPECT_EQ(r.image.getf(out), 2.0f);
  EXPECT_EQ(r.image.getf(out + 4), 4.0f);
  EXPECT_TRUE(r.regs.log.empty());
  // out of SRAM by one word: a store access fault, before anything is written
  const uint32_t edge = r.image.put({kSramBase + kSramBytes - 4, a, a, 2});
  EXPECT_EQ(fw::native_run_codelet(r.tile, fw::codelet_index("add"), edge),
            fw::NativeStop::kHalted);
  EXPECT_EQ(r.tile.exit_code, kExitTrap | 7);
  ASSERT_EQ(r.regs.log.size(), 1u);
  EXPECT_EQ(r.regs.log[0], (Access{true, kTileRegExit, kExitTrap | 7}));
  EXPECT_EQ(fw::native_run_codelet(r.tile, 0, state), fw::NativeStop::kHalted);  // stays halted
}

// Found by fuzz_control: a matmul with no output (n = 0) but m = 2^32 - 1 rows, a softmax of
// 2^32 - 1 empty rows and an avgpool2d_grad of 2^32 - 1 empty output rows looped over every
// empty row: minutes in one vertex, where the watchdog cannot reach.
TEST(Native, CodeletsWithAnEmptyOutputReturnAtOnce) {
  NativeRun r;
  const auto t0 = std::chrono::steady_clock::now();
  for (const auto& [m, k, n] : {std::tuple{0xffffffffu, 0u, 0u}, std::tuple{0u, 0u, 0xffffffffu}}) {
    const uint32_t state = r.image.put({kSramBase + 0x3000, kSramBase + 0x3000, kSramBase + 0x3000, m, k, n});
    EXPECT_EQ(fw::native_run_codelet(r.tile, fw::codelet_index("matmul"), state), fw::NativeStop::kSync);
  }
  // softmax, the same: 2^32 - 1 rows of 0 columns.
  const uint32_t state = r.image.put({kSramBase + 0x3000, kSramBase + 0x3000, 0xffffffffu, 0u});
  EXPECT_EQ(fw::native_run_codelet(r.tile, fw::codelet_index("softmax"), state), fw::NativeStop::kSync);
  // avgpool2d_grad of 2^32 - 1 output rows of 0 columns (a 1x1 dx, zeroed, nothing added).
  const uint32_t dx = r.image.put({0x3f800000u});
  const uint32_t pool = r.image.put({dx, dx, 1, 1, 1, 0xffffffffu, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0});
  EXPECT_EQ(fw::native_run_codelet(r.tile, fw::codelet_index("avgpool2d_grad"), pool),
            fw::NativeStop::kSync);
  EXPECT_EQ(r.image.getf(dx), 0.0f);
  // The other window codelets, each with 2^32 - 1 rows (or channels) of 0 columns and a 1x1
  // input: maxpool2d_grad (found by fuzz_control as avgpool2d_grad was), maxpool2d,
  // avgpool2d, conv2d, its input and weight gradients, lrn.
  const uint32_t one = r.image.put({0x3f800000u});
  const uint32_t big = 0xffffffffu;
  const std::vector<std::pair<const char*, std::vector<uint32_t>>> empty = {
      {"maxpool2d_grad", {one, one, one, 1, 1, 1, big, 0, 1, 1, 1, 1, 0, 0}},
      {"maxpool2d", {one, one, 1, 1, 1, big, 0, 1, 1, 1, 1, 0, 0}},
      {"avgpool2d", {one, one, 1, 1, 1, big, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0}},
      {"conv2d", {one, one, one, one, 1, 1, 1, 1, big, 0, 1, 1, 1, 1, 0, 0, 1, 1}},
      {"conv2d_grad_input", {one, one, one, big, big, 0, 1, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1}},
      {"conv2d_grad_weight", {one, one, one, big, 0, 1, big, 0, 1, big, 0, 1, 1, 0, 0, 1, 1, 0}},
      {"lrn", {one, one, big, 0, 1, 0, 0, 0}},
  };
  for (const auto& [name, fields] : empty) {
    const auto t1 = std::chrono::steady_clock::now();
    EXPECT_EQ(fw::native_run_codelet(r.tile, fw::codelet_index(name), r.image.put(fields)), fw::NativeStop::kSync)
        << name;
    EXPECT_LT(std::chrono::steady_clock::now() - t1, std::chrono::milliseconds(500)) << name;
  }
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(2000));
}

// An outer loop over an extent whose product with an empty one is zero, where nothing
// bounds it (no tensor of its size exists): matmul_tn and matmul_nt (portable loops) and
// add_bias over 2^32 - 1 empty rows; conv2d with no input channels, conv2d_grad_input with
// no output channels (at dilation 0), each with 2^32 - 1 kernel rows; conv2d_grad_weight over 2^32 - 1 rows
// of an empty dy; maxpool2d and its gradient with a window of 2^32 - 1 rows over a 1x1
// input (the window scan walked every row outside the input). Each returns at once with
// the loops' result. And conv2d over an empty x, whose vector kernel offset a null pointer
// (fuzz_control under UBSan; the sanitizer build's failure before the fix).
TEST(Native, CodeletsWithNoTermsReturnAtOnce) {
  NativeRun r;
  const uint32_t big = 0xffffffffu, one = 0x3f800000u, two = 0x40000000u;
  struct Case {
    const char* name;
    std::function<std::vector<uint32_t>(TileImage&)> state;
    std::function<void(const TileImage&, const std::vector<uint32_t>&)> check;
  };
  const auto word = [](const TileImage& m, uint32_t a) { return m.get(a); };
  const std::vector<Case> cases = {
      {"matmul_tn", [&](TileImage& m) { const uint32_t c = m.put({one}); return std::vector<uint32_t>{c, c, c, big, 0, 0}; }, {}},
      {"matmul_nt", [&](TileImage& m) { const uint32_t c = m.put({one}); return std::vector<uint32_t>{c, c, c, big, 0, 0}; }, {}},
      {"add_bias", [&](TileImage& m) { const uint32_t c = m.put({one}); return std::vector<uint32_t>{c, c, c, big, 0}; }, {}},
      // y = +0 + b: no term
      {"conv2d",
       [&](TileImage& m) {
         return std::vector<uint32_t>{m.put({one}), m.put({one}), m.put({one}), m.put({two}), 0, 0, 1, 1, 1, 1, big, 1,
                                      1, 1, 0, 0, 1, 1};
       },
       [&](const TileImage& m, const std::vector<uint32_t>& s) { EXPECT_EQ(word(m, s[0]), two) << "conv2d: y = b"; }},
      // an empty x (h = 0): the vector kernel offset its null x (fuzz_control; UBSan only)
      {"conv2d",
       [&](TileImage& m) {
         return std::vector<uint32_t>{m.put({one}), m.put({one}), m.put({one}), m.put({two}), 1, 0, 1, 1, 1, 1, 1, 1,
                                      1, 1, 0, 0, 1, 1};
       },
       [&](const TileImage& m, const std::vector<uint32_t>& s) { EXPECT_EQ(word(m, s[0]), two) << "conv2d, empty x: y = b"; }},
      {"conv2d_grad_input",
       [&](TileImage& m) {
         return std::vector<uint32_t>{m.put({one}), m.put({one}), m.put({one}), 1, 1, 1, 0, 1, 1, big, 1, 1, 1, 0, 0,
                                      0, 1};  // dilation 0: every kernel row maps onto row 0
       },
       [&](const TileImage& m, const std::vector<uint32_t>& s) { EXPECT_EQ(word(m, s[0]), 0u) << "conv2d_grad_input: dx = +0"; }},
      {"conv2d_grad_weight",
       [&](TileImage& m) {
         return std::vector<uint32_t>{m.put({one}), m.put({one}), m.put({one}), 1, 0, 1, 1, big, 0, 1, 1, 1, 1, 0, 0,
                                      1, 1, 0};
       },
       [&](const TileImage& m, const std::vector<uint32_t>& s) { EXPECT_EQ(word(m, s[0]), 0u) << "conv2d_grad_weight: dw = +0"; }},
      {"maxpool2d",
       [&](TileImage& m) { return std::vector<uint32_t>{m.put({0}), m.put({two}), 1, 1, 1, 1, 1, big, 1, 1, 1, 0, 0}; },
       [&](const TileImage& m, const std::vector<uint32_t>& s) { EXPECT_EQ(word(m, s[0]), two) << "maxpool2d: y = x"; }},
      {"maxpool2d_grad",
       [&](TileImage& m) {
         return std::vector<uint32_t>{m.put({0}), m.put({two}), m.put({one}), 1, 1, 1, 1, 1, big, 1, 1, 1, 0, 0};
       },
       [&](const TileImage& m, const std::vector<uint32_t>& s) { EXPECT_EQ(word(m, s[0]), two) << "maxpool2d_grad: dx = dy"; }},
  };
  for (const bool simd : {true, false}) {
    const bool was = fw::simd::set_enabled(simd);
    for (const Case& c : cases) {
      const std::vector<uint32_t> state = c.state(r.image);
      const auto t0 = std::chrono::steady_clock::now();
      EXPECT_EQ(fw::native_run_codelet(r.tile, fw::codelet_index(c.name), r.image.put(state)), fw::NativeStop::kSync)
          << c.name;
      EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(500)) << c.name << " simd " << simd;
      if (c.check) c.check(r.image, state);
    }
    fw::simd::set_enabled(was);
  }
}

// Extents whose product wraps: native mode checked the wrapped count against the SRAM
// (2 * 2977518503 * 3097670771 = 10 mod 2^64; 65536 * 65536 = 0 mod 2^32, and a count of 0
// is a null pointer) and then walked the real extents through host memory; and windows
// whose positions wrap in 32 bits (a dilation or stride of 2^31: rows 0, 2^31, 2^32 = 0),
// where the two ends of the span were inside the input and the middle 8 GiB past it. Now a
// wrapped count is an access fault before anything is touched, and a window holds only the
// positions truly inside. Each runs in a child process: before the fix they crashed it.
TEST(NativeDeathTest, WrappingExtentsAndWindowsStayInTheTile) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const uint32_t one = 0x3f800000u, two = 0x40000000u, three = 0x40400000u;
  const auto child = [](const char* name, auto&& state, auto&& check) {
    NativeRun r;
    const std::vector<uint32_t> s = state(r.image);
    const fw::NativeStop stop = fw::native_run_codelet(r.tile, fw::codelet_index(name), r.image.put(s));
    std::fprintf(stderr, "stop %d exit 0x%x\n", static_cast<int>(stop), r.tile.exit_code);
    std::exit(check(stop, r.tile.exit_code, r.image, s) ? 0 : 1);
  };
  const auto faults = [](uint32_t cause) {
    return [cause](fw::NativeStop stop, uint32_t code, const TileImage&, const std::vector<uint32_t>&) {
      return stop == fw::NativeStop::kHalted && code == (kExitTrap | cause);
    };
  };
  const auto buffer = [one](TileImage& m) { return m.put(std::vector<uint32_t>(16, one)); };
  // avgpool2d: y of 2 x 2977518503 x 3097670771 (10 mod 2^64): a store fault.
  EXPECT_EXIT(child("avgpool2d", [&](TileImage& m) {
    const uint32_t b = buffer(m);
    return std::vector<uint32_t>{b, b, 2, 1, 1, 2977518503u, 3097670771u, 1, 1, 1, 1, 0, 0, 0, 0, 0};
  }, faults(7)), ::testing::ExitedWithCode(0), "");
  // maxpool2d: x of 65536 x 65536 (0 mod 2^32): a load fault.
  EXPECT_EXIT(child("maxpool2d", [&](TileImage& m) {
    const uint32_t b = buffer(m);
    return std::vector<uint32_t>{b, b, 1, 65536, 65536, 1, 1, 1, 1, 1, 1, 0, 0};
  }, faults(5)), ::testing::ExitedWithCode(0), "");
  // conv2d: a 65536 x 65536 kernel (0 mod 2^32): a load fault.
  EXPECT_EXIT(child("conv2d", [&](TileImage& m) {
    const uint32_t b = buffer(m);
    return std::vector<uint32_t>{b, b, b, b, 1, 1, 1, 1, 1, 1, 65536, 65536, 1, 1, 0, 0, 1, 1};
  }, faults(5)), ::testing::ExitedWithCode(0), "");
  // conv2d, 3 kernel rows at dilation 2^31 over one input row: only row 0 is inside,
  // y = fma(x, w, +0) + b = 2 * 3 + 1.
  EXPECT_EXIT(child("conv2d", [&](TileImage& m) {
    return std::vector<uint32_t>{m.put({0}), m.put({two}), m.put({three, three, three}), m.put({one}), 1, 1, 1, 1,
                                 1, 1, 3, 1, 1, 1, 0, 0, 0x80000000u, 1};
  }, [](fw::NativeStop stop, uint32_t, const TileImage& m, const std::vector<uint32_t>& s) {
    return stop == fw::NativeStop::kSync && m.getf(s[0]) == 7.0f;
  }), ::testing::ExitedWithCode(0), "");
  // conv2d_grad_weight, 3 dy rows at stride 2^31 over one input row: only oy = 0 is inside,
  // dw = fma(dy, x, +0) = 3 * 2.
  EXPECT_EXIT(child("conv2d_grad_weight", [&](TileImage& m) {
    return std::vector<uint32_t>{m.put({0}), m.put({two}), m.put({three, three, three}), 1, 1, 1, 1, 3, 1, 1, 1,
                                 0x80000000u, 1, 0, 0, 1, 1, 0};
  }, [](fw::NativeStop stop, uint32_t, const TileImage& m, const std::vector<uint32_t>& s) {
    return stop == fw::NativeStop::kSync && m.getf(s[0]) == 6.0f;
  }), ::testing::ExitedWithCode(0), "");
}

TEST(Native, CodeletIndexOutOfRange) {
  NativeRun r;
  EXPECT_EQ(fw::native_run_codelet(r.tile, fw::tessera_codelet_count, 0), fw::NativeStop::kHalted);
  EXPECT_EQ(r.tile.exit_code, kExitBadProgram);
}

TEST(Native, TilePointerChecks) {
  NativeRun r;
  fw::NativeTileBinding bind(r.tile);
  EXPECT_EQ(fw::tile_ptr<uint32_t>(kSramBase), reinterpret_cast<uint32_t*>(r.sram.data()));
  EXPECT_EQ(fw::tile_ptr<const float>(kSramBase + kSramBytes - 8, 2),
            reinterpret_cast<const float*>(r.sram.data() + kSramBytes - 8));
  EXPECT_EQ(fw::tile_ptr<uint32_t>(0x12, 0), nullptr);  // nothing asked, nothing checked
  auto cause = [](auto fn) -> uint32_t {
    try {
      fn();
    } catch (const fw::NativeHalt& h) {
      return h.code;
    }
    return 0;
  };
  EXPECT_EQ(cause([] { fw::tile_ptr<const uint32_t>(kSramBase + kSramBytes - 4, 2); }),
            kExitTrap | 5);
  EXPECT_EQ(cause([] { fw::tile_ptr<uint32_t>(kSramBase - 4); }), kExitTrap | 7);
  EXPECT_EQ(cause([] { fw::tile_ptr<uint32_t>(kSramBase, uint64_t{1} << 40); }),
            kExitTrap | 7);  // no overflow
  EXPECT_EQ(cause([] { fw::tile_ptr<const uint32_t>(kSramBase + 2); }), kExitTrap | 4);
  EXPECT_EQ(cause([] { fw::tile_ptr<float>(kSramBase + 1); }), kExitTrap | 6);
  EXPECT_EQ(cause([] { fw::tile_ptr<uint8_t>(kSramBase + 1); }), 0u);
}

// Each thread has its own current tile: two tiles run the main program at once.
TEST(Native, TilesOnSeveralThreads) {
  constexpr int kTiles = 4;
  std::vector<std::unique_ptr<NativeRun>> runs;
  std::vector<std::vector<Stop>> stops(kTiles);
  std::vector<Scenario> scenarios(kTiles, main_scenario());
  for (int i = 0; i < kTiles; ++i) {
    scenarios[i] = main_scenario();  // each with its own addresses
    runs.push_back(std::make_unique<NativeRun>());
    scenarios[i].build(runs[i]->image);
  }
  std::vector<std::thread> threads;
  for (int i = 0; i < kTiles; ++i)
    threads.emplace_back([&, i] {
      for (int rep = 0; rep < 50; ++rep) {  // rerun from the start to interleave more
        runs[i]->tile.state = {};
        runs[i]->tile.halted = false;
        stops[i] = runs[i]->run(scenarios[i]);
      }
    });
  for (auto& t : threads) t.join();
  for (int i = 0; i < kTiles; ++i) EXPECT_EQ(stops[i], scenarios[i].expected) << "tile " << i;
}

}  // namespace
