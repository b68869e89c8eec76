// tessera-emu as a user (or an attacker) runs it: hand-made ELFs that jump anywhere in the
// address space, exit with every kind of status, loop for ever; files that are not ELFs.
// The tool must never crash, and its own exit statuses (64..67) must never collide with a
// guest's (0..63), docs/isa.md.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "tessera/arch/tile_map.h"
#include "tessera/emu/tool_exit.h"
#include "tessera/exe/elf.h"

namespace {

namespace fs = std::filesystem;
using tessera::arch::kSramBase;

// RV32I encodings of the few instructions these programs need.
uint32_t lui(unsigned rd, uint32_t upper) { return (upper << 12) | (rd << 7) | 0x37; }
uint32_t addi(unsigned rd, unsigned rs1, int32_t imm) {
  return (static_cast<uint32_t>(imm & 0xfff) << 20) | (rs1 << 15) | (rd << 7) | 0x13;
}
uint32_t jalr(unsigned rd, unsigned rs1, int32_t imm) {
  return (static_cast<uint32_t>(imm & 0xfff) << 20) | (rs1 << 15) | (rd << 7) | 0x67;
}
uint32_t sw(unsigned rs2, unsigned rs1, int32_t imm) {
  const uint32_t i = static_cast<uint32_t>(imm) & 0xfff;
  return ((i >> 5) << 25) | (rs2 << 20) | (rs1 << 15) | (2u << 12) | ((i & 31) << 7) | 0x23;
}
constexpr uint32_t kJumpToSelf = 0x0000006f;  // jal x0, 0

// The register block is the top 2 KiB: offset - 2048 off x0.
int32_t reg_imm(uint32_t offset) { return static_cast<int32_t>(offset) - 2048; }

// A stripped ELF32 RISC-V executable: one PT_LOAD of `code` at SRAM's base, entry there.
std::vector<uint8_t> make_elf(const std::vector<uint32_t>& code, uint32_t bss_bytes = 0) {
  std::vector<uint8_t> b(84 + code.size() * 4, 0);
  auto put16 = [&](size_t o, uint16_t v) { std::memcpy(&b[o], &v, 2); };
  auto put32 = [&](size_t o, uint32_t v) { std::memcpy(&b[o], &v, 4); };
  std::memcpy(b.data(), "\x7f" "ELF\x01\x01\x01", 7);
  put16(16, 2);                      // ET_EXEC
  put16(18, 243);                    // EM_RISCV
  put32(20, 1);                      // EV_CURRENT
  put32(24, kSramBase);              // entry
  put32(28, 52);                     // phoff
  put32(36, 0x2);                    // single-float ABI
  put16(40, 52);                     // ehsize
  put16(42, 32);                     // phentsize
  put16(44, 1);                      // phnum
  put32(52, 1);                      // PT_LOAD
  put32(56, 84);                     // offset
  put32(60, kSramBase);              // vaddr
  put32(64, kSramBase);              // paddr
  put32(68, static_cast<uint32_t>(code.size() * 4));
  put32(72, static_cast<uint32_t>(code.size() * 4) + bss_bytes);
  put32(76, 5);                      // R+X
  if (!code.empty()) std::memcpy(b.data() + 84, code.data(), code.size() * 4);
  return b;
}

struct Result {
  int status;  // exit status, or -signal if it died
  std::string err;
};

class EmuTool : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("tessera_emu_tool_test_" + std::to_string(::getpid()));
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }

  std::string write(const std::string& name, const std::vector<uint8_t>& bytes) {
    const fs::path p = dir / name;
    std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    return p.string();
  }
  Result emu(const std::string& args) {
    const fs::path err = dir / "err.txt";
    const std::string cmd = std::string(TESSERA_EMU) + " " + args + " > /dev/null 2> " + err.string();
    const int rc = std::system(cmd.c_str());
    std::ifstream f(err);
    std::stringstream s;
    s << f.rdbuf();
    return {WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, s.str()};
  }
  Result run_code(const std::vector<uint32_t>& code, const std::string& opts = "") {
    return emu(opts + " " + write("p.elf", make_elf(code)));
  }
  fs::path dir;
};

// A jump to one word below SRAM: the fetch address must be checked without a 32-bit sum
// that wraps (it once read 4 GiB past the SRAM and crashed the host process).
TEST_F(EmuTool, AJumpBelowSramIsAFetchFaultNotAHostCrash) {
  for (uint32_t target : {kSramBase - 4, 0xfffffffcu, 0u, kSramBase + 64 * 1024}) {
    const uint32_t hi = (target + 0x800) >> 12;
    const int32_t lo = static_cast<int32_t>(target << 20) >> 20;
    const Result r = run_code({lui(5, hi & 0xfffff), addi(5, 5, lo), jalr(0, 5, 0)});
    EXPECT_EQ(r.status, tessera::emu::kToolExitTrap) << std::hex << target << ": " << r.err;
    EXPECT_NE(r.err.find("instruction access fault"), std::string::npos) << r.err;
  }
}

