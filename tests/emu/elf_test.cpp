// The ELF loader: named errors for each kind of malformed file, and a mutation fuzzer over
// real tile ELFs (no crash, no hang: every input either loads and runs for a bounded
// number of instructions, or is rejected with an ElfError).
#include <gtest/gtest.h>
#include "tessera/testutil/seed.h"

#include <cstring>
#include <fstream>
#include <iterator>
#include <random>

#include "tessera/arch/tile_map.h"
#include "tessera/emu/tile.h"
#include "tessera/exe/elf.h"

namespace {

using tessera::exe::ElfError;
using tessera::exe::parse_elf;

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<uint8_t> sample_elf() { return read_file(std::string(TESSERA_TILE_BIN_DIR) + "/bench/int_bench.elf"); }

template <typename T>
void put(std::vector<uint8_t>& b, size_t off, T v) {
  std::memcpy(b.data() + off, &v, sizeof v);
}

// File offset of the first PT_LOAD program header.
size_t first_load_header(const std::vector<uint8_t>& b) {
  uint32_t phoff, type;
  uint16_t phnum;
  std::memcpy(&phoff, b.data() + 28, 4);
  std::memcpy(&phnum, b.data() + 44, 2);
  for (uint32_t i = 0; i < phnum; ++i) {
    std::memcpy(&type, b.data() + phoff + 32 * i, 4);
    if (type == 1) return phoff + 32 * i;
  }
  return 0;
}

std::string error_of(const std::vector<uint8_t>& b) {
  try {
    auto image = parse_elf(b, "x.elf");
    std::vector<uint8_t> sram(64 * 1024);
    tessera::exe::place_elf(image, sram.data(), tessera::arch::kSramBase, static_cast<uint32_t>(sram.size()));
  } catch (const ElfError& e) {
    return e.what();
  }
  return "";
}

TEST(ElfLoader, LoadsARealTileProgram) {
  const auto b = sample_elf();
  ASSERT_FALSE(b.empty());
  EXPECT_EQ(error_of(b), "");
  const auto image = parse_elf(b, "int_bench.elf");
  EXPECT_EQ(image.entry, tessera::arch::kSramBase);
  EXPECT_NE(image.symbol("tohost"), 0u);
}

TEST(ElfLoader, NamesEachKindOfMalformedFile) {
  const auto good = sample_elf();
  auto with = [&](auto edit) { auto b = good; edit(b); return error_of(b); };
  EXPECT_NE(error_of({}).find("too short"), std::string::npos);
  EXPECT_NE(with([](auto& b) { b[1] = 'X'; }).find("not an ELF"), std::string::npos);
  EXPECT_NE(with([](auto& b) { b[4] = 2; }).find("not a 32-bit ELF"), std::string::npos);
  EXPECT_NE(with([](auto& b) { b[5] = 2; }).find("not little-endian"), std::string::npos);
  EXPECT_NE(with([](auto& b) { put<uint16_t>(b, 18, 62); }).find("not a RISC-V ELF"), std::string::npos);
  EXPECT_NE(with([](auto& b) { put<uint16_t>(b, 16, 3); }).find("not an executable"), std::string::npos);
  EXPECT_NE(with([](auto& b) { b[36] |= 1; }).find("compressed"), std::string::npos);
  EXPECT_NE(with([](auto& b) { b[36] = (b[36] & ~6) | 4; }).find("double"), std::string::npos);
  EXPECT_NE(with([](auto& b) { put<uint32_t>(b, 28, 0xfffffff0u); }).find("program header table"), std::string::npos);
  EXPECT_NE(with([](auto& b) { put<uint16_t>(b, 42, 31); }).find("entry size"), std::string::npos);
  EXPECT_NE(with([](auto& b) { b.resize(b.size() / 3); }).find("past the end"), std::string::npos);
  // Move the loadable segment below SRAM.
  EXPECT_NE(with([](auto& b) { put<uint32_t>(b, first_load_header(b) + 12, 0x1000); }).find("outside tile SRAM"),
            std::string::npos);
  EXPECT_NE(with([](auto& b) { put<uint32_t>(b, first_load_header(b) + 16, 0x7fffffff); }).find("exceeds memory size"),
            std::string::npos);
  EXPECT_NE(with([](auto& b) { put<uint32_t>(b, 24, 0x80000002); }).find("entry point"), std::string::npos);
}

// Mutations: random byte writes, 32-bit field overwrites with extreme values, truncation.
TEST(ElfLoader, SurvivesMutationFuzzing) {
  const uint64_t seed = tessera::testutil::default_seed("ElfLoader fuzz", 20261130u);
  std::mt19937 rng(seed);
  const auto good = sample_elf();
  ASSERT_FALSE(good.empty());
  const uint32_t extremes[] = {0, 1, 0x7fffffff, 0x80000000u, 0xffffffffu, 0xfffffff0u,
                               static_cast<uint32_t>(good.size()), 0x80000000u + 0x10000u};
  std::FILE* null = std::fopen("/dev/null", "w");
  int loaded = 0, rejected = 0;
  for (int iter = 0; iter < 6000; ++iter) {
    auto b = good;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      // Bias towards the headers, where the parser's decisions are.
      const size_t span = (rng() % 2) ? std::min<size_t>(b.size(), 256) : b.size();
      const size_t off = rng() % span;
      switch (rng() % 3) {
        case 0: b[off] = static_cast<uint8_t>(rng()); break;
        case 1:
          if (off + 4 <= b.size()) put<uint32_t>(b, off & ~size_t{3}, extremes[rng() % std::size(extremes)]);
          break;
        case 2: b.resize(off); break;
      }
      if (b.empty()) break;
    }
    try {
      const auto image = parse_elf(b, "fuzz.elf");
      tessera::emu::Tile tile(0, 1, 64 * 1024);
      tile.set_console(null);
      tile.load_elf(image);
      tile.hart().run(20000);  // bounded: a mutated program may loop forever
      ++loaded;
    } catch (const ElfError& e) {
      ASSERT_NE(std::strlen(e.what()), 0u);
      ++rejected;
    }
  }
  std::fclose(null);
  std::printf("fuzz: %d loaded and ran, %d rejected with a named error\n", loaded, rejected);
  EXPECT_GT(rejected, 0);
  EXPECT_GT(loaded, 0);
}

}  // namespace
