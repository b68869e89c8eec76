// .npy against numpy itself: files numpy wrote (tests/npy/numpy_files.py write) read here
// with the values numpy computed by the same formulas; files written here checked by numpy
// (numpy_files.py check, a test of its own); every broken file refused with a clear error.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>

#include "tessera/npy/npy.h"

using tessera::exe::DType;
namespace npy = tessera::npy;

namespace {

const std::string kNumpyDir = TESSERA_NPY_NUMPY_DIR;  // numpy's files
const std::string kOutDir = TESSERA_NPY_OUT_DIR;      // ours, for numpy to check

// The arrays of numpy_files.py's expected(), computed here in C++.
struct Expected {
  std::string name;
  DType dtype;
  std::vector<uint32_t> shape;
  std::vector<std::byte> data;
};

template <class T>
std::vector<std::byte> bytes_of(const std::vector<T>& v) {
  std::vector<std::byte> b(v.size() * sizeof(T));
  if (!b.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

std::vector<Expected> expected() {
  std::vector<float> a(6), b(120);
  for (int i = 0; i < 6; ++i) a[i] = (static_cast<float>(i) - 3.0f) * 0.25f;
  for (int i = 0; i < 120; ++i) b[i] = static_cast<float>(i) / 7.0f;
  std::vector<int32_t> c(12);
  for (int i = 0; i < 12; ++i) c[i] = i * -1000 + 7;
  std::vector<uint8_t> d(5);
  for (int i = 0; i < 5; ++i) d[i] = static_cast<uint8_t>(i * 50);
  std::vector<uint32_t> e(4);
  for (uint32_t i = 0; i < 4; ++i) e[i] = 0xFFFFFFF0u + i;
  return {{"f32_2x3", DType::kF32, {2, 3}, bytes_of(a)},     {"f32_4x5x6", DType::kF32, {4, 5, 6}, bytes_of(b)},
          {"i32_3x4", DType::kI32, {3, 4}, bytes_of(c)},     {"u8_5", DType::kU8, {5}, bytes_of(d)},
          {"u32_2x2", DType::kU32, {2, 2}, bytes_of(e)},     {"f32_scalar", DType::kF32, {}, bytes_of(std::vector<float>{3.5f})},
          {"f32_0x3", DType::kF32, {0, 3}, {}}};
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const npy::NpyError& e) {
    return e.what();
  }
  return "(no error)";
}

std::span<const std::byte> as_span(const std::string& s) { return std::as_bytes(std::span(s.data(), s.size())); }

}  // namespace

TEST(Npy, ReadsWhatNumpyWrote) {
  for (const Expected& x : expected()) {
    SCOPED_TRACE(x.name);
    const npy::Array a = npy::read_file(kNumpyDir + "/" + x.name + ".npy");
    EXPECT_EQ(a.dtype, x.dtype);
    EXPECT_EQ(a.shape, x.shape);
    EXPECT_EQ(a.data, x.data);
  }
}

TEST(Npy, ReadsFormatVersion2) {
  const npy::Array a = npy::read_file(kNumpyDir + "/f32_4x5x6_v2.npy");
  EXPECT_EQ(a.shape, (std::vector<uint32_t>{4, 5, 6}));
  EXPECT_EQ(a.data, expected()[1].data);
  EXPECT_FLOAT_EQ(a.floats()[119], 17.0f);
}

TEST(Npy, WritesFilesForNumpy) {
  // numpy_files.py check reads these (test npy.numpy_reads_ours, after this one).
  std::filesystem::create_directories(kOutDir);
  for (const Expected& x : expected()) {
    npy::Array a;
    a.dtype = x.dtype;
    a.shape = x.shape;
    a.data = x.data;
    npy::write_file(kOutDir + "/tessera_" + x.name + ".npy", a);
    const npy::Array back = npy::read_file(kOutDir + "/tessera_" + x.name + ".npy");
    EXPECT_EQ(back.data, x.data) << x.name;
    EXPECT_EQ(back.shape, x.shape) << x.name;
  }
}

TEST(Npy, WritesTheSameBytesAsNumpy) {
  // numpy's header layout exactly (dict text, padding, '\n').
  for (const Expected& x : expected()) {
    npy::Array a;
    a.dtype = x.dtype;
    a.shape = x.shape;
    a.data = x.data;
    std::ifstream f(kNumpyDir + "/" + x.name + ".npy", std::ios::binary);
    const std::string theirs((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    const std::vector<std::byte> ours = npy::serialize(a);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(ours.data()), ours.size()), theirs) << x.name;
  }
}

TEST(Npy, RefusesWhatItCannotRead) {
  EXPECT_NE(error_of([] { npy::read_file(kNumpyDir + "/bad_big_endian.npy"); }).find("'>f4' is big-endian"),
            std::string::npos);
  EXPECT_NE(error_of([] { npy::read_file(kNumpyDir + "/bad_fortran.npy"); }).find("Fortran"), std::string::npos);
  EXPECT_NE(error_of([] { npy::read_file(kNumpyDir + "/bad_f64.npy"); }).find("dtype '<f8' is not supported"),
            std::string::npos);
  EXPECT_NE(error_of([] { npy::read_file(kNumpyDir + "/bad_object.npy"); }).find("dtype '|O' is not supported"),
            std::string::npos);
  EXPECT_NE(error_of([] { npy::read_file(kNumpyDir + "/missing.npy"); }).find("missing.npy: cannot open"),
            std::string::npos);
}

TEST(Npy, NamesTheFileAndTheProblem) {
  std::ifstream f(kNumpyDir + "/f32_2x3.npy", std::ios::binary);
  const std::string good((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  ASSERT_EQ(good.size(), 128u + 24u);
  EXPECT_EQ(error_of([&] { npy::parse(as_span(good.substr(0, 140)), "x.npy"); }),
            "x.npy: f32[2,3] needs 24 data bytes, the file has 12 (truncated)");
  EXPECT_EQ(error_of([&] { npy::parse(as_span(good + "ab"), "x.npy"); }),
            "x.npy: f32[2,3] needs 24 data bytes, the file has 26 (bytes left over)");
  EXPECT_NE(error_of([&] { npy::parse(as_span(good.substr(0, 60)), "x.npy"); }).find("x.npy: truncated"),
            std::string::npos);
  EXPECT_EQ(error_of([&] { npy::parse(as_span(std::string("PK\x03\x04 a zip")), "x.npz"); }),
            "x.npz: not a .npy file (no \\x93NUMPY magic at the start)");
  std::string v9 = good;
  v9[6] = 9;
  EXPECT_NE(error_of([&] { npy::parse(as_span(v9), "x.npy"); }).find("version 9.0 is not supported"),
            std::string::npos);
  std::string bad_shape = good;
  bad_shape.replace(bad_shape.find("(2, 3)"), 6, "(2, x)");
  EXPECT_NE(error_of([&] { npy::parse(as_span(bad_shape), "x.npy"); }).find("x.npy: bad header (expected a dimension"),
            std::string::npos);
  std::string no_shape = good;
  no_shape.replace(no_shape.find("'shape'"), 7, "'shapf'");
  EXPECT_NE(error_of([&] { npy::parse(as_span(no_shape), "x.npy"); }).find("unknown key 'shapf'"), std::string::npos);
}

TEST(Npy, SurvivesEveryTruncationAndRandomDamage) {
  std::ifstream f(kNumpyDir + "/f32_4x5x6.npy", std::ios::binary);
  const std::string good((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  for (size_t n = 0; n < good.size(); ++n) EXPECT_THROW(npy::parse(as_span(good.substr(0, n)), "t.npy"), npy::NpyError);
  const unsigned seed = 20261201;
  std::printf("seed %u\n", seed);
  std::mt19937 rng(seed);
  for (int i = 0; i < 20000; ++i) {
    std::string s = good.substr(0, 128);  // the header: where parsing can go wrong
    for (int k = 0; k < 1 + i % 4; ++k) s[rng() % s.size()] = static_cast<char>(rng());
    try {
      const npy::Array a = npy::parse(as_span(s), "r.npy");
      EXPECT_EQ(a.data.size(), a.element_count() * tessera::exe::dtype_bytes(a.dtype));
    } catch (const npy::NpyError&) {
    }
  }
}
