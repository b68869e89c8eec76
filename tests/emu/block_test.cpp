// The ISS's decoded blocks (sim/emu/include/tessera/emu/block.h) change nothing a program
// sees:
// - a block's cycle-model schedule gives the cycles of the instruction-by-instruction
//   model: the same programs run at once, in random budgets (blocks cut short), and one
//   instruction per run() (every instruction timed alone) end in the same state, cycle
//   counter included (the benchmarks' first 400,000 instructions, the ISA tests whole);
// - code written while it runs is seen at once: a store into the next instruction of the
//   same block, and code the host rewrites between two runs.
#include <gtest/gtest.h>
#include "tessera/testutil/seed.h"

#include <algorithm>
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
  const uint64_t seed = tessera::testutil::random_seed("block schedule");
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
uint32_t r_type(uint32_t f7, uint32_t f3, uint32_t rd, uint32_t rs1, uint32_t rs2) {
  return f7 << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 | rd << 7 | 0x33;
}
uint32_t add(uint32_t rd, uint32_t rs1, uint32_t rs2) { return r_type(0, 0, rd, rs1, rs2); }
uint32_t xor_(uint32_t rd, uint32_t rs1, uint32_t rs2) { return r_type(0, 4, rd, rs1, rs2); }
uint32_t mul(uint32_t rd, uint32_t rs1, uint32_t rs2) { return r_type(1, 0, rd, rs1, rs2); }
uint32_t i_type(uint32_t f3, uint32_t rd, uint32_t rs1, int32_t imm) {
  return (uint32_t(imm) & 0xfff) << 20 | rs1 << 15 | f3 << 12 | rd << 7 | 0x13;
}
uint32_t slli(uint32_t rd, uint32_t rs1, uint32_t sh) { return sh << 20 | rs1 << 15 | 1 << 12 | rd << 7 | 0x13; }
constexpr uint32_t kFenceI = 0x0000100f;
uint32_t lw(uint32_t rd, uint32_t rs1, int32_t off) { return (uint32_t(off) & 0xfff) << 20 | rs1 << 15 | 2 << 12 | rd << 7 | 0x03; }
uint32_t branch(uint32_t f3, uint32_t rs1, uint32_t rs2, int32_t off) {
  const uint32_t o = uint32_t(off);
  return (o >> 12 & 1) << 31 | (o >> 5 & 0x3f) << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 | (o >> 1 & 0xf) << 8 |
         (o >> 11 & 1) << 7 | 0x63;
}
uint32_t bne(uint32_t rs1, uint32_t rs2, int32_t off) { return branch(1, rs1, rs2, off); }
uint32_t bltu(uint32_t rs1, uint32_t rs2, int32_t off) { return branch(6, rs1, rs2, off); }
uint32_t csrrs(uint32_t rd, uint32_t csr, uint32_t rs1) { return csr << 20 | rs1 << 15 | 2 << 12 | rd << 7 | 0x73; }
uint32_t fmv_w_x(uint32_t fd, uint32_t rs1) { return 0xf0000053u | rs1 << 15 | fd << 7; }
uint32_t fadd_s(uint32_t fd, uint32_t fs1, uint32_t fs2) { return fs2 << 20 | fs1 << 15 | fd << 7 | 0x53; }
uint32_t fmadd_s(uint32_t fd, uint32_t fs1, uint32_t fs2, uint32_t fs3) {
  return fs3 << 27 | fs2 << 20 | fs1 << 15 | fd << 7 | 0x43;
}
constexpr uint32_t kA0 = 10, kA1 = 11, kA2 = 12, kA3 = 13, kA5 = 15, kT0 = 5, kT1 = 6, kT2 = 7;
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

// Loops of one block (Block::self_loop): their branch runs the block again without the
// block end and, where the passes leave nothing in flight, only counts the passes. Each
// program runs at once, in random budgets and one instruction per run (where no pass is
// ever counted: a budget of one runs the instruction alone), to the same state and cycle.
std::unique_ptr<Tile> code_tile(const std::vector<uint32_t>& words, bool timing) {
  auto t = std::make_unique<Tile>(0, 1, sram_bytes());
  put_code(*t, words);
  t->hart().set_timing(timing);
  t->hart().reset(tessera::arch::kSramBase);
  return t;
}

