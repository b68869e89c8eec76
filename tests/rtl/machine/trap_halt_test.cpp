// A tile that halts on a trap, on the machine RTL (rtl/top, verilated as VltMachine) and on
// the emulator: ERR_TILE, ERR_SUPERSTEP, ERR_CAUSE, ERR_DETAIL, ERR_PC and ERR_TVAL equal on
// both and equal to what the program implies (machine_test.cpp has the other comparisons).
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "ring.h"

namespace tessera::testing {
namespace {

// A tile that halts ON a trap (docs/isa.md "Traps": a trap while mtvec is 0, or at the
// handler's own first instruction), not through the runtime's handler (TrapInACodelet in machine_test.cpp,
// which exits with kExitTrap | mcause): ERR_CAUSE is the halting trap's mcause, ERR_DETAIL 0,
// ERR_PC and ERR_TVAL the halting trap's pc and tval, also when an earlier trap was taken.
// The trapping code is a codelet of the test's own: its words (encoded below) are written into
// the tile's memory and that tile's entry of the firmware's codelet table for `fill`, which
// the ring does not use, points at them; a `fill` vertex after the ring's copy calls it. The
// ERR_* registers of the RTL must equal the emulator's (ISS mode) and what the program says:
// the address of the halting instruction, the bad address or the instruction's bits.
namespace rv {
constexpr uint32_t kRa = 1, kT0 = 5, kT1 = 6, kT2 = 7, kA0 = 10;
constexpr uint32_t kMtvec = 0x305, kMepc = 0x341;
constexpr uint32_t i_type(uint32_t op, uint32_t f3, uint32_t rd, uint32_t rs1, int32_t imm) {
  return (static_cast<uint32_t>(imm) & 0xfff) << 20 | rs1 << 15 | f3 << 12 | rd << 7 | op;
}
constexpr uint32_t addi(uint32_t rd, uint32_t rs1, int32_t imm) { return i_type(0x13, 0, rd, rs1, imm); }
constexpr uint32_t lw(uint32_t rd, uint32_t rs1, int32_t imm) { return i_type(0x03, 2, rd, rs1, imm); }
constexpr uint32_t sw(uint32_t rs2, uint32_t rs1, int32_t imm) {
  const uint32_t i = static_cast<uint32_t>(imm) & 0xfff;
  return (i >> 5) << 25 | rs2 << 20 | rs1 << 15 | 2 << 12 | (i & 0x1f) << 7 | 0x23;
}
constexpr uint32_t bne(uint32_t rs1, uint32_t rs2, int32_t off) {
  const uint32_t o = static_cast<uint32_t>(off) & 0x1fff;
  return (o >> 12) << 31 | (o >> 5 & 0x3f) << 25 | rs2 << 20 | rs1 << 15 | 1 << 12 | (o >> 1 & 0xf) << 8 |
         (o >> 11 & 1) << 7 | 0x63;
}
constexpr uint32_t ret() { return i_type(0x67, 0, 0, kRa, 0); }  // jalr zero, 0(ra)
constexpr uint32_t csrw(uint32_t csr, uint32_t rs1) { return i_type(0x73, 1, 0, rs1, static_cast<int32_t>(csr)); }
constexpr uint32_t csrr(uint32_t rd, uint32_t csr) { return i_type(0x73, 2, rd, 0, static_cast<int32_t>(csr)); }
constexpr uint32_t kEcall = 0x00000073, kEbreak = 0x00100073, kMret = 0x30200073;
constexpr uint32_t kIllegal = 0xbad0000b;  // the custom-0 major opcode: no RV32IMF instruction
// li rd, value as lui + addi (always two words).
inline std::vector<uint32_t> li(uint32_t rd, uint32_t value) {
  const uint32_t lo = value & 0xfff, hi = (value + 0x800) & 0xfffff000u;
  return {hi | rd << 7 | 0x37, addi(rd, rd, static_cast<int32_t>(lo << 20) >> 20)};
}
}  // namespace rv

// A codelet's words as they are assembled, at the address they will have.
struct Code {
  uint32_t base = 0;
  std::vector<uint32_t> words;
  uint32_t here() const { return base + 4 * static_cast<uint32_t>(words.size()); }
  Code& operator<<(uint32_t w) {
    words.push_back(w);
    return *this;
  }
  Code& operator<<(const std::vector<uint32_t>& w) {
    words.insert(words.end(), w.begin(), w.end());
    return *this;
  }
};

uint32_t firmware_word(uint32_t addr) {
  for (const exe::ElfSegment& s : firmware_elf().segments)
    if (addr >= s.addr && addr + 4 <= s.addr + s.data.size()) {
      uint32_t w;
      std::memcpy(&w, s.data.data() + (addr - s.addr), 4);
      return w;
    }
  ADD_FAILURE() << "no firmware bytes at " << std::hex << addr;
  return 0;
}

// Puts `pad` words, then the codelet `assemble` writes (it is given its base address and
// returns where it is entered), on `tile` of `r`, points the tile's `fill` entry of the codelet
// table at it and adds a `fill` vertex with `state` (after the ring's copy, compute set 0).
// Returns the codelet's base address.
uint32_t install_codelet(Ring& r, uint32_t tile, uint32_t words, const std::function<uint32_t(Code&)>& assemble,
                         const std::vector<uint32_t>& state = {0, 0, 0}, uint32_t pad = 0) {
  // The table holds 5 words an entry (codelets.h: id, state_words, name, signature, fn).
  const uint32_t table = firmware_elf().symbol("tessera_codelet_table");
  const uint32_t fn = table + 20 * handbuilt::kCodelet_fill + 16;
  EXPECT_NE(table, 0u);
  EXPECT_EQ(firmware_word(fn), firmware_elf().symbol("codelet_fill")) << "the codelet table's layout changed";
  if (pad) r.b.alloc(tile, pad);
  Code c;
  c.base = r.b.alloc(tile, words);
  const uint32_t entry = assemble(c);
  EXPECT_EQ(c.words.size(), words);
  r.b.write(tile, c.base, c.words);
  r.b.write(tile, fn, {entry});
  r.b.add_vertex(tile, 0, handbuilt::kCodelet_fill, state);
  return c.base;
}

// What the ERR_* registers must show: from the program, not from either backend.
struct TrapHaltWant {
  uint32_t tile, superstep, cause, pc, tval;
};
struct TrapHalt {
  const char* name;
  std::function<TrapHaltWant(Ring&)> install;  // called once for each backend's ring
};

constexpr uint32_t kBadAddr = 0x40001234;  // neither SRAM nor the register block

const TrapHalt kTrapHalts[] = {
    // Tile 2 calls the codelet once a round; on the third call (superstep 3) it sets mtvec to 0
    // and runs an illegal instruction: mtval is the instruction's bits.
    {"IllegalInstructionWithMtvecZero",
     [](Ring& r) {
       uint32_t at = 0;
       install_codelet(r, 2, 8, [&](Code& c) {
         c << rv::lw(rv::kT0, rv::kA0, 0) << rv::addi(rv::kT0, rv::kT0, 1) << rv::sw(rv::kT0, rv::kA0, 0)
           << rv::addi(rv::kT1, 0, 3) << rv::bne(rv::kT0, rv::kT1, 12) << rv::csrw(rv::kMtvec, 0);
         at = c.here();
         c << rv::kIllegal << rv::ret();
         return c.base;
       });
       return TrapHaltWant{2, 3, 2, at, rv::kIllegal};
     }},
    // Tile 3, mtvec 0, loads from an address with no memory: mtval is the address.
    {"LoadAccessFaultWithMtvecZero",
     [](Ring& r) {
       uint32_t at = 0;
       install_codelet(r, 3, 5, [&](Code& c) {
         c << rv::csrw(rv::kMtvec, 0) << rv::li(rv::kT1, kBadAddr);
         at = c.here();
         c << rv::lw(rv::kT2, rv::kT1, 0) << rv::ret();
         return c.base;
       });
       return TrapHaltWant{3, 1, 5, at, kBadAddr};
     }},
    // Tiles 1 and 3 run the same instructions from the same release (tile 3's 32 bytes
    // further on) and halt in the same cycle on load faults at different addresses: the
    // lowest index, tile 1, is the error, with its own pc and tval, not tile 3's.
    {"TwoTilesHaltInTheSameCycleLowestIndexWins",
     [](Ring& r) {
       uint32_t at = 0;
       auto code = [&](Code& c) {
         c << rv::lw(rv::kT1, rv::kA0, 0) << rv::csrw(rv::kMtvec, 0);
         at = c.here();
         c << rv::lw(rv::kT2, rv::kT1, 0) << rv::ret();
         return c.base;
       };
       install_codelet(r, 3, 4, code, {0x40000300, 0, 0}, 8);
       install_codelet(r, 1, 4, code, {0x40000100, 0, 0});
       return TrapHaltWant{1, 1, 5, at, 0x40000100};
     }},
    // The same with four more instructions before tile 1's fault: tile 3 halts earlier and is
    // the error, as the machine takes the first bad halt in time (the emulator's cycle model
    // decides it; it used to take the lowest index halted after a round, tile 1).
    {"TheFirstBadHaltInTimeWins",
     [](Ring& r) {
       uint32_t at3 = 0;
       auto code = [&](uint32_t nops, uint32_t* at) {
         return [=](Code& c) {
           c << rv::lw(rv::kT1, rv::kA0, 0) << rv::csrw(rv::kMtvec, 0);
           for (uint32_t i = 0; i < nops; ++i) c << rv::addi(0, 0, 0);
           *at = c.here();
           c << rv::lw(rv::kT2, rv::kT1, 0) << rv::ret();
           return c.base;
         };
       };
       uint32_t at1 = 0;
       install_codelet(r, 3, 4, code(0, &at3), {0x40000300, 0, 0}, 8);
       install_codelet(r, 1, 8, code(4, &at1), {0x40000100, 0, 0});
       return TrapHaltWant{3, 1, 5, at3, 0x40000300};
     }},
    // Tile 2 installs a handler that steps over the trapping instruction, takes a misaligned
    // load (the first trap, in the first-trap latch), returns, sets mtvec to 0 and halts on an
    // illegal instruction: ERR_PC/ERR_TVAL are the second trap's.
    {"HandledTrapThenAHaltingOne",
     [](Ring& r) {
       uint32_t at = 0;
       install_codelet(r, 2, 11, [&](Code& c) {
         c << rv::csrr(rv::kT0, rv::kMepc) << rv::addi(rv::kT0, rv::kT0, 4) << rv::csrw(rv::kMepc, rv::kT0)
           << rv::kMret;
         const uint32_t entry = c.here();
         c << rv::li(rv::kT0, c.base) << rv::csrw(rv::kMtvec, rv::kT0) << rv::lw(rv::kT1, rv::kA0, 2)
           << rv::csrw(rv::kMtvec, 0);
         at = c.here();
         c << rv::kIllegal << rv::ret();
         return entry;
       });
       return TrapHaltWant{2, 1, 2, at, rv::kIllegal};
     }},
    // Tile 1: an ecall is taken into a handler whose first instruction faults (pc = mtvec).
    {"TrapAtTheHandlersFirstInstruction",
     [](Ring& r) {
       uint32_t handler = 0;
       install_codelet(r, 1, 8, [&](Code& c) {
         handler = c.base;
         c << rv::lw(rv::kT2, rv::kT1, 0);
         const uint32_t entry = c.here();
         c << rv::li(rv::kT1, kBadAddr) << rv::li(rv::kT0, c.base) << rv::csrw(rv::kMtvec, rv::kT0) << rv::kEcall
           << rv::ret();
         return entry;
       });
       return TrapHaltWant{1, 1, 5, handler, kBadAddr};
     }},
    // Tile 3: mtvec where there is no memory; an ebreak is taken and the fetch at mtvec faults.
    {"FetchFaultAtABadMtvec",
     [](Ring& r) {
       install_codelet(r, 3, 5, [&](Code& c) {
         c << rv::li(rv::kT0, 0x10000000) << rv::csrw(rv::kMtvec, rv::kT0) << rv::kEbreak << rv::ret();
         return c.base;
       });
       return TrapHaltWant{3, 1, 1, 0x10000000, 0x10000000};
     }},
};

void PrintTo(const TrapHalt& x, std::ostream* os) { *os << x.name; }

class TrapHalts : public ::testing::TestWithParam<TrapHalt> {};

TEST_P(TrapHalts, ReportTheHaltingTrapOnTheRtlAsOnTheEmulator) {
  const TrapHalt& x = GetParam();
  auto iss = make_emu(emu::Mode::kIss);
  auto rtl = make_vlt();
  Ring r1, r2;
  const TrapHaltWant want = x.install(r1);
  x.install(r2);
  const RunResult a = run_ring(*iss, r1), b = run_ring(*rtl, r2);
  for (const auto& [who, res] : {std::pair<const char*, const RunResult&>{"emulator", a}, {"RTL", b}}) {
    SCOPED_TRACE(who);
    EXPECT_EQ(res.events & device::kEventError, device::kEventError);
    EXPECT_EQ(res.err_tile, want.tile);
    EXPECT_EQ(res.err_superstep, want.superstep);
    EXPECT_EQ(res.err_cause, want.cause);
    EXPECT_EQ(res.err_detail, 0u);
    EXPECT_EQ(res.err_pc, want.pc) << std::hex << "ERR_PC " << res.err_pc << ", want " << want.pc;
    EXPECT_EQ(res.err_tval, want.tval) << std::hex << "ERR_TVAL " << res.err_tval << ", want " << want.tval;
  }
  EXPECT_EQ(a, b) << "emulator: " << iss->error_detail() << "\nRTL: " << rtl->error_detail();
}

INSTANTIATE_TEST_SUITE_P(Ring, TrapHalts, ::testing::ValuesIn(kTrapHalts),
                         [](const auto& i) { return std::string(i.param.name); });

}  // namespace
}  // namespace tessera::testing
