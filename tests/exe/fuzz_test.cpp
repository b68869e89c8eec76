// Mutation fuzzer for the loader: random damage to a valid file must only ever load or throw
// ExeError, never crash, hang or throw anything else. The seed is printed; set TESSERA_SEED
// to replay a run (and TESSERA_FUZZ_ITERS to run longer).
#include <gtest/gtest.h>
#include "tessera/testutil/seed.h"

#include <cstdlib>
#include <iostream>
#include <random>

#include "synthetic.h"

namespace tessera::exe::testing {
namespace {

uint64_t env_or(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 0) : fallback;
}

// Words a fuzzer should try in a field: boundaries of SRAM, of sizes and of signedness.
constexpr uint32_t kInteresting[] = {0,          1,          3,          4,          0x7f,       0x80,
                                     0xff,       0xffff,     0x10000,    0x7fffffff, 0x80000000, 0xffffffff,
                                     0x80004000, 0x8001fffc, 0x80020000, 0xfffffffc, 16,         15};

class Mutator {
 public:
  explicit Mutator(uint64_t seed) : rng_(seed) {}
  size_t pick(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }

  // One random kind of damage; `kind` names it for the failure message.
  std::vector<uint8_t> mutate(std::vector<uint8_t> b, std::string& kind) {
    switch (pick(7)) {
      case 0:  // a few bit flips
        kind = "bit flips";
        for (size_t n = 1 + pick(4); n--;) b[pick(b.size())] ^= uint8_t(1u << pick(8));
        break;
      case 1:  // truncation
        kind = "truncation";
        b.resize(pick(b.size()));
        break;
      case 2:  // an aligned word overwritten
        kind = "word overwrite";
        overwrite(b);
        break;
      case 3:  // bytes inserted or removed in the middle
        kind = "insert/delete";
        if (pick(2)) b.insert(b.begin() + long(pick(b.size())), 1 + pick(8), uint8_t(pick(256)));
        else {
          const size_t at = pick(b.size());
          b.erase(b.begin() + long(at), b.begin() + long(std::min(b.size(), at + 1 + pick(8))));
        }
        break;
      case 4:  // random bytes appended
        kind = "append";
        for (size_t n = 1 + pick(16); n--;) b.push_back(uint8_t(pick(256)));
        break;
      default:  // a field overwritten, then checksums recomputed: reaches the content checks
        kind = "resealed overwrite";
        for (size_t n = 1 + pick(3); n--;) overwrite(b);
        detail::seal(b);  // fails harmlessly when the edit broke the FlatBuffers structure
        break;
    }
    return b;
  }

 private:
  void overwrite(std::vector<uint8_t>& b) {
    const size_t at = pick(b.size() / 4) * 4;
    const uint32_t v = pick(3) ? kInteresting[pick(std::size(kInteresting))] : uint32_t(rng_());
    for (int i = 0; i < 4; ++i) b[at + i] = uint8_t(v >> (8 * i));
  }
  std::mt19937_64 rng_;
};

// `iters` mutations of a valid file from `seed`: each loads (and round-trips) or is refused
// with an ExeError naming the file.
void fuzz(uint64_t seed, uint64_t iters) {
  std::cout << "exe fuzz: TESSERA_SEED=" << seed << " iterations " << iters << std::endl;
  const Executable original = synthetic();
  const std::vector<uint8_t> good = serialize(original);
  Mutator m(seed);
  size_t loaded = 0, refused = 0;
  for (uint64_t i = 0; i < iters; ++i) {
    std::string kind;
    const std::vector<uint8_t> bad = m.mutate(good, kind);
    try {
      const Executable e = deserialize(bad, "fuzz.tsx");
      ++loaded;
      // Without a re-seal, any changed byte must be caught (the file checksum covers all).
      ASSERT_TRUE(kind == "resealed overwrite" || bad == good)
          << "seed " << seed << " iteration " << i << " (" << kind << "): damaged file loaded";
      // Whatever loads is a valid executable: it writes and reads back unchanged.
      ASSERT_EQ(deserialize(serialize(e), "again.tsx"), e) << "seed " << seed << " iteration " << i << " " << kind;
    } catch (const ExeError& err) {
      ++refused;
      ASSERT_EQ(std::string(err.what()).rfind("fuzz.tsx: ", 0), 0u) << "seed " << seed << " iteration " << i << ": " << err.what();
    } catch (const std::exception& err) {
      FAIL() << "seed " << seed << " iteration " << i << " (" << kind << "): not an ExeError: " << err.what();
    }
  }
  std::cout << "exe fuzz: " << loaded << " loaded, " << refused << " refused" << std::endl;
  EXPECT_GT(refused, iters / 2);
}

TEST(ExeFuzz, MutatedFilesLoadOrThrowExeError) {
  fuzz(tessera::testutil::random_seed("exe fuzz"), env_or("TESSERA_FUZZ_ITERS", 4000));
}

// Seeds that once found a fault, replayed on every run.
TEST(ExeFuzz, SeedsThatFoundFaults) {
  fuzz(14714309158524657952ull, 4000);  // device parameter runs moved off 8-byte alignment (UBSan)
  fuzz(17377537891704305495ull, 47100);  // iteration 47060: no runs, written again: an empty vector need not be aligned
}

}  // namespace
}  // namespace tessera::exe::testing