void check_code(const std::string& what, const std::vector<uint32_t>& words, uint64_t limit, std::mt19937_64& rng) {
  for (bool timing : {true, false}) {
    const std::string w = what + (timing ? " (timed)" : " (untimed)");
    auto whole = code_tile(words, timing);
    ASSERT_EQ(whole->hart().run(limit), StopReason::kBudget) << w;
    auto chunks = code_tile(words, timing);
    std::uniform_int_distribution<uint64_t> budget(1, 40);
    for (uint64_t done = 0; done < limit;) {
      const uint64_t n = std::min(budget(rng), limit - done);
      ASSERT_EQ(chunks->hart().run(n), StopReason::kBudget) << w;
      done += n;
    }
    expect_same(state(*whole), state(*chunks), w + " in random budgets");
    auto steps = code_tile(words, timing);
    for (uint64_t i = 0; i < limit; ++i) ASSERT_EQ(steps->hart().run(1), StopReason::kBudget) << w;
    expect_same(state(*whole), state(*steps), w + " one instruction per run");
    const auto same_sram = [](Tile& a, Tile& b) { return std::ranges::equal(a.sram(), b.sram()); };
    EXPECT_TRUE(same_sram(*whole, *chunks)) << w << ": SRAM differs in random budgets";
    EXPECT_TRUE(same_sram(*whole, *steps)) << w << ": SRAM differs one instruction per run";
  }
}

TEST(Blocks, LoopsOfOneBlockGiveTheInstructionByInstructionCycles) {
  const uint64_t seed = std::random_device{}();
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  // ALU passes: the loop runs 50 times, then spins (jal to itself: a block end each time).
  check_code("alu loop",
             {addi(kT0, 0, 50), addi(kA0, 0, 3), xor_(kA0, kA0, kT0), slli(kA1, kA0, 3), add(kA0, kA0, kA1),
              addi(kT0, kT0, -1), bne(kT0, 0, -16), kLoop},
             400, rng);
  // Loads (reading the code) and a multiply: a load's result is used in the next pass, and
  // on the way out right after the branch falls through.
  check_code("load loop",
             {auipc(kT1), addi(kT0, 0, 12), lw(kA2, kT1, 0), add(kA0, kA0, kA2), mul(kA1, kA2, kA0),
              addi(kT1, kT1, 4), addi(kT0, kT0, -1), bltu(0, kT0, -20), add(kA3, kA2, kA1), kLoop},
             300, rng);
  // Loops nested: the inner loop of one block is entered 20 times, counted passes applied
  // each time it is left.
  check_code("nested loops",
             {addi(kT2, 0, 20), addi(kT0, 0, 7), addi(kA0, kA0, 1), addi(kT0, kT0, -1), bne(kT0, 0, -8),
              addi(kT2, kT2, -1), bne(kT2, 0, -20), kLoop},
             500, rng);
  // FP: an fmadd still in flight when the loop is left (not taken), and when the loop is
  // entered from a block that ends with one in flight; fflags read by a CSR after.
  check_code("fp loop",
             {lui(kT1, 2), csrrs(0, 0x300, kT1) /* mstatus.FS = initial */, lui(kA0, 0x3f800),
              fmv_w_x(1, kA0) /* f1 = 1.0 */, addi(kT0, 0, 9), fmadd_s(2, 1, 1, 2), bne(0, 0, 8) /* never */,
              fmadd_s(0, 1, 2, 0), addi(kT0, kT0, -1), bne(kT0, 0, -8), fadd_s(3, 0, 2), csrrs(kA5, 1, 0),
              kLoop},
             200, rng);
}

// The loop's branch is overwritten by a store in the loop's own block: the store ends the
// block, and the next instruction is the new one, not the branch that ran the loop again.
TEST(Blocks, StoreIntoALoopsOwnBranchIsSeenAtOnce) {
  for (bool timing : {true, false}) {
    // a1 = addi a3, zero, 9, stored over the bne at offset 24 in the first pass.
    auto t = code_tile({auipc(kT1), lui(kA1, 0x00900), addi(kA1, kA1, 0x693), addi(kT0, 0, 5),
                        addi(kA0, kA0, 1), sw(kA1, kT1, 24), bne(kT0, 0, -8), addi(kA2, 0, 7), kLoop},
                       timing);
    EXPECT_EQ(t->hart().run(100), StopReason::kBudget);
    EXPECT_EQ(t->hart().x(kA0), 1u) << "timing " << timing;
    EXPECT_EQ(t->hart().x(kA3), 9u) << "timing " << timing;
    EXPECT_EQ(t->hart().x(kA2), 7u) << "timing " << timing;
  }
}

// Fused pairs (two adjacent ALU instructions run by one handler, sim/emu/src/fused_pairs.h).
// Every check runs the code at once (with pairs), in random budgets (a budget that ends
// between the two runs the first alone) and one instruction per run (never a pair), to
// the same state and cycle; the expected registers come from the program's own arithmetic.

