// The hand-built 16-tile programs against plain C++ (bit for bit, same order of
// operations), in ISS and native mode, with one and two host threads.
#include <bit>
#include <cmath>
#include <cstring>

#include "machine_fixture.h"

namespace tessera::testing {
namespace {

class Examples : public ::testing::TestWithParam<std::tuple<emu::Mode, unsigned>> {};

TEST_P(Examples, MatVecMatchesPlainCpp) {
  auto [mode, threads] = GetParam();
  auto m = make_machine(mode, threads);
  handbuilt::MatVec16 mv(7);
  handbuilt::ProgramBuilder b(m->tile_count(), layout_of(*m));
  mv.build(b);
  b.load(*m);
  const std::vector<float> y = mv.run(*m), want = mv.reference();
  const std::vector<double> exact = mv.exact();
  for (size_t i = 0; i < y.size(); ++i) {
    EXPECT_EQ(std::bit_cast<uint32_t>(y[i]), std::bit_cast<uint32_t>(want[i])) << "row " << i;
    EXPECT_NEAR(y[i], exact[i], 1e-4) << "row " << i;
  }
  EXPECT_EQ(m->read_reg(arch::kDevRegState), device::kStateHalted);
  EXPECT_EQ(m->superstep(), 4u);  // two host syncs, two exchanges
}

TEST_P(Examples, AllReduceMatchesPlainCpp) {
  auto [mode, threads] = GetParam();
  for (bool relu : {false, true}) {
    auto m = make_machine(mode, threads);
    handbuilt::AllReduce16 ar(11, relu);
    handbuilt::ProgramBuilder b(m->tile_count(), layout_of(*m));
    ar.build(b);
    b.load(*m);
    const auto got = ar.run(*m);
    const auto want = ar.reference();
    for (uint32_t t = 0; t < got.size(); ++t)
      for (size_t i = 0; i < want.size(); ++i)
        ASSERT_EQ(std::bit_cast<uint32_t>(got[t][i]), std::bit_cast<uint32_t>(want[i]))
            << "tile " << t << " element " << i << " relu " << relu;
    EXPECT_EQ(m->superstep(), 2 * handbuilt::AllReduce16::kRounds + 1);
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, Examples,
                         ::testing::Combine(::testing::Values(emu::Mode::kIss, emu::Mode::kNative),
                                            ::testing::Values(1u, 2u)),
                         [](const auto& info) {
                           return std::string(mode_name(std::get<0>(info.param))) + "_" +
                                  std::to_string(std::get<1>(info.param)) + "threads";
                         });

// ISS and native mode agree on all memory the program owns after every superstep.
TEST(IssVsNative, EqualAfterEverySuperstep) {
  auto iss = make_machine(emu::Mode::kIss), native = make_machine(emu::Mode::kNative);
  handbuilt::AllReduce16 ar(5, true);
  for (emu::Machine* m : {iss.get(), native.get()}) {
    handbuilt::ProgramBuilder b(m->tile_count(), layout_of(*m));
    ar.build(b);
    b.load(*m);
    m->write_reg(arch::kDevRegControl, device::kControlStart);
  }
  const uint32_t start = iss->firmware().firmware_end;
  uint32_t compared = 0;
  for (uint32_t step = 1;; ++step) {
    uint32_t ev[2];
    int i = 0;
    for (emu::Machine* m : {iss.get(), native.get()}) {
      m->write_reg(arch::kDevRegBreakSuperstep, step);
      ev[i++] = m->wait_event(device::kEventBreak | device::kEventHostSync | device::kEventError,
                              std::chrono::seconds(20));
      m->write_reg(arch::kDevRegEvents, device::kEventBreak);
    }
    ASSERT_EQ(ev[0], ev[1]) << "superstep " << step;
    ASSERT_FALSE(ev[0] & device::kEventError) << iss->error_detail() << native->error_detail();
    ASSERT_NE(ev[0], 0u);
    for (uint32_t t = 0; t < iss->tile_count(); ++t) {
      auto a = iss->tile(t).sram(), b = native->tile(t).sram();
      const size_t off = start - arch::kSramBase;
      ASSERT_EQ(0, std::memcmp(a.data() + off, b.data() + off, a.size() - off))
          << "tile " << t << " differs after superstep " << step;
    }
    ++compared;
    if (ev[0] & device::kEventHostSync) break;
  }
  EXPECT_EQ(compared, 2 * handbuilt::AllReduce16::kRounds + 1);
}

}  // namespace
}  // namespace tessera::testing
