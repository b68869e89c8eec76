// Mutation fuzzing of the IDX (plain and gzip), JSON and split parsers: every mutated input
// must either parse or throw DataError, never crash or throw anything else. The seed is
// printed; TESSERA_FUZZ_SEED=<n> replays a run, TESSERA_FUZZ_ITERS=<n> changes its length.
// Built twice: data_test (plain) and data_fuzz_asan_test (AddressSanitizer + UBSan).
#include <gtest/gtest.h>
#include "tessera/testutil/seed.h"

#include <cstdlib>
#include <functional>
#include <iostream>
#include <random>

#include "data_test_util.h"

namespace tessera::data {
namespace {

std::uint64_t env_or(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 0) : fallback;
}

std::uint64_t fuzz_seed() {
  static const std::uint64_t seed = tessera::testutil::random_seed("data fuzz", "TESSERA_FUZZ_SEED");
  return seed;
}

// One random edit of `b`: bit flips, byte overwrites (with interesting values), truncation,
// insertion, deletion, duplication of a chunk.
void mutate(std::vector<std::uint8_t>& b, std::mt19937_64& rng) {
  auto pos = [&](std::size_t n) { return n == 0 ? 0 : std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };
  static constexpr std::uint8_t kInteresting[] = {0, 1, 0x7f, 0x80, 0xff, 0x08, 0x03, '[', ']', ',', '-',
                                                  '.', 'e', '"', '{', '}', '9', '\n', '#', 0x1f, 0x8b};
  switch (rng() % 7) {
    case 0:
      if (!b.empty()) b[pos(b.size())] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
      break;
    case 1:
      if (!b.empty()) b[pos(b.size())] = kInteresting[rng() % sizeof kInteresting];
      break;
    case 2:
      b.resize(pos(b.size() + 1));
      break;
    case 3:
      b.insert(b.begin() + static_cast<long>(pos(b.size() + 1)), kInteresting[rng() % sizeof kInteresting]);
      break;
    case 4:
      if (!b.empty()) {
        std::size_t at = pos(b.size()), n = std::min<std::size_t>(1 + rng() % 16, b.size() - at);
        b.erase(b.begin() + static_cast<long>(at), b.begin() + static_cast<long>(at + n));
      }
      break;
    case 5:
      if (!b.empty()) {
        std::size_t at = pos(b.size()), n = std::min<std::size_t>(1 + rng() % 32, b.size() - at);
        std::vector<std::uint8_t> chunk(b.begin() + static_cast<long>(at), b.begin() + static_cast<long>(at + n));
        b.insert(b.begin() + static_cast<long>(pos(b.size() + 1)), chunk.begin(), chunk.end());
      }
      break;
    default:
      if (b.size() >= 4) b[pos(b.size() - 3)] = static_cast<std::uint8_t>(rng());  // random byte
      break;
  }
}

struct Stats {
  std::size_t ok = 0, rejected = 0;
};

void run(const char* what, const std::vector<std::vector<std::uint8_t>>& seeds,
         const std::function<void(const std::vector<std::uint8_t>&)>& parse, std::uint64_t iters) {
  const std::uint64_t seed = fuzz_seed();
  std::cout << "[fuzz] " << what << ": seed " << seed << " (TESSERA_FUZZ_SEED=" << seed
            << " to replay), " << iters << " inputs\n";
  std::mt19937_64 rng(seed ^ std::hash<std::string>{}(what));
  Stats st;
  for (std::uint64_t it = 0; it < iters; ++it) {
    std::vector<std::uint8_t> b = seeds[rng() % seeds.size()];
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) mutate(b, rng);
    try {
      parse(b);
      ++st.ok;
    } catch (const DataError& e) {
      ++st.rejected;
      ASSERT_NE(std::string(e.what()).find("fuzz-input"), std::string::npos)
          << "error does not name the input: " << e.what();
    } catch (const std::exception& e) {
      FAIL() << what << " input " << it << " (seed " << seed << "): unexpected exception " << e.what();
    }
  }
  std::cout << "[fuzz] " << what << ": " << st.ok << " parsed, " << st.rejected << " rejected\n";
  EXPECT_GT(st.rejected, 0u);
}

std::string as_text(const std::vector<std::uint8_t>& b) { return std::string(b.begin(), b.end()); }

TEST(Fuzz, IdxImages) {
  using testing::idx_images;
  run("idx images", {idx_images(2), idx_images(1, 3, 5), idx_images(0)},
      [](const auto& b) { parse_idx_images(b, "fuzz-input"); }, env_or("TESSERA_FUZZ_ITERS", 20000));
}

TEST(Fuzz, IdxLabels) {
  run("idx labels", {testing::idx_labels(40), testing::idx_labels(1)},
      [](const auto& b) { parse_idx_labels(b, "fuzz-input"); }, env_or("TESSERA_FUZZ_ITERS", 20000));
}

TEST(Fuzz, GzipIdx) {
  using testing::gzip;
  run("gzip idx", {gzip(testing::idx_images(2)), gzip(testing::idx_labels(50))},
      [](const auto& b) {
        auto raw = gunzip_if_gzip(b, "fuzz-input", 1 << 20);
        try {
          parse_idx_images(raw, "fuzz-input");
        } catch (const DataError&) {
          parse_idx_labels(raw, "fuzz-input");
        }
      },
      env_or("TESSERA_FUZZ_ITERS", 20000) / 4);
}

TEST(Fuzz, DigitsJson) {
  const std::string one = testing::digits_json(1);
  std::string small = "{\"data\":[0.5,1e-3,0,1";
  for (int i = 4; i < 784; ++i) small += ",0.004";
  small += "]}";
  run("digits json", {std::vector<std::uint8_t>(one.begin(), one.end()), std::vector<std::uint8_t>(small.begin(), small.end())},
      [](const auto& b) {
        auto v = parse_digits_json(as_text(b), "fuzz-input");
        ASSERT_EQ(v.size() % 784, 0u);
        for (float x : v) ASSERT_TRUE(x >= 0 && x <= 1);
      },
      env_or("TESSERA_FUZZ_ITERS", 20000) / 4);
}

TEST(Fuzz, Split) {
  std::string s = "# header\n";
  for (int i : {5, 3, 0, 7, 1, 6, 2, 4}) s += std::to_string(i) + "\n";
  run("split", {std::vector<std::uint8_t>(s.begin(), s.end())},
      [](const auto& b) {
        auto idx = parse_split(as_text(b), "fuzz-input", 8);
        ASSERT_EQ(idx.size(), 8u);
      },
      env_or("TESSERA_FUZZ_ITERS", 20000));
}

}  // namespace
}  // namespace tessera::data
