// The Engine on every device of the registry that can run here (registry_devices.h): MatVec16
// through streams bit for bit against its reference; runs again on the same load; tensors;
// errors that name what is wrong; a device error mid-run surfaces and the device stays usable.
#include <gmock/gmock.h>

#include "registry_devices.h"
#include "runtime_fixture.h"
#include "tessera/arch/tile_map.h"
#include "tessera/registry/registry.h"

namespace tessera::testing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using runtime::Engine;
using runtime::EngineError;

class EngineOnDevice : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    m = open_registry_device(GetParam(), "small");
    exe = handbuilt::matvec16_executable(mv, small(), firmware_bytes());
  }
  // A loaded engine with x and y connected to `x` and `y`.
  std::unique_ptr<Engine> engine() {
    runtime::EngineOptions o;
    o.profile_source = registry::profile_source(*m);
    auto e = std::make_unique<Engine>(*m, exe, o);
    e->load();
    e->connect_stream("x", std::span(x));
    e->connect_stream("y", std::span(y));
    return e;
  }
  std::unique_ptr<device::Device> m;
  handbuilt::MatVec16 mv{7};
  exe::Executable exe;
  std::vector<float> x = mv.x, y = std::vector<float>(64);
};

TEST_P(EngineOnDevice, MatVecThroughStreamsMatchesTheReference) {
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
  EXPECT_EQ(r.profile.empty(), GetParam() != "emu");
  EXPECT_THAT(e->report_json(), AllOf(HasSubstr("\"program\": \"matvec\""), HasSubstr("\"host_syncs\": 2")));
}

TEST_P(EngineOnDevice, RunsTwiceOnOneLoadAndOverNewWeights) {
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

TEST_P(EngineOnDevice, CallbacksServeStreams) {
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

TEST_P(EngineOnDevice, AnErrorInTheRunSurfacesAndTheDeviceStaysUsable) {
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

TEST_P(EngineOnDevice, WrongStreamBufferSizeNamesTheStream) {
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

TEST_P(EngineOnDevice, UnknownNamesAreNamed) {
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

TEST_P(EngineOnDevice, AWrongTargetIsRefusedBeforeAnythingIsWritten) {
  auto tiny = open_registry_device(GetParam(), "tiny");
  Engine e(*tiny, exe);
  EXPECT_THAT([&] { e.load(); }, ::testing::ThrowsMessage<EngineError>(
                                     AllOf(HasSubstr("target 'small'"), HasSubstr("16 tiles"), HasSubstr("4 tiles"))));
  EXPECT_FALSE(e.loaded());
  // Its SRAM above the firmware is untouched (a new device's SRAM is zero): read back
  // through the contract, the firmware's end taken from the executable's firmware.
  const exe::ElfImage fw = exe::parse_elf(firmware_bytes(), "firmware");
  uint32_t end = 0;
  for (const exe::ElfSegment& seg : fw.segments) end = std::max(end, (seg.addr + seg.mem_bytes + 3) & ~3u);
  const uint32_t sram = arch::find_target("tiny")->sram_bytes;
  std::vector<std::byte> got(arch::kSramBase + sram - end);
  const device::DmaSegment seg{0, end, static_cast<uint32_t>(got.size()), 0};
  tiny->dma_read(std::span(&seg, 1), got);
  EXPECT_TRUE(std::all_of(got.begin(), got.end(), [](std::byte b) { return b == std::byte{0}; }));
}

TEST_P(EngineOnDevice, AnUnknownTargetIsRefusedByConfigure) {
  auto d = open_registry_device(GetParam(), nullptr);
  EXPECT_THAT([&] { d->configure("no-such-chip", std::as_bytes(std::span(firmware_bytes()))); },
              ::testing::ThrowsMessage<device::DeviceError>(HasSubstr("unknown target 'no-such-chip'")));
  EXPECT_THAT([&] { d->read_reg(0); }, ::testing::Throws<device::DeviceError>());
}

INSTANTIATE_TEST_SUITE_P(Registry, EngineOnDevice, ::testing::ValuesIn(registry_test_devices()),
                         [](const auto& i) { return test_device_name(i.param); });

}  // namespace
}  // namespace tessera::testing
