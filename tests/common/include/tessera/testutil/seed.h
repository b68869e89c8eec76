// The seed of a random test, announced so that no crash can lose it. A test that draws its
// inputs at random calls random_seed() once, before anything that might abort:
//
//   const uint64_t seed = tessera::testutil::random_seed("block fuzz");
//   std::mt19937_64 rng(seed);
//
// The seed is the environment variable TESSERA_SEED when it is set (decimal or 0x-hex;
// a test may name another variable, as the data and plan fuzz tests keep their
// TESSERA_FUZZ_SEED), else 64 bits from std::random_device. It is written at once to
// stderr, which is flushed (a sanitizer's abort or a SIGSEGV loses what a buffered stdout
// still holds), as
//
//   seed=N (block fuzz; TESSERA_SEED=N replays)
//
// and, inside a running gtest, recorded as the test's property "seed" (its XML report).
// scripts/print-seeds finds the line in ctest's log, passed or failed.
#pragma once

#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

namespace tessera::testutil {

inline void announce_seed(const char* what, uint64_t seed, const char* env = "TESSERA_SEED") {
  std::fprintf(stderr, "seed=%" PRIu64 " (%s; %s=%" PRIu64 " replays)\n", seed, what, env, seed);
  std::fflush(stderr);
  if (::testing::UnitTest::GetInstance()->current_test_info() != nullptr)
    ::testing::Test::RecordProperty("seed", std::to_string(seed));
}

// `env`'s value when set and a number, else `fallback`.
inline uint64_t seed_from_env(const char* env, uint64_t fallback) {
  const char* s = std::getenv(env);
  if (s == nullptr || *s == '\0') return fallback;
  char* end = nullptr;
  const uint64_t v = std::strtoull(s, &end, 0);
  if (*end != '\0') {
    std::fprintf(stderr, "%s=%s is not a number: a random seed instead\n", env, s);
    return fallback;
  }
  return v;
}

inline uint64_t random_seed(const char* what, const char* env = "TESSERA_SEED") {
  std::random_device rd;
  const uint64_t drawn = (uint64_t{rd()} << 32) | rd();
  const uint64_t seed = seed_from_env(env, drawn);
  announce_seed(what, seed, env);
  return seed;
}

// A test whose seed is fixed unless `env` overrides it, announced the same way.
inline uint64_t default_seed(const char* what, uint64_t fallback, const char* env = "TESSERA_SEED") {
  const uint64_t seed = seed_from_env(env, fallback);
  announce_seed(what, seed, env);
  return seed;
}

}  // namespace tessera::testutil
