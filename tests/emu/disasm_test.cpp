// The disassembler (and through it the decoder) against GNU objdump, an independent
// reference: every instruction of every tile ELF the build produced must read the same.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <random>
#include <regex>
#include <sstream>
#include <string>

#include "tessera/emu/csr.h"
#include "tessera/emu/decode.h"
#include "tessera/emu/disasm.h"

namespace {

// "fadd.s  fa0, fa1, fa2" and "fadd.s\tfa0,fa1,fa2 # note" both become "fadd.s fa0,fa1,fa2".
std::string normalise(std::string s) {
  if (auto hash = s.find(" #"); hash != std::string::npos) s.resize(hash);
  if (auto lt = s.find(" <"); lt != std::string::npos) s.resize(lt);
  std::string out;
  bool in_space = false;
  for (char c : s) {
    if (c == ' ' || c == '\t') {
      in_space = true;
      continue;
    }
    if (in_space && !out.empty() && out.back() != ',' && out.find(' ') == std::string::npos) out += ' ';
    in_space = false;
    out += c;
  }
  return out;
}

std::vector<std::filesystem::path> tile_elfs() {
  std::vector<std::filesystem::path> elfs;
  for (const auto& e : std::filesystem::recursive_directory_iterator(TESSERA_TILE_BIN_DIR))
    if (e.path().extension() == ".elf") elfs.push_back(e.path());
  return elfs;
}

struct Comparison {
  size_t compared = 0, mismatches = 0;
};

// Runs objdump and compares each instruction line it prints with our disassembly.
// Without symbols (raw binaries) objdump writes jump and branch targets with a 0x prefix.
void compare_with_objdump(const std::string& args, bool raw_binary, Comparison& c) {
  const std::regex line(R"(^\s*([0-9a-f]+):\s+([0-9a-f]{8})\s+(.*)$)");
  const std::string cmd = std::string(TESSERA_OBJDUMP) + " -M no-aliases " + args;
  std::FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr) << cmd;
  char buf[512];
  while (std::fgets(buf, sizeof buf, p)) {
    std::string text(buf);
    if (!text.empty() && text.back() == '\n') text.pop_back();
    std::smatch m;
    if (!std::regex_match(text, m, line)) continue;
    const uint32_t pc = std::stoul(m[1], nullptr, 16), raw = std::stoul(m[2], nullptr, 16);
    const std::string want = normalise(m[3]);
    // Data words, and objdump's one alias it prints even with no-aliases.
    if (want.rfind(".insn", 0) == 0 || want.rfind(".word", 0) == 0 || want.rfind("0x", 0) == 0 || want == "unimp")
      continue;
    std::string got = normalise(tessera::emu::disassemble(raw, pc));
    const auto decoded = tessera::emu::decode(raw);
    const auto format = tessera::emu::op_format(decoded.op);
    // objdump names every CSR of the privileged spec; we name only ours (others in hex).
    if ((format == tessera::emu::Format::Csr || format == tessera::emu::Format::CsrI) &&
        !tessera::emu::csr_name(static_cast<uint32_t>(decoded.imm)))
      continue;
    if (raw_binary && (format == tessera::emu::Format::J || format == tessera::emu::Format::B))
      got.insert(got.rfind(',') + 1, "0x");
    ++c.compared;
    if (got != want && ++c.mismatches <= 20)
      ADD_FAILURE() << args << " @" << std::hex << pc << " " << raw << ": objdump '" << want << "', tessera '"
                    << got << "'";
  }
  pclose(p);
}

TEST(Disassembler, AgreesWithObjdumpOnEveryTileProgram) {
  Comparison c;
  const auto elfs = tile_elfs();
  ASSERT_FALSE(elfs.empty()) << "no tile ELFs under " << TESSERA_TILE_BIN_DIR;
  for (const auto& elf : elfs) compare_with_objdump("-d " + elf.string(), false, c);
  std::printf("compared %zu instructions from %zu ELFs\n", c.compared, elfs.size());
  EXPECT_GT(c.compared, 400u);
  EXPECT_EQ(c.mismatches, 0u);
}

// Every encoding of every instruction: random operand fields under each op's mask/match,
// written as a raw binary and disassembled by objdump as rv32. CSR fields are drawn from
// the CSRs this core has (objdump knows names for many more).
TEST(Disassembler, AgreesWithObjdumpOnRandomEncodingsOfEveryOp) {
  using namespace tessera::emu;
  std::mt19937 rng(1234);
  const uint32_t csrs[] = {0x001, 0x002, 0x003, 0x300, 0x301, 0x304, 0x305, 0x340, 0x341, 0x342,
                           0x343, 0x344, 0xB00, 0xB02, 0xB80, 0xB82, 0xC00, 0xC02, 0xF11, 0xF14};
  std::vector<uint32_t> words;
  for (int op = 1; op < static_cast<int>(Op::kCount); ++op) {
    const uint32_t mask = op_mask(static_cast<Op>(op)), match = op_match(static_cast<Op>(op));
    for (int i = 0; i < 200; ++i) {
      uint32_t w = (rng() & ~mask) | match;
      const Format f = op_format(static_cast<Op>(op));
      if (f == Format::Csr || f == Format::CsrI) w = (w & 0x000fffffu) | csrs[rng() % std::size(csrs)] << 20;
      if (f == Format::Fence) w &= 0x0ff0007fu | match;  // fm = 0, rs1 = rd = 0 (others are reserved hints)
      if (f == Format::None) w = match;                   // fence.i: the reserved fields zero
      const uint32_t rm = (w >> 12) & 7;
      if ((f == Format::FR4 || f == Format::FRm || f == Format::FR1m || f == Format::XFm || f == Format::FXm) &&
          (rm == 5 || rm == 6))
        w &= ~(7u << 12);  // reserved rounding modes: objdump prints them as unknown
      if (decode(w).op == static_cast<Op>(op)) words.push_back(w);
    }
  }
  const auto path = std::filesystem::temp_directory_path() /
                    ("tessera_disasm_corpus." + std::to_string(::getpid()) + ".bin");
  {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fwrite(words.data(), 4, words.size(), f);
    std::fclose(f);
  }
  Comparison c;
  compare_with_objdump("-D -b binary -m riscv:rv32 " + path.string(), true, c);
  std::filesystem::remove(path);
  std::printf("compared %zu of %zu random encodings\n", c.compared, words.size());
  EXPECT_GT(c.compared, words.size() * 9 / 10);
  EXPECT_EQ(c.mismatches, 0u);
}

}  // namespace