// The second of a pair is a branch's target: the branch enters it alone, in a block of its
// own, and the pair before it is not run again.
TEST(Blocks, APairsSecondCanBeABranchTarget) {
  // Pairs from the block's start: (addi t2, addi a0), (slli a1, add a2); then addi t0 and
  // bltu t0 < t2 (3) back to the add, the second of a pair, which accumulates.
  const std::vector<uint32_t> code = {addi(kT2, 0, 3), addi(kA0, 0, 1), slli(kA1, kA0, 4), add(kA2, kA2, kA1),
                                      addi(kT0, kT0, 1), bltu(kT0, kT2, -8), kLoop};
  for (bool timing : {true, false}) {
    auto t = code_tile(code, timing);
    t->hart().run(100);
    // slli once (a1 = 16), add three times (a2 = 48): a pair run again would shift again.
    EXPECT_EQ(t->hart().x(kA1), 16u) << "timing " << timing;
    EXPECT_EQ(t->hart().x(kA2), 48u) << "timing " << timing;
    EXPECT_EQ(t->hart().x(kT0), 3u) << "timing " << timing;
  }
  std::mt19937_64 rng(tessera::testutil::random_seed("pair's second as a branch target"));
  check_code("jump into a pair's second", code, 100, rng);
}

// The second of a pair that already ran is rewritten, by a store in the pair's own loop
// (which ends the block) and by a store and fence.i in another block: the next pass runs
// the new instruction (which makes another pair with the first), not the pair decoded before.
TEST(Blocks, APairsSecondRewrittenIsSeen) {
  for (bool fence : {false, true}) {
    // t1 = the code's address; a3 = `addi a1, zero, 0x55`; a4 = the word at 24 (add a1, a2, a2).
    // Each pass stores a4 over the add, then sets a4 = a3: the first pass stores the add
    // itself, the later ones the addi.
    std::vector<uint32_t> code = {auipc(kT1), lui(kA3, 0x05500), addi(kA3, kA3, 0x593), lw(14, kT1, 24),
                                  addi(kT2, 0, 4),
                                  // 20: the loop. (addi a2, add a1) is a pair, then (addi a2, addi a1).
                                  addi(kA2, kA2, 1), add(kA1, kA2, kA2), add(kA0, kA0, kA1), sw(14, kT1, 24),
                                  addi(14, kA3, 0)};
    if (fence) code.push_back(kFenceI);
    const int32_t back = -4 * static_cast<int32_t>(code.size() + 1 - 5);
    code.push_back(addi(kT0, kT0, 1));
    code.push_back(bltu(kT0, kT2, back));
    code.push_back(kLoop);
    const std::string what = fence ? "store and fence.i" : "store in the pair's block";
    for (bool timing : {true, false}) {
      auto t = code_tile(code, timing);
      t->hart().run(200);
      // Passes 1 and 2 double a2 (2, 4), passes 3 and 4 run the addi (0x55 each).
      EXPECT_EQ(t->hart().x(kA0), 2u + 4u + 0x55u + 0x55u) << what << ", timing " << timing;
      EXPECT_EQ(t->hart().x(kA1), 0x55u) << what << ", timing " << timing;
    }
    std::mt19937_64 rng(tessera::testutil::random_seed("pair's second rewritten"));
    check_code(what, code, 200, rng);
  }
  // The host rewrites the second of a pair between two runs.
  auto t = code_tile({addi(kA0, 0, 5), addi(kA1, kA0, 1), kLoop}, true);
  t->hart().run(20);
  EXPECT_EQ(t->hart().x(kA1), 6u);
  const uint32_t patch[] = {addi(kA1, kA0, 100)};
  std::memcpy(t->sram().data() + 4, patch, sizeof patch);
  t->hart().reset(tessera::arch::kSramBase);
  t->hart().run(20);
  EXPECT_EQ(t->hart().x(kA1), 105u);
}

// A block ends after 32 instructions: the last of one block and the first of the next
// (which would make a pair) each run alone, and a budget that ends between the two of a
// pair runs only the first.
TEST(Blocks, PairsStopAtTheBlockEndAndTheBudget) {
  // sltiu (in no pair) first, then 33 `addi a0, a0, k` with k = 1, 2, 4, ...: instructions
  // 1..31 of the first block make 15 pairs and one left over, the 32nd addi starts the next.
  std::vector<uint32_t> code = {i_type(3, kA1, 0, 1)};
  uint32_t expect = 0;
  for (int k = 0; k < 33; ++k) {
    code.push_back(addi(kA0, kA0, 1 << (k % 11)));
    expect += 1u << (k % 11);
  }
  code.push_back(kLoop);
  for (bool timing : {true, false}) {
    auto t = code_tile(code, timing);
    t->hart().run(100);
    EXPECT_EQ(t->hart().x(kA0), expect) << "timing " << timing;
    EXPECT_EQ(t->hart().instret(), 100u) << "timing " << timing;
    // Budgets that end inside the first pair: one instruction, then one more.
    auto u = code_tile(code, timing);
    EXPECT_EQ(u->hart().run(2), StopReason::kBudget);
    EXPECT_EQ(u->hart().x(kA0), 1u) << "timing " << timing;
    EXPECT_EQ(u->hart().instret(), 2u) << "timing " << timing;
    EXPECT_EQ(u->hart().run(1), StopReason::kBudget);
    EXPECT_EQ(u->hart().x(kA0), 3u) << "timing " << timing;
    EXPECT_EQ(u->hart().pc(), tessera::arch::kSramBase + 12) << "timing " << timing;
  }
  std::mt19937_64 rng(tessera::testutil::random_seed("pairs at the block end"));
  check_code("pairs at the block end", code, 100, rng);
}

