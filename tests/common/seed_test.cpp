// tessera/testutil/seed.h: the seed reaches stderr before a crash, the environment overrides
// it, and what is printed is what the test uses.
#include "tessera/testutil/seed.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

using namespace tessera::testutil;

// The child makes stderr fully buffered (as a redirected stdout is) and aborts right after
// drawing, as a sanitizer report does: only the helper's flush gets the line out first.
TEST(SeedDeathTest, TheSeedReachesStderrBeforeAnAbort) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        std::setvbuf(stderr, nullptr, _IOFBF, 1 << 16);
        (void)random_seed("death test");
        std::abort();
      },
      "seed=[0-9]+ \\(death test; TESSERA_SEED=[0-9]+ replays\\)");
}

TEST(Seed, TheEnvironmentOverridesItAndThePrintedSeedIsTheOneUsed) {
  ::setenv("TESSERA_SEED_TEST", "0x10", 1);
  ::testing::internal::CaptureStderr();
  const uint64_t seed = random_seed("override", "TESSERA_SEED_TEST");
  const std::string printed = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(seed, 16u);
  EXPECT_EQ(printed, "seed=16 (override; TESSERA_SEED_TEST=16 replays)\n");
  ::setenv("TESSERA_SEED_TEST", "12x", 1);  // not a number: drawn, and said so
  ::testing::internal::CaptureStderr();
  const uint64_t drawn = random_seed("drawn", "TESSERA_SEED_TEST");
  const std::string said = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(said.find("TESSERA_SEED_TEST=12x is not a number"), std::string::npos) << said;
  EXPECT_NE(said.find("seed=" + std::to_string(drawn) + " (drawn;"), std::string::npos) << said;
  ::unsetenv("TESSERA_SEED_TEST");
  EXPECT_EQ(default_seed("fixed", 7, "TESSERA_SEED_TEST"), 7u);
}

}  // namespace
