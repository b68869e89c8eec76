// tessera-firmware.elf itself, on one emulated tile (the ISS): its layout symbols, its
// codelet table as data, and the hand-built control programs of scenarios.h, which must
// stop at the same barriers with the same registers and halt with the same EXIT codes as
// in native mode (interpreter_test.cpp). This test plays the machine for one tile: it
// fills the header, runs the core until it blocks on SYNC, records the register block's
// latch, releases it, and so on.
#include <gtest/gtest.h>

#include "runtime/native.h"
#include "scenarios.h"
#include "tessera/emu/tile.h"
#include "tessera/exe/elf.h"
#include "tessera/exe/firmware_layout.h"

namespace {

using namespace tessera;
using namespace tessera::fwtest;

constexpr uint32_t kSramBytes = 64 * 1024;

const exe::ElfImage& firmware() {
  static const exe::ElfImage image = exe::read_elf_file(TESSERA_FIRMWARE_ELF);
  return image;
}

TEST(FirmwareElf, Layout) {
  const exe::ElfImage& elf = firmware();
  const uint32_t header = elf.symbol(fw::kSymTileHeader), text_end = elf.symbol(fw::kSymTextEnd);
  const uint32_t stack_bottom = elf.symbol(fw::kSymStackBottom),
                 stack_top = elf.symbol(fw::kSymStackTop);
  const uint32_t end = elf.symbol(fw::kSymFirmwareEnd);
  EXPECT_EQ(elf.entry, kSramBase);
  EXPECT_GT(text_end, kSramBase);
  EXPECT_GE(header, text_end);
  EXPECT_EQ(header % 64, 0u);
  EXPECT_GE(stack_bottom, header + sizeof(TileHeader));
  EXPECT_EQ(stack_top - stack_bottom, 4096u);
  EXPECT_GE(end, stack_top);
  EXPECT_EQ(end % 4096, 0u);
  EXPECT_LE(end - kSramBase, 24u * 1024) << "the firmware's budget: 24 KiB with its stack (link.ld)";
  for (const exe::ElfSegment& s : elf.segments)
    EXPECT_LE(s.addr + s.mem_bytes, end) << "a segment beyond __firmware_end";
  // The one layout type every device and the compiler read gives the same addresses.
  const exe::FirmwareLayout l = exe::firmware_layout(elf);
  EXPECT_EQ(l.entry, elf.entry);
  EXPECT_EQ(l.header, header);
  EXPECT_EQ(l.text_end, text_end);
  EXPECT_EQ(l.stack_bottom, stack_bottom);
  EXPECT_EQ(l.stack_top, stack_top);
  EXPECT_EQ(l.firmware_end, end);
  std::printf(
      "firmware: text_end 0x%08x header 0x%08x stack 0x%08x-0x%08x end 0x%08x (%u bytes of "
      "code+rodata)\n",
      text_end, header, stack_bottom, stack_top, end, text_end - kSramBase);
}

// The table in the ELF (what the compiler reads) is the table of the native build.
TEST(FirmwareElf, CodeletTableMatchesTheNativeBuild) {
  const exe::ElfImage& elf = firmware();
  std::vector<uint8_t> sram(kSramBytes);
  exe::place_elf(elf, sram.data(), kSramBase, kSramBytes);
  TileImage m(sram, 0, 0);
  auto str = [&](uint32_t addr) {
    std::string s;
    for (uint32_t a = addr; sram.at(a - kSramBase); ++a)
      s += static_cast<char>(sram.at(a - kSramBase));
    return s;
  };
  const uint32_t count = m.get(elf.symbol(fw::kSymCodeletCount)),
                 table = elf.symbol(fw::kSymCodeletTable);
  ASSERT_EQ(count, fw::tessera_codelet_count);
  for (uint32_t i = 0; i < count; ++i) {
    const uint32_t e = table + 20 * i;  // {id, state_words, name, signature, fn}
    const fw::CodeletInfo& c = fw::tessera_codelet_table[i];
    EXPECT_EQ(m.get(e), c.id) << c.name;
    EXPECT_EQ(m.get(e + 4), c.state_words) << c.name;
    EXPECT_EQ(str(m.get(e + 8)), c.name);
    EXPECT_EQ(str(m.get(e + 12)), c.signature);
    EXPECT_EQ(m.get(e + 16), elf.symbol(std::string("codelet_") + c.name)) << c.name;
  }
}

class IssScenario : public testing::TestWithParam<Scenario> {};

TEST_P(IssScenario, StopsAsInNativeMode) {
  const Scenario& s = GetParam();
  const exe::ElfImage& elf = firmware();
  emu::Tile tile(0, 1, kSramBytes);
  tile.set_console(stderr);
  tile.load_elf(elf);
  TileImage image(tile.sram(), elf.symbol(fw::kSymTileHeader), elf.symbol(fw::kSymFirmwareEnd));
  s.build(image);

  std::vector<Stop> stops;
  for (uint32_t superstep = 1; stops.size() < 100; ++superstep) {
    const emu::StopReason why = tile.hart().run(10'000'000);
    ASSERT_NE(why, emu::StopReason::kBudget) << "the firmware neither synced nor halted";
    if (why == emu::StopReason::kHalted) {
      const emu::Halt& h = tile.hart().halt_info();
      ASSERT_EQ(h.kind, emu::Halt::Kind::kExit)
          << "halted in hardware (cause " << h.code << ", pc 0x" << std::hex << h.pc
          << "), not through EXIT";
      stops.push_back(halt_stop(h.code));
      break;
    }
    // Blocked on its SYNC read: take the latch, play the machine, release.
    const emu::SyncState& l = tile.sync();
    ASSERT_TRUE(l.arrived);
    stops.push_back(
        Stop{false, 0, l.kind, l.xchg_started, l.xchg_list, l.xchg_entries, l.recv_expect});
    if (s.between) s.between(stops.size() - 1, image);
    tile.sync() = {};
    tile.set_superstep(superstep);
  }
  EXPECT_EQ(stops, s.expected);
  if (s.check) s.check(image);
  const emu::TrapLatch& trap = tile.hart().trap_latch();
  if (s.expected.back().exit_code & kExitTrap) {
    EXPECT_TRUE(trap.valid);
    EXPECT_EQ(trap.cause, s.expected.back().exit_code & ~kExitTrap);
  } else {
    EXPECT_FALSE(trap.valid) << "trap cause " << trap.cause << " at pc 0x" << std::hex << trap.pc;
  }
}

std::string scenario_name(const testing::TestParamInfo<Scenario>& info) {
  std::string n;
  for (char c : info.param.name) n += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(FirmwareElf, IssScenario, testing::ValuesIn(all_scenarios()),
                         scenario_name);

}  // namespace