// Every ordered pair of the ALU ops the fused pairs use (and others), each twice, with
// random immediates and registers (x0 among them, the second often using the first's
// result or writing the same register): each pair's sources are loaded with random words
// first (a load is in no pair, so each ALU pair is taken as a pair where it is one), both
// results are stored after it, and the whole run must leave the registers and SRAM of one
// instruction per run and of random budgets, timed and untimed.
TEST(Blocks, EveryPairOfAluOpsGivesEachInstructionsResult) {
  std::mt19937_64 rng(tessera::testutil::random_seed("every pair of ALU ops"));
  std::uniform_int_distribution<uint32_t> reg(0, 15), imm12(0, 0xfff), sh(0, 31), imm20(0, 0xfffff), word;
  std::uniform_int_distribution<int32_t> slot(0, 255);
  std::bernoulli_distribution half(0.5), quarter(0.25);
  // One instruction of each op.
  const auto make = [&](int op, uint32_t rd, uint32_t rs1, uint32_t rs2) -> uint32_t {
    switch (op) {
      case 0: return lui(rd, imm20(rng));
      case 1: return auipc(rd) | imm20(rng) << 12;
      case 2: return i_type(0, rd, rs1, static_cast<int32_t>(imm12(rng)));  // addi
      case 3: return i_type(7, rd, rs1, static_cast<int32_t>(imm12(rng)));  // andi
      case 4: return i_type(6, rd, rs1, static_cast<int32_t>(imm12(rng)));  // ori
      case 5: return i_type(4, rd, rs1, static_cast<int32_t>(imm12(rng)));  // xori
      case 6: return slli(rd, rs1, sh(rng));
      case 7: return i_type(5, rd, rs1, static_cast<int32_t>(sh(rng)));  // srli
      case 8: return i_type(5, rd, rs1, static_cast<int32_t>(sh(rng) | 0x400));  // srai
      case 9: return add(rd, rs1, rs2);
      case 10: return r_type(0x20, 0, rd, rs1, rs2);  // sub
      case 11: return r_type(0, 7, rd, rs1, rs2);  // and
      case 12: return r_type(0, 6, rd, rs1, rs2);  // or
      case 13: return xor_(rd, rs1, rs2);
      case 14: return r_type(0, 1, rd, rs1, rs2);  // sll
      case 15: return r_type(0, 5, rd, rs1, rs2);  // srl
      case 16: return r_type(0x20, 5, rd, rs1, rs2);  // sra
      case 17: return r_type(0, 2, rd, rs1, rs2);  // slt
      case 18: return r_type(0, 3, rd, rs1, rs2);  // sltu
      default: return mul(rd, rs1, rs2);
    }
  };
  constexpr int kOps = 20;
  constexpr uint32_t kData = 0xa000, kOut = 0xb000;  // SRAM offsets: 256 random words, the results
  constexpr uint32_t kDataReg = 20, kOutReg = 21;
  std::vector<uint32_t> code = {lui(kDataReg, (tessera::arch::kSramBase + kData) >> 12),
                                lui(kOutReg, (tessera::arch::kSramBase + kOut) >> 12)};
  for (int a = 0; a < kOps; ++a)
    for (int b = 0; b < kOps; ++b)
      for (int k = 0; k < 2; ++k) {
        const uint32_t rd = reg(rng), rs1 = reg(rng), rs2 = reg(rng);
        const uint32_t rd2 = quarter(rng) ? rd : reg(rng), rs1b = half(rng) ? rd : reg(rng), rs2b = half(rng) ? rd : reg(rng);
        for (uint32_t r : {rs1, rs2, rs1b, rs2b}) code.push_back(lw(r, kDataReg, 4 * slot(rng)));
        code.push_back(make(a, rd, rs1, rs2));
        code.push_back(make(b, rd2, rs1b, rs2b));
        code.push_back(sw(rd, kOutReg, 0));
        code.push_back(sw(rd2, kOutReg, 4));
        code.push_back(addi(kOutReg, kOutReg, 8));
      }
  code.push_back(kLoop);
  const uint64_t limit = code.size() + 10;
  ASSERT_LE(4 * code.size(), kData);
  code.resize(kData / 4);
  for (int i = 0; i < 256; ++i) code.push_back(word(rng));
  check_code("every pair of ALU ops", code, limit, rng);
}

}  // namespace
