// The ISS's decoded blocks (sim/emu/include/tessera/emu/block.h) change nothing a program
// sees:
// - a block's cycle-model schedule gives the cycles of the instruction-by-instruction
//   model: the same programs run at once, in random budgets (blocks cut short), and one
//   instruction per run() (every instruction timed alone) end in the same state, cycle
//   counter included (the benchmarks' first 400,000 instructions, the ISA tests whole);
// - code written while it runs is seen at once: a store into the next instruction of the
//   same block, and code the host rewrites between two runs.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tessera/arch/tile_map.h"
#include "tessera/arch/targets.h"
#include "tessera/emu/tile.h"
#include "tessera/exe/elf.h"

namespace {

using tessera::emu::Halt;
using tessera::emu::StopReason;
using tessera::emu::Tile;

uint32_t sram_bytes() { return tessera::arch::find_target("tiny")->sram_bytes; }

struct State {
  uint64_t instret, cycle;
  uint32_t pc;
  Halt::Kind halt;
  uint32_t code;
  std::vector<uint32_t> regs;
};

State state(Tile& t) {
  const auto& h = t.hart();
  State s{h.instret(), h.cycle(), h.pc(), h.halt_info().kind, h.halt_info().code, {}};
  for (unsigned i = 0; i < 32; ++i) s.regs.push_back(h.x(i));
  for (unsigned i = 0; i < 32; ++i) s.regs.push_back(h.f(i));
  return s;
}

void expect_same(const State& a, const State& b, const std::string& what) {
  EXPECT_EQ(a.instret, b.instret) << what;
  EXPECT_EQ(a.cycle, b.cycle) << what;
  EXPECT_EQ(a.pc, b.pc) << what;
  EXPECT_EQ(a.halt, b.halt) << what;
  EXPECT_EQ(a.code, b.code) << what;
  EXPECT_EQ(a.regs, b.regs) << what;
}

std::unique_ptr<Tile> load(const tessera::exe::ElfImage& image, bool timing) {
  auto t = std::make_unique<Tile>(0, 1, sram_bytes());
  std::FILE* null = std::fopen("/dev/null", "w");
  t->set_console(null);  // leaked on purpose: the tile prints until it is destroyed
  t->load_elf(image);
  t->hart().set_timing(timing);
  return t;
}

// Runs the first `limit` instructions of `elf` at once, in random budgets of 1..40
// instructions, and one instruction per run; the states must agree.
void check_program(const std::string& elf, uint64_t limit, bool timing, std::mt19937_64& rng) {
  const auto image = tessera::exe::read_elf_file(elf);
  const std::string what = elf + (timing ? " (timed)" : " (untimed)");

  auto whole = load(image, timing);
  whole->hart().run(limit);
  if (limit == ~0ull) {
    ASSERT_EQ(whole->hart().halt_info().kind, Halt::Kind::kTohost) << what;
    EXPECT_EQ(whole->hart().halt_info().code, 0u) << what;
  }

  auto chunks = load(image, timing);
  std::uniform_int_distribution<uint64_t> budget(1, 40);
  for (uint64_t done = 0; done < limit;) {
    const uint64_t n = std::min(budget(rng), limit - done);
    if (chunks->hart().run(n) != StopReason::kBudget) break;
    done += n;
  }
  expect_same(state(*whole), state(*chunks), what + " in random budgets");

  auto steps = load(image, timing);
  for (uint64_t i = 0; i < limit && steps->hart().run(1) == StopReason::kBudget; ++i) {
  }
  expect_same(state(*whole), state(*steps), what + " one instruction per run");
}

TEST(Blocks, ScheduleGivesTheCyclesOfTheInstructionByInstructionModel) {
  const uint64_t seed = std::random_device{}();
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  const std::string dir = TESSERA_TILE_BIN_DIR;
  for (const char* prog : {"bench/int_bench.elf", "bench/fp_bench.elf"})
    for (bool timing : {true, false}) check_program(dir + "/" + prog, 400000, timing, rng);
  for (const char* name : {"alu-rr", "branch", "fence", "fp-arith", "fp-csr", "fp-fma", "iss-csr", "iss-traps",
                           "jump", "load-store", "muldiv", "trap", "trap-access", "zicsr"})
    check_program(dir + "/isa-tests/isa-" + std::string(name) + ".elf", ~0ull, true, rng);
}

// RV32I encodings for the hand-written programs below.
uint32_t addi(uint32_t rd, uint32_t rs1, int32_t imm) { return (uint32_t(imm) & 0xfff) << 20 | rs1 << 15 | rd << 7 | 0x13; }
uint32_t lui(uint32_t rd, uint32_t imm20) { return imm20 << 12 | rd << 7 | 0x37; }
uint32_t auipc(uint32_t rd) { return rd << 7 | 0x17; }
uint32_t sw(uint32_t rs2, uint32_t rs1, int32_t off) {
  return (uint32_t(off) >> 5 & 0x7f) << 25 | rs2 << 20 | rs1 << 15 | 2 << 12 | (uint32_t(off) & 0x1f) << 7 | 0x23;
}
constexpr uint32_t kA0 = 10, kA1 = 11, kT0 = 5;
constexpr uint32_t kLoop = 0x0000006f;  // jal zero, 0: a program's end, spinning

void put_code(Tile& t, const std::vector<uint32_t>& words) {
  std::memcpy(t.sram().data(), words.data(), 4 * words.size());
}

TEST(Blocks, StoreIntoTheNextInstructionIsSeenAtOnce) {
  for (bool timing : {true, false}) {
    Tile t(0, 1, sram_bytes());
    // The stored word replaces the instruction right after the store, in the same block.
    put_code(t, {auipc(kT0), lui(kA1, 0x05500), addi(kA1, kA1, 0x513) /* a1 = addi a0, zero, 0x55 */,
                 sw(kA1, kT0, 16), addi(kA0, 0, 1), addi(kA0, kA0, 2), kLoop});
    t.hart().set_timing(timing);
    t.hart().reset(tessera::arch::kSramBase);
    EXPECT_EQ(t.hart().run(100), StopReason::kBudget);
    EXPECT_EQ(t.hart().x(kA0), 0x55u + 2) << "timing " << timing;
    EXPECT_EQ(t.hart().instret(), 100u);
  }
}

TEST(Blocks, CodeRewrittenBetweenRunsIsSeen) {
  Tile t(0, 1, sram_bytes());
  put_code(t, {addi(kA0, 0, 7), addi(kA0, kA0, 1), kLoop});
  t.hart().reset(tessera::arch::kSramBase);
  t.hart().run(50);
  EXPECT_EQ(t.hart().x(kA0), 8u);
  EXPECT_EQ(t.hart().pc(), tessera::arch::kSramBase + 8);
  // The host (or an exchange) rewrites the spinning instruction between two runs, without
  // a reset: the next run executes the new one.
  const uint32_t patch[] = {addi(kA0, kA0, 1000), kLoop};
  std::memcpy(t.sram().data() + 8, patch, sizeof patch);
  t.hart().run(50);
  EXPECT_EQ(t.hart().x(kA0), 1008u);
  // And after a reset, the whole program anew.
  put_code(t, {addi(kA0, 0, 100), addi(kA0, kA0, 5), kLoop});
  t.hart().reset(tessera::arch::kSramBase);
  t.hart().run(50);
  EXPECT_EQ(t.hart().x(kA0), 105u);
}

}  // namespace
