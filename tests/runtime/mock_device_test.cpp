// The Engine's own logic against a small fake device: what it checks before writing, how
// many DMAs a load takes, where stream data goes, and how it reports errors and hangs.
#include <gmock/gmock.h>

#include <deque>
#include <map>

#include "tessera/arch/device_regs.h"
#include "tessera/arch/tile_map.h"
#include "runtime_fixture.h"

namespace tessera::testing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using runtime::Engine;
using runtime::EngineError;

// Registers in a map, SRAM per tile, and a script of events for wait_event (0: a timeout).
class MockDevice final : public device::Device {
 public:
  MockDevice(uint32_t tiles, uint32_t hash) : sram(tiles, std::vector<std::byte>(131072)) {
    regs[arch::kDevRegId] = arch::kDeviceIdMagic;
    regs[arch::kDevRegTileCount] = tiles;
    regs[arch::kDevRegTargetHash] = hash;
  }
  uint32_t read_reg(uint32_t off) override { return regs[off]; }
  void write_reg(uint32_t off, uint32_t v) override {
    writes.push_back({off, v});
    if (off == arch::kDevRegControl && (v & device::kControlReset)) regs[arch::kDevRegState] = device::kStateReset;
  }
  void dma_write(std::span<const device::DmaSegment> segs, std::span<const std::byte> host) override {
    ++dma_writes;
    for (const auto& s : segs) {
      std::memcpy(&sram.at(s.tile).at(s.addr - arch::kSramBase), host.data() + s.host_offset, s.bytes);
      last_write.push_back(s);
    }
  }
  void dma_read(std::span<const device::DmaSegment> segs, std::span<std::byte> host) override {
    for (const auto& s : segs)
      std::memcpy(host.data() + s.host_offset, &sram.at(s.tile).at(s.addr - arch::kSramBase), s.bytes);
  }
  uint32_t wait_event(uint32_t mask, std::chrono::milliseconds) override {
    if (events.empty()) return 0;
    const uint32_t e = events.front() & mask;
    events.pop_front();
    if (e & device::kEventHostSync) regs[arch::kDevRegState] = device::kStateHostSync;
    return e;
  }
  std::string error_detail() const override { return detail; }

  uint32_t word(uint32_t tile, uint32_t addr) const {
    uint32_t w;
    std::memcpy(&w, &sram.at(tile).at(addr - arch::kSramBase), 4);
    return w;
  }

  std::map<uint32_t, uint32_t> regs;
  std::vector<std::vector<std::byte>> sram;
  std::vector<std::pair<uint32_t, uint32_t>> writes;
  std::vector<device::DmaSegment> last_write;
  std::deque<uint32_t> events;
  std::string detail;
  int dma_writes = 0;
};

class EngineLogic : public ::testing::Test {
 protected:
  handbuilt::MatVec16 mv{3};
  exe::Executable exe = handbuilt::matvec16_executable(mv, small(), firmware_bytes());
};

TEST_F(EngineLogic, RefusesAWrongDeviceBeforeWritingAnything) {
  MockDevice wrong_hash(16, small().hash ^ 1);
  Engine e(wrong_hash, exe);
  EXPECT_THAT([&] { e.load(); }, ::testing::ThrowsMessage<EngineError>(HasSubstr("target hash")));
  EXPECT_EQ(wrong_hash.dma_writes, 0);
  EXPECT_TRUE(wrong_hash.writes.empty());  // not even a reset

  MockDevice not_tessera(16, small().hash);
  not_tessera.regs[arch::kDevRegId] = 0xdeadbeef;
  Engine e2(not_tessera, exe);
  EXPECT_THAT([&] { e2.load(); }, ::testing::ThrowsMessage<EngineError>(HasSubstr("not a Tessera device")));
  EXPECT_EQ(not_tessera.dma_writes, 0);
}

TEST_F(EngineLogic, LoadIsOneResetAndOneDmaPerKind) {
  MockDevice d(16, small().hash);
  Engine e(d, exe);
  e.load();
  EXPECT_EQ(d.dma_writes, 2);  // firmware, then the executable's segments
  ASSERT_FALSE(d.writes.empty());
  EXPECT_EQ(d.writes.front(), std::make_pair(uint32_t{arch::kDevRegControl}, uint32_t{device::kControlReset}));
  // Every segment landed: compare tile 9's copy of every segment byte.
  for (const exe::Segment& s : exe.segments)
    ASSERT_EQ(0, std::memcmp(&d.sram[s.tile][s.addr - arch::kSramBase], s.bytes.data(), s.bytes.size()));
}

