// Strided send-list entries (control.h kSendRepeat) on the emulator: they move the words the
// same transfers written as plain entries move, both equal to a plain-C++ reference; the
// exchange costs entry_cycles less per slot saved; every malformed list is a device error
// naming the tile and the entry, and the device runs a good program after it.
#include <gmock/gmock.h>

#include <cstddef>
#include <cstdio>
#include <functional>

#include "machine_fixture.h"
#include "strided_sends.h"

namespace tessera::testing {
namespace {

using ::testing::HasSubstr;
using handbuilt::StridedSends;

std::string run_for_error(emu::Machine& m) {
  try {
    handbuilt::run(m, [](uint32_t) {});
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

class Strided : public ::testing::TestWithParam<emu::Mode> {
 protected:
  void SetUp() override { m = make_machine(GetParam()); }
  uint32_t err(uint32_t reg) { return m->read_reg(reg); }
  std::unique_ptr<emu::Machine> m;
};

void expect_memory(const std::vector<StridedSends::Memory>& got, const std::vector<StridedSends::Memory>& want,
                   const char* what) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t t = 0; t < got.size(); ++t) {
    EXPECT_EQ(got[t].src, want[t].src) << what << ": tile " << t << " src";
    EXPECT_EQ(got[t].recv, want[t].recv) << what << ": tile " << t << " recv";
    EXPECT_EQ(got[t].bcast, want[t].bcast) << what << ": tile " << t << " bcast";
  }
}

TEST_P(Strided, MoveTheWordsOfTheSameTransfersWrittenAsPlainEntries) {
  const uint32_t seed = 20261202;
  std::printf("seed %u\n", seed);
  StridedSends s(m->tile_count(), seed);
  const auto want = s.reference();
  uint64_t cycles[2] = {0, 0};
  for (bool strided : {false, true}) {
    auto mm = make_machine(GetParam());
    handbuilt::ProgramBuilder b(mm->tile_count(), layout_of(*mm));
    s.build(b, strided);
    b.load(*mm);
    ASSERT_EQ(run_for_error(*mm), "") << (strided ? "strided" : "plain");
    expect_memory(s.read(*mm), want, strided ? "strided" : "plain");
    ASSERT_EQ(mm->profile().size(), StridedSends::kRounds);
    cycles[strided] = mm->profile()[0].exchange_cycles;
    EXPECT_EQ(mm->profile()[0].exchange_words, uint64_t{s.expected_words()[0]} * s.tiles);
  }
  // Every tile sends and receives the same words, so the exchange's cost differs by the
  // slots each tile reads (the same on every tile) and nothing else.
  const uint32_t plain = s.slots(0, false), strided = s.slots(0, true);
  std::printf("exchange cycles: plain %llu (%u slots a tile), strided %llu (%u slots)\n",
              static_cast<unsigned long long>(cycles[0]), plain, static_cast<unsigned long long>(cycles[1]), strided);
  EXPECT_LT(strided, plain);
  EXPECT_EQ(cycles[0] - cycles[1], uint64_t{plain - strided} * arch::kFabricLatency.entry_cycles);
}

std::string hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

// Tile 3's list: a good plain entry to tile 4 (slot 0), then the case's strided entry (slot 1,
// its repeat slot 2). Each case's error: cause, tile, detail and text.
TEST_P(Strided, EveryMalformedListIsADeviceErrorNamingTileAndEntry) {
  const uint32_t n = m->tile_count();
  const uint32_t sram = static_cast<uint32_t>(m->tile(0).sram().size());
  struct Where {
    uint32_t src, dst, list;  // tile 3's source, the case's destination on tile 4, tile 3's send list
  };
  struct Case {
    const char* name;
    std::function<void(handbuilt::ProgramBuilder&, const Where&)> add;
    uint32_t cause, tile;
    std::function<uint32_t(const Where&)> detail;
    std::function<std::string(const Where&)> says;
  };
  using B = handbuilt::ProgramBuilder;
  const auto slot2 = [](const Where& w) { return w.list + 32; };
  const auto repeat_slot = [](const char* why) {
    return [why](const Where&) { return std::string("tile 3 send entry 1's repeat slot (") + why; };
  };
  const std::vector<Case> cases = {
      {"missing repeat slot", [](B& b, const Where& w) { b.add_send(3, 0, w.src, 16, 4 | arch::kSendRepeat, w.dst); },
       arch::kDevErrXchgBadSource, 3, [](const Where& w) { return w.list + 16; },
       [](const Where&) { return "tile 3 send entry 1 is strided (bit 31 of its destination node) but is the list's last slot: its repeat slot is missing"; }},
      {"count 0", [](B& b, const Where& w) { b.add_send(3, 0, w.src, 16, 4, w.dst, {0, 16, 16, 0}); },
       arch::kDevErrXchgBadSource, 3, slot2,
       repeat_slot("count 0, source stride 16, destination stride 16, reserved 0x00000000) has a count of 0")},
      {"reserved", [](B& b, const Where& w) { b.add_send(3, 0, w.src, 16, 4, w.dst, {2, 16, 16, 7}); },
       arch::kDevErrXchgBadSource, 3, slot2, repeat_slot("count 2, source stride 16, destination stride 16, reserved 0x00000007) has a reserved word that is not 0")},
      {"source stride", [](B& b, const Where& w) { b.add_send(3, 0, w.src, 16, 4, w.dst, {2, 18, 16, 0}); },
       arch::kDevErrXchgBadSource, 3, slot2, repeat_slot("count 2, source stride 18, destination stride 16, reserved 0x00000000) has a stride that is not a multiple of 4")},
      {"destination stride", [](B& b, const Where& w) { b.add_send(3, 0, w.src, 16, 4, w.dst, {2, 16, 2, 0}); },
       arch::kDevErrXchgBadSource, 3, slot2, repeat_slot("count 2, source stride 16, destination stride 2, reserved 0x00000000) has a stride that is not a multiple of 4")},
      {"source run out of SRAM", [sram](B& b, const Where& w) { b.add_send(3, 0, w.src, 16, 4, w.dst, {3, sram, 16, 0}); },
       arch::kDevErrXchgBadSource, 3, [](const Where& w) { return w.src; },
       [sram](const Where& w) {
         return "tile 3 send entry 1: source " + hex32(w.src) + " (16 bytes, run 1 of 3 at " + hex32(w.src + sram) + ", stride " +
                std::to_string(sram) + ") is misaligned or outside SRAM";
       }},
      {"destination run out of SRAM", [sram](B& b, const Where& w) { b.add_send(3, 0, w.src, 16, 4, w.dst, {2, 16, sram, 0}); },
       arch::kDevErrXchgBadDestination, 4, [](const Where& w) { return w.dst; },
       [sram](const Where& w) {
         return "tile 3 send entry 1: destination " + hex32(w.dst) + " (run 1 of 2 at " + hex32(w.dst + sram) + ", stride " +
                std::to_string(sram) + ") on tile 4 is misaligned or outside SRAM";
       }},
      {"runs written twice", [](B& b, const Where& w) { b.add_send(3, 0, w.src, 16, 4, w.dst, {2, 16, 8, 0}); },
       arch::kDevErrXchgDoubleWrite, 4, [](const Where& w) { return w.dst + 8; },
       [](const Where& w) { return "tile 3 send entry 1's runs of 16 bytes, 8 apart, both write tile 4 at " + hex32(w.dst + 8); }},
      {"no such node", [](B& b, const Where& w) { b.add_send(3, 0, w.src, 16, 999, w.dst, {2, 16, 16, 0}); },
       arch::kDevErrXchgBadDestination, 3, [](const Where&) { return 999u; },
       [](const Where&) { return "tile 3 send entry 1: destination node 999 does not exist"; }},
      // Runs at dst - 32, - 16 and dst: the first lands on slot 0's words.
      {"a run over another entry's write", [](B& b, const Where& w) { b.add_send(3, 0, w.src, 16, 4, w.dst - 32, {3, 16, 16, 0}); },
       arch::kDevErrXchgDoubleWrite, 4, [](const Where& w) { return w.dst - 32; },
       [](const Where& w) { return "tiles 3 and 3 both write tile 4 at " + hex32(w.dst - 32); }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    m->write_reg(arch::kDevRegControl, device::kControlReset);
    m->load_firmware(firmware_elf());
    handbuilt::ProgramBuilder b(n, layout_of(*m));
    Where w{b.alloc(3, 64), b.alloc(4, 64) + 32, 0};
    b.add_send(3, 0, w.src, 16, 4, w.dst - 32);
    c.add(b, w);
    b.program() = {arch::kCtlExchange, 0, arch::kCtlEnd};
    b.load(*m);
    // Tile 3's send list, from its header's exchange table.
    const auto header = handbuilt::read_words(*m, 3, m->firmware().header, sizeof(arch::TileHeader) / 4);
    w.list = handbuilt::read_words(*m, 3, header[offsetof(arch::TileHeader, exchanges) / 4], 1)[0];
    const std::string e = run_for_error(*m);
    std::printf("%s: %s\n", c.name, e.c_str());
    EXPECT_THAT(e, HasSubstr(c.says(w) + " in the exchange of superstep 0"));
    EXPECT_EQ(err(arch::kDevRegErrCause), arch::kDeviceErrorBit | c.cause);
    EXPECT_EQ(err(arch::kDevRegErrTile), c.tile);
    EXPECT_EQ(err(arch::kDevRegErrDetail), c.detail(w));
  }
  // The device runs a good strided program after all of them.
  m->write_reg(arch::kDevRegControl, device::kControlReset);
  m->load_firmware(firmware_elf());
  StridedSends s(n, 5);
  handbuilt::ProgramBuilder b(n, layout_of(*m));
  s.build(b, true);
  b.load(*m);
  ASSERT_EQ(run_for_error(*m), "");
  expect_memory(s.read(*m), s.reference(), "after the errors");
}

INSTANTIATE_TEST_SUITE_P(Modes, Strided, ::testing::Values(emu::Mode::kIss, emu::Mode::kNative),
                         [](const auto& info) { return std::string(mode_name(info.param)); });

}  // namespace
}  // namespace tessera::testing
