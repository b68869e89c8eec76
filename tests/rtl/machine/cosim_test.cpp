// Co-simulation of whole programs on `tiny` (sim/vlt/machine/cosim.h): each executable runs on
// the emulator (ISS) and the machine RTL superstep by superstep, and every tile's memory from
// the firmware's end must be equal at every release, host sync and the end. A word corrupted
// in the RTL's memory must be reported with its tile, superstep and address. The calibration
// test compares the compute phases' cycles of both (docs/machine-rtl.md, "Calibration").
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <unistd.h>

#include "examples.h"
#include "program_builder.h"
#include "strided_sends.h"
#include "tessera/arch/tile_map.h"
#include "tessera/exe/file.h"
#include "tessera/passes/passes.h"
#include "tessera/vlt/cosim.h"
#include "firmware_fixture.h"
#include "tiny_graph.h"
#include "to_executable.h"

namespace tessera::testing {
namespace {


exe::Executable tiny_graph_exe() {
  passes::CompileOptions o = firmware_compile_options();
  return passes::compile(tiny_graph(), o);
}

// A ring on the four tiles, `rounds` times: every tile sends its `out` to the next tile's
// `in` (exchange 0), then copies `in` to `out` (compute set 0). Tile t moves `words(t)`
// words, so the compute phases have different lengths and a different slowest tile.
struct RingExe {
  exe::Executable e;
  std::vector<uint32_t> in, out;  // per tile
};
RingExe ring(uint32_t rounds, uint32_t words0, uint32_t words_step) {
  handbuilt::ProgramBuilder b(4, handbuilt::firmware_layout(firmware_elf(), tiny()));
  auto words = [&](uint32_t t) { return words0 + words_step * ((t + 1) % 4); };
  std::vector<uint32_t> in(4), out(4);
  for (uint32_t t = 0; t < 4; ++t) {
    std::vector<uint32_t> w;
    for (uint32_t i = 0; i < 512; ++i) w.push_back(t << 24 | (i * 2654435761u >> 8));
    out[t] = b.put(t, w);
    in[t] = b.alloc(t, 512);
  }
  for (uint32_t t = 0; t < 4; ++t) {
    const uint32_t n = words((t + 1) % 4);  // what tile t+1 copies back
    b.add_send(t, 0, out[t], n * 4, (t + 1) % 4, in[(t + 1) % 4]);
    b.expect((t + 1) % 4, 0, n);
  }
  for (uint32_t t = 0; t < 4; ++t) b.add_vertex(t, 0, handbuilt::kCodelet_copy, {out[t], in[t], words(t)});
  b.program() = {arch::kCtlRepeat, rounds, 4, arch::kCtlExchange, 0, arch::kCtlExecute, 0, arch::kCtlEnd};
  return {handbuilt::to_executable(b, tiny(), firmware_bytes(), "main"), in, out};
}
exe::Executable ring_exe(uint32_t rounds, uint32_t words0, uint32_t words_step) {
  return ring(rounds, words0, words_step).e;
}

void expect_equal(const vlt::CosimResult& r, uint32_t min_compared) {
  EXPECT_TRUE(r.ok) << r.error;
  EXPECT_FALSE(r.mismatch.has_value());
  EXPECT_GE(r.compared, min_compared);
  std::printf("cosim: %u memory comparisons, %zu supersteps, %llu RTL cycles, %.2f s\n", r.compared, r.steps.size(),
              static_cast<unsigned long long>(r.rtl_cycles), r.seconds);
}

TEST(Cosim, TinyGraph) {
  vlt::CosimOptions o;
  o.programs = {"main", "back", "main"};
  o.log = stdout;
  expect_equal(vlt::cosimulate(tiny_graph_exe(), o), 6);
}

TEST(Cosim, Ring) {
  vlt::CosimOptions o;
  o.log = stdout;
  const vlt::CosimResult r = vlt::cosimulate(ring_exe(5, 4, 0), o);
  expect_equal(r, 6);  // 5 releases and the end
  EXPECT_EQ(r.steps.size(), 5u);
}

// The comparison can fail, and says where: one word of tile 2 (the last word of its SRAM,
// which the program never touches, so nothing else differs) written on the RTL alone right
// after superstep 3's release shows at the end of superstep 4 (the next comparison), and
// nothing shows before.
TEST(Cosim, DetectsCorruption) {
  const uint32_t tile = 2, addr = arch::kSramBase + tiny().sram_bytes - 4, value = 0xdeadbeef;
  vlt::CosimOptions o;
  o.log = stdout;
  uint32_t injected = 0;
  o.after_superstep = [&](vlt::VltMachine& m, const std::string&, uint32_t s) {
    if (s != 3) return;
    m.poke_word(tile, addr, value);
    ++injected;
  };
  const vlt::CosimResult r = vlt::cosimulate(ring_exe(6, 8, 0), o);
  ASSERT_EQ(injected, 1u);
  EXPECT_FALSE(r.ok);
  ASSERT_TRUE(r.mismatch.has_value()) << r.error;
  std::printf("reported: %s\n", r.error.c_str());
  const vlt::CosimMismatch& m = *r.mismatch;
  EXPECT_EQ(m.program, "main");
  EXPECT_EQ(m.tile, tile);
  EXPECT_EQ(m.superstep, 4u);
  EXPECT_EQ(m.addr, addr);
  EXPECT_EQ(m.emu_value, 0u);
  EXPECT_EQ(m.rtl_value, value);
  EXPECT_EQ(m.words_differing, 1u);
  EXPECT_EQ(r.steps.size(), 4u);  // supersteps 0..3 compared equal
  EXPECT_NE(r.error.find("tile 2"), std::string::npos);
}

// A corrupted word the program reads: tile 1's `in[0]`, written right after superstep 2's
// release, is copied to its `out[0]` by superstep 3's compute and sent on to tile 2's `in` by
// its exchange, which also writes tile 1's `in[0]` again (with the right word): at the end of
// superstep 3 tile 1 (the lowest tile that differs) differs in `out[0]` alone.
TEST(Cosim, DetectsCorruptionOfDataInUse) {
  const RingExe r6 = ring(6, 8, 0);
  ASSERT_LT(r6.out[1], r6.in[1]);
  vlt::CosimOptions o;
  o.after_superstep = [&](vlt::VltMachine& m, const std::string&, uint32_t s) {
    if (s == 2) m.poke_word(1, r6.in[1], 0x12345678);
  };
  const vlt::CosimResult r = vlt::cosimulate(r6.e, o);
  ASSERT_TRUE(r.mismatch.has_value()) << r.error;
  std::printf("reported: %s\n", r.error.c_str());
  EXPECT_EQ(r.mismatch->tile, 1u);
  EXPECT_EQ(r.mismatch->superstep, 3u);
  EXPECT_EQ(r.mismatch->addr, r6.out[1]);
  EXPECT_EQ(r.mismatch->rtl_value, 0x12345678u);
  EXPECT_EQ(r.mismatch->words_differing, 1u);
}

// The emulator's cycle model against the RTL: compute phases (release to the last arrival)
// within 5%; barrier and exchange phases are printed.
TEST(Cosim, CalibrationOfComputePhases) {
  vlt::CosimOptions o;
  const vlt::CosimResult r = vlt::cosimulate(ring_exe(4, 64, 96), o);
  ASSERT_TRUE(r.ok) << r.error;
  const double worst = vlt::print_calibration(r.steps, stdout);
  EXPECT_LE(worst, 0.05);
}

// Strided send-list entries (handbuilt::StridedSends: conv-like windows, gaps, a broadcast
// from one source run, one-run and empty strided entries) on the RTL's exchange engine: the
// memory of every tile equal to the emulator's at both releases and the end, built strided
// and as the same transfers in plain entries. The exchange phases (last arrival to release)
// agree with the emulator's model within 5%, and the slots the strided lists save show on
// the RTL as in the model.
TEST(Cosim, StridedSendEntries) {
  const uint32_t seed = 11;
  std::printf("seed %u\n", seed);
  handbuilt::StridedSends s(4, seed);
  uint64_t emu_sync[2] = {0, 0}, rtl_sync[2] = {0, 0};
  for (bool strided : {false, true}) {
    handbuilt::ProgramBuilder b(4, handbuilt::firmware_layout(firmware_elf(), tiny()));
    s.build(b, strided);
    vlt::CosimOptions o;
    const vlt::CosimResult r = vlt::cosimulate(handbuilt::to_executable(b, tiny(), firmware_bytes(), "main"), o);
    std::printf("%s (%u slots a tile):\n", strided ? "strided" : "plain", s.slots(0, strided));
    expect_equal(r, 3);  // 2 releases and the end
    ASSERT_EQ(r.steps.size(), handbuilt::StridedSends::kRounds);
    vlt::print_calibration(r.steps, stdout);
    for (const vlt::CosimStep& c : r.steps) {
      const double err = (double(c.rtl_sync) - double(c.emu_sync)) / double(c.emu_sync);
      EXPECT_LE(std::abs(err), 0.05) << "superstep " << c.superstep << ": emulator " << c.emu_sync << ", RTL " << c.rtl_sync;
    }
    emu_sync[strided] = r.steps[0].emu_sync;
    rtl_sync[strided] = r.steps[0].rtl_sync;
  }
  std::printf("exchange + barrier: plain %llu / %llu, strided %llu / %llu (emulator / RTL)\n",
              static_cast<unsigned long long>(emu_sync[0]), static_cast<unsigned long long>(rtl_sync[0]),
              static_cast<unsigned long long>(emu_sync[1]), static_cast<unsigned long long>(rtl_sync[1]));
  EXPECT_LT(rtl_sync[1], rtl_sync[0]);
}

// The tool: --cosim on an executable file, and --inject reported with tile and superstep.
TEST(Cosim, Tool) {
  // Named per process: two builds running their tests at once share the temp folder.
  const std::string path = ::testing::TempDir() + "ring_cosim_" + std::to_string(::getpid()) + ".tsx";
  exe::write_file(ring_exe(5, 4, 0), path);
  auto run = [&](const std::string& args) {
    const std::string cmd = std::string(TESSERA_VLT_MACHINE_TOOL) + " " + path + " " + args + " > " + path + ".log 2>&1";
    const int rc = std::system(cmd.c_str());
    std::ifstream log(path + ".log");
    return std::make_pair(rc, std::string((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>()));
  };
  const auto [rc0, good] = run("--cosim --calibrate");
  EXPECT_EQ(rc0, 0) << good;
  EXPECT_NE(good.find("equal at every superstep"), std::string::npos) << good;
  const auto [rc1, bad] = run("--cosim --inject 3:0x8000fffc:7@1");
  EXPECT_NE(rc1, 0) << bad;
  EXPECT_NE(bad.find("superstep 2 (release): tile 3, address 0x8000fffc: emulator 0x00000000, RTL 0x00000007"),
            std::string::npos)
      << bad;
  std::remove(path.c_str());
  std::remove((path + ".log").c_str());
}

}  // namespace
}  // namespace tessera::testing