// Loads and stores at the edges of the address space trap too (the fast paths compare an
// offset, never offset + size).
TEST_F(EmuTool, LoadsAndStoresAtTheAddressSpaceEdgesTrap) {
  for (uint32_t addr : {kSramBase - 4, 0xfffff000u - 4, kSramBase + 64 * 1024}) {
    const uint32_t hi = (addr + 0x800) >> 12;
    const int32_t lo = static_cast<int32_t>(addr << 20) >> 20;
    const uint32_t lw = (static_cast<uint32_t>(lo & 0xfff) << 20) | (5u << 15) | (2u << 12) | (6u << 7) | 0x03;
    Result r = run_code({lui(5, hi & 0xfffff), lw});
    EXPECT_EQ(r.status, tessera::emu::kToolExitTrap) << std::hex << addr << ": " << r.err;
    r = run_code({lui(5, hi & 0xfffff), sw(0, 5, lo)});
    EXPECT_EQ(r.status, tessera::emu::kToolExitTrap) << std::hex << addr << ": " << r.err;
  }
}

TEST_F(EmuTool, GuestStatusesNeverCollideWithTheToolsOwn) {
  const uint32_t exit_reg = tessera::arch::kTileRegExit;
  for (uint32_t status : {0u, 1u, 2u, 3u, 4u, 62u, 63u, 64u, 66u, 67u, 256u, 0x7fffffffu}) {
    const uint32_t hi = (status + 0x800) >> 12;
    const int32_t lo = static_cast<int32_t>(status << 20) >> 20;
    const Result r = run_code({lui(10, hi & 0xfffff), addi(10, 10, lo), sw(10, 0, reg_imm(exit_reg)), kJumpToSelf});
    const int want = status < 63 ? static_cast<int>(status) : 63;
    EXPECT_EQ(r.status, want) << "guest status " << status << ": " << r.err;
  }
}

TEST_F(EmuTool, TheInstructionLimitHasItsOwnStatus) {
  Result r = run_code({kJumpToSelf}, "--max-insns 1000");
  EXPECT_EQ(r.status, tessera::emu::kToolExitLimit) << r.err;
  EXPECT_NE(r.err.find("instruction limit (1000)"), std::string::npos) << r.err;
  // -1 is not "unlimited" (it once wrapped to 2^64 - 1); 0 would run nothing.
  for (const char* bad : {"-1", "0", "x"}) {
    r = run_code({kJumpToSelf}, std::string("--max-insns ") + bad);
    EXPECT_EQ(r.status, tessera::emu::kToolExitUsage) << bad << ": " << r.err;
  }
}

// A segment with no file bytes (all .bss): its data() is null, which memcpy must not be
// given even for 0 bytes (UBSan caught it; the sanitizer build runs this test).
TEST(ElfPlace, ASegmentWithoutFileBytesIsZeroFilled) {
  const std::vector<uint8_t> bytes = make_elf({}, 64);
  const tessera::exe::ElfImage image = tessera::exe::parse_elf(bytes, "bss.elf");
  ASSERT_EQ(image.segments.size(), 1u);
  EXPECT_TRUE(image.segments[0].data.empty());
  std::vector<uint8_t> sram(4096, 0xa5);
  tessera::exe::place_elf(image, sram.data(), kSramBase, static_cast<uint32_t>(sram.size()));
  for (size_t i = 0; i < 64; ++i) ASSERT_EQ(sram[i], 0) << i;
  EXPECT_EQ(sram[64], 0xa5);
}

TEST_F(EmuTool, NonElfInputsAreNamedErrors) {
  Result r = emu(dir.string());
  EXPECT_EQ(r.status, tessera::emu::kToolExitBadElf) << r.err;
  EXPECT_NE(r.err.find("is a directory"), std::string::npos) << r.err;
  r = emu((dir / "missing.elf").string());
  EXPECT_EQ(r.status, tessera::emu::kToolExitBadElf) << r.err;
  EXPECT_NE(r.err.find("no such file"), std::string::npos) << r.err;
  r = emu("/dev/null");
  EXPECT_EQ(r.status, tessera::emu::kToolExitBadElf) << r.err;
  r = emu(write("empty.elf", {}));
  EXPECT_EQ(r.status, tessera::emu::kToolExitBadElf) << r.err;
  EXPECT_NE(r.err.find("too short"), std::string::npos) << r.err;
  r = emu("--no-such-option " + write("p.elf", make_elf({kJumpToSelf})));
  EXPECT_EQ(r.status, tessera::emu::kToolExitUsage) << r.err;
}

}  // namespace