TEST_F(EngineLogic, RunPointsHeadersServesStreamsAndStopsAtHalt) {
  MockDevice d(16, small().hash);
  Engine e(d, exe);
  e.load();
  std::vector<float> x(64), y(64);
  for (size_t i = 0; i < 64; ++i) x[i] = float(i);
  e.connect_stream("x", std::span(x));
  e.connect_stream("y", std::span(y));
  // Pretend the device computed y into its intervals.
  for (const exe::Interval& iv : exe.find_stream("y")->intervals)
    for (uint32_t k = 0; k < iv.count; ++k) {
      const float v = float(iv.offset + k) * 2.0f;
      std::memcpy(&d.sram[iv.tile][iv.addr - arch::kSramBase + 4 * k], &v, 4);
    }
  d.events = {device::kEventHostSync, device::kEventHostSync, device::kEventAllHalted};
  d.regs[arch::kDevRegSuperstep] = 4;
  e.run("matvec");
  // Every tile's header points at its program copy.
  const uint32_t at = exe.header_addr + offsetof(arch::TileHeader, program);
  for (uint32_t t = 0; t < 16; ++t) {
    EXPECT_EQ(d.word(t, at), exe.programs[0].tile_program[t]);
    EXPECT_EQ(d.word(t, at + 4), exe.programs[0].words);
  }
  // x went to the top row's blocks, in order.
  for (const exe::Interval& iv : exe.find_stream("x")->intervals)
    for (uint32_t k = 0; k < iv.count; ++k) EXPECT_EQ(d.word(iv.tile, iv.addr + 4 * k), std::bit_cast<uint32_t>(x[iv.offset + k]));
  for (size_t i = 0; i < 64; ++i) EXPECT_EQ(y[i], float(i) * 2.0f);
  // Two doorbells, and the host-sync event cleared before each.
  int doorbells = 0;
  for (auto [off, v] : d.writes) doorbells += off == arch::kDevRegDoorbell;
  EXPECT_EQ(doorbells, 2);
  EXPECT_EQ(e.reports().back().supersteps, 4u);
}

TEST_F(EngineLogic, ADeviceErrorCarriesTheRegistersAndTheDetail) {
  MockDevice d(16, small().hash);
  Engine e(d, exe);
  e.load();
  std::vector<float> x(64), y(64);
  e.connect_stream("x", std::span(x));
  e.connect_stream("y", std::span(y));
  d.events = {device::kEventError};
  d.regs[arch::kDevRegErrTile] = 11;
  d.regs[arch::kDevRegErrSuperstep] = 2;
  d.regs[arch::kDevRegErrCause] = arch::kDeviceErrorBit | 1;
  d.detail = "tiles 3 and 7 both write tile 11 at 0x80002010";
  EXPECT_THAT([&] { e.run(); }, ::testing::ThrowsMessage<EngineError>(
                                    AllOf(HasSubstr("tile 11"), HasSubstr("superstep 2"),
                                          HasSubstr("wrote one address twice"), HasSubstr("both write tile 11"))));
  EXPECT_FALSE(e.reports().back().ok);
}

TEST_F(EngineLogic, AHangNamesTheTilesThatDidNotArrive) {
  MockDevice d(16, small().hash);
  Engine e(d, exe);
  e.load();
  std::vector<float> x(64), y(64);
  e.connect_stream("x", std::span(x));
  e.connect_stream("y", std::span(y));
  d.regs[arch::kDevRegArrivedBase] = 0xffff & ~((1u << 3) | (1u << 12));
  d.regs[arch::kDevRegSuperstep] = 1;
  EXPECT_THAT([&] { e.run("matvec", std::chrono::milliseconds(20)); },
              ::testing::ThrowsMessage<EngineError>(AllOf(HasSubstr("timed out"), HasSubstr("tiles 3, 12"),
                                                          HasSubstr("superstep 1"))));
}

TEST_F(EngineLogic, MoreHostSyncsThanTheProgramListsIsAnError) {
  MockDevice d(16, small().hash);
  Engine e(d, exe);
  e.load();
  std::vector<float> x(64), y(64);
  e.connect_stream("x", std::span(x));
  e.connect_stream("y", std::span(y));
  d.events = {device::kEventHostSync, device::kEventHostSync, device::kEventHostSync};
  EXPECT_THAT([&] { e.run(); }, ::testing::ThrowsMessage<EngineError>(HasSubstr("host sync 3")));
}

TEST_F(EngineLogic, RunAndTensorsNeedALoad) {
  MockDevice d(16, small().hash);
  Engine e(d, exe);
  EXPECT_THAT([&] { e.run(); }, ::testing::ThrowsMessage<EngineError>(HasSubstr("not loaded")));
  EXPECT_THAT([&] { e.read_tensor("A"); }, ::testing::ThrowsMessage<EngineError>(HasSubstr("not loaded")));
}

}  // namespace
}  // namespace tessera::testing
