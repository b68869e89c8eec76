// The tiles' SRAM block: each tile's part zeroed, page-aligned and apart from the others;
// under AddressSanitizer a read past a part is caught, as with separate allocations.
#include "tessera/emu/sram_block.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

namespace tessera::emu {
namespace {

TEST(SramBlock, PartsAreZeroedAlignedAndApart) {
  constexpr size_t kTiles = 5, kBytes = 10'001;  // not a page multiple
  SramBlock block(kTiles, kBytes);
  for (size_t i = 0; i < kTiles; ++i) {
    const std::span<uint8_t> part = block.tile(i);
    ASSERT_EQ(part.size(), kBytes);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(part.data()) % 4096, 0u) << "tile " << i;
    EXPECT_TRUE(std::all_of(part.begin(), part.end(), [](uint8_t b) { return b == 0; })) << "tile " << i;
    std::fill(part.begin(), part.end(), static_cast<uint8_t>(i + 1));
  }
  // Each part still holds its own tile's bytes: no two overlap.
  for (size_t i = 0; i < kTiles; ++i) {
    const std::span<uint8_t> part = block.tile(i);
    EXPECT_TRUE(std::all_of(part.begin(), part.end(), [&](uint8_t b) { return b == i + 1; })) << "tile " << i;
  }
}

TEST(SramBlock, NoTilesOrNoBytesAreEmptyParts) {
  SramBlock none(0, 4096);
  SramBlock empty(3, 0);
  EXPECT_TRUE(empty.tile(2).empty());
}

TEST(SramBlockDeathTest, AReadPastATilesPartIsCaught) {
  if (!SramBlock::kGuarded) GTEST_SKIP() << "not built with AddressSanitizer";
  SramBlock block(2, 8192);
  const volatile uint8_t* end = block.tile(0).data() + block.tile(0).size();
  EXPECT_DEATH((void)*end, "AddressSanitizer");
}

}  // namespace
}  // namespace tessera::emu
