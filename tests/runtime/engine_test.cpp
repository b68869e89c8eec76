// The Engine on the emulator: MatVec16 through streams in ISS and native mode, bit for bit
// against its reference; runs again on the same load; tensors; errors that name what is wrong;
// a device error mid-run surfaces and the device stays usable.
#include <gmock/gmock.h>

#include "runtime_fixture.h"
#include "tessera/arch/tile_map.h"
#include "tessera/runtime/emu_profile.h"

namespace tessera::testing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using runtime::Engine;
using runtime::EngineError;

class EngineOnMachine : public ::testing::TestWithParam<emu::Mode> {
 protected:
  void SetUp() override {
    m = make_machine(GetParam());
    exe = handbuilt::matvec16_executable(mv, small(), firmware_bytes());
  }
  // A loaded engine with x and y connected to `x` and `y`.
  std::unique_ptr<Engine> engine() {
    runtime::EngineOptions o;
    o.profile_source = runtime::emu_profile_source(*m);
    auto e = std::make_unique<Engine>(*m, exe, o);
    e->load();
    e->connect_stream("x", std::span(x));
    e->connect_stream("y", std::span(y));
    return e;
  }
  std::unique_ptr<emu::Machine> m;
  handbuilt::MatVec16 mv{7};
  exe::Executable exe;
  std::vector<float> x = mv.x, y = std::vector<float>(64);
};

TEST_P(EngineOnMachine, MatVecThroughStreamsMatchesTheReference) {
  auto e = engine();
  e->run("matvec");
  EXPECT_EQ(bits(y), bits(mv.reference()));
  EXPECT_EQ(bits(e->read_tensor_as<float>("y")), bits(mv.reference()));
  EXPECT_EQ(bits(e->read_tensor_as<float>("A")), bits(mv.a));
  const runtime::RunReport& r = e->reports().back();
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.host_syncs, 2u);
  EXPECT_EQ(r.supersteps, exe.supersteps);
  // Cycles only from the ISS.
  EXPECT_EQ(r.profile.empty(), GetParam() == emu::Mode::kNative);
  EXPECT_THAT(e->report_json(), AllOf(HasSubstr("\"program\": \"matvec\""), HasSubstr("\"host_syncs\": 2")));
}

TEST_P(EngineOnMachine, RunsTwiceOnOneLoadAndOverNewWeights) {
  auto e = engine();
  e->run();  // the first program
  ASSERT_EQ(bits(y), bits(mv.reference()));
  // New x through the same buffer: same load, A kept.
  for (float& v : x) v = v * 0.5f + 0.25f;
  mv.x = x;
  e->run("matvec");
  EXPECT_EQ(bits(y), bits(mv.reference()));
  // New weights written between runs.
  for (float& v : mv.a) v = -v;
  e->write_tensor("A", std::span<const float>(mv.a));
  e->run("matvec");
  EXPECT_EQ(bits(y), bits(mv.reference()));
  EXPECT_EQ(e->reports().size(), 3u);
}

TEST_P(EngineOnMachine, CallbacksServeStreams) {
  runtime::EngineOptions o;
  Engine e(*m, exe, o);
  e.load();
  e.connect_stream("x", [&](std::span<std::byte> d) { std::memcpy(d.data(), mv.x.data(), d.size()); });
  std::vector<float> got;
  e.connect_stream("y", [&](std::span<std::byte> d) {
    got.resize(d.size() / 4);
    std::memcpy(got.data(), d.data(), d.size());
  });
  e.run("matvec");
  EXPECT_EQ(bits(got), bits(mv.reference()));
}

TEST_P(EngineOnMachine, AnErrorInTheRunSurfacesAndTheDeviceStaysUsable) {
  // Tile 5 expects one word more than exchange 0 brings it: the device reports words lost.
  handbuilt::MatVec16 bad_mv{7};
  const exe::Executable bad = handbuilt::matvec16_executable(
      bad_mv, small(), firmware_bytes(), [](handbuilt::ProgramBuilder& b) { b.expect(5, 0, 1); });
  {
    Engine e(*m, bad);
    e.load();
    e.connect_stream("x", std::span(x));
    e.connect_stream("y", std::span(y));
    try {
      e.run("matvec");
      FAIL() << "the run should fail";
    } catch (const EngineError& err) {
      EXPECT_THAT(err.what(), AllOf(HasSubstr("program 'matvec'"), HasSubstr("tile 5"),
                                    HasSubstr("received fewer words than it expected")));
    }
    EXPECT_FALSE(e.reports().back().ok);
  }
  // The same device: load the good executable and run.
  auto e = engine();
  e->run("matvec");
  EXPECT_EQ(bits(y), bits(mv.reference()));
}

TEST_P(EngineOnMachine, WrongStreamBufferSizeNamesTheStream) {
  Engine e(*m, exe);
  std::vector<float> short_x(63);
  try {
    e.connect_stream("x", std::span(short_x));
    FAIL();
  } catch (const EngineError& err) {
    EXPECT_THAT(err.what(), AllOf(HasSubstr("stream 'x'"), HasSubstr("f32[64]"), HasSubstr("63 elements")));
  }
  std::vector<float> two(128);  // two transfers: fine
  EXPECT_NO_THROW(e.connect_stream("x", std::span(two)));
}

TEST_P(EngineOnMachine, UnknownNamesAreNamed) {
  auto e = engine();
  EXPECT_THAT([&] { e->run("train"); }, ::testing::ThrowsMessage<EngineError>(
                                             AllOf(HasSubstr("no program 'train'"), HasSubstr("matvec"))));
  EXPECT_THAT([&] { e->read_tensor("B"); }, ::testing::ThrowsMessage<EngineError>(HasSubstr("no tensor 'B'")));
  EXPECT_THAT([&] { e->write_tensor("B", std::span<const std::byte>()); },
              ::testing::ThrowsMessage<EngineError>(HasSubstr("no tensor 'B'")));
  EXPECT_THAT([&] { e->connect_stream("z", std::span(y)); },
              ::testing::ThrowsMessage<EngineError>(HasSubstr("no stream 'z'")));
  e->disconnect_stream("y");
  EXPECT_THAT([&] { e->run("matvec"); },
              ::testing::ThrowsMessage<EngineError>(HasSubstr("stream 'y' is not connected")));
}

TEST_P(EngineOnMachine, AWrongTargetIsRefusedBeforeAnythingIsWritten) {
  auto tiny = make_machine(GetParam(), "tiny");
  Engine e(*tiny, exe);
  EXPECT_THAT([&] { e.load(); }, ::testing::ThrowsMessage<EngineError>(
                                     AllOf(HasSubstr("target 'small'"), HasSubstr("16 tiles"), HasSubstr("4 tiles"))));
  EXPECT_FALSE(e.loaded());
  // Its SRAM above the firmware is untouched (a new device's SRAM is zero).
  const auto& sram = tiny->tile(0).sram();
  const uint32_t from = tiny->firmware().firmware_end - arch::kSramBase;
  EXPECT_TRUE(std::all_of(sram.begin() + from, sram.end(), [](auto b) { return b == 0; }));
}

INSTANTIATE_TEST_SUITE_P(Modes, EngineOnMachine, ::testing::Values(emu::Mode::kIss, emu::Mode::kNative),
                         [](const auto& i) { return i.param == emu::Mode::kIss ? "iss" : "native"; });

}  // namespace
}  // namespace tessera::testing
