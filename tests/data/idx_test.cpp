// IDX reader: synthetic files (plain and gzip), every error, and the real Fashion-MNIST files.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>

#include "data_test_util.h"

namespace tessera::data {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using testing::gzip;
using testing::idx_images;
using testing::idx_labels;
using testing::TempDir;

// Runs f and returns the message of the DataError it throws (a test failure if none).
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

TEST(Idx, ParsesImagesAndLabels) {
  auto b = idx_images(3);
  IdxImages im = parse_idx_images(b, "x");
  EXPECT_EQ(im.count, 3u);
  EXPECT_EQ(im.rows, 28u);
  EXPECT_EQ(im.cols, 28u);
  ASSERT_EQ(im.pixels.size(), 3u * 784);
  EXPECT_FLOAT_EQ(im.pixels[784 + 5], static_cast<float>(7 + 5) / 255.0f);
  EXPECT_FLOAT_EQ(im.pixels[255], 1.0f);
  auto l = parse_idx_labels(idx_labels(12), "y");
  ASSERT_EQ(l.size(), 12u);
  EXPECT_EQ(l[11], 1);
}

TEST(Idx, EmptyFileOfZeroImagesIsValid) {
  EXPECT_EQ(parse_idx_images(idx_images(0), "x").pixels.size(), 0u);
  EXPECT_EQ(parse_idx_labels(idx_labels(0), "y").size(), 0u);
}

TEST(Idx, LoadsPlainAndGzipFiles) {
  TempDir dir;
  auto imgs = dir.write("i", idx_images(5));
  auto labs = dir.write("l.gz", gzip(idx_labels(5)));
  Dataset ds = load_idx(imgs, labs);
  EXPECT_EQ(ds.size(), 5u);
  EXPECT_EQ(ds.images.size(), 5u * 784);
  EXPECT_EQ(ds.labels[4], 4);
  // Two gzip members concatenated inflate to their concatenation.
  auto full = idx_images(2);
  std::vector<std::uint8_t> a(full.begin(), full.begin() + 100), b(full.begin() + 100, full.end());
  auto ga = gzip(a), gb = gzip(b);
  ga.insert(ga.end(), gb.begin(), gb.end());
  EXPECT_EQ(gunzip_if_gzip(ga, "m"), full);
}

TEST(Idx, WrongMagic) {
  auto b = idx_images(1);
  b[2] = 0x0d;  // float data
  EXPECT_THAT(error_of([&] { parse_idx_images(b, "img.idx"); }),
              AllOf(HasSubstr("img.idx: wrong IDX magic 0x00000d03 at byte 0"), HasSubstr("0x00000803")));
  // A label file given as images, and the other way round.
  EXPECT_THAT(error_of([&] { parse_idx_images(idx_labels(3), "l"); }), HasSubstr("wrong IDX magic 0x00000801"));
  EXPECT_THAT(error_of([&] { parse_idx_labels(idx_images(1), "i"); }), HasSubstr("wrong IDX magic 0x00000803"));
}

TEST(Idx, Truncated) {
  auto b = idx_images(2);
  EXPECT_THAT(error_of([&] { parse_idx_images(std::span(b).first(2), "f"); }),
              HasSubstr("f: truncated IDX header: 2 bytes"));
  EXPECT_THAT(error_of([&] { parse_idx_images(std::span(b).first(10), "f"); }),
              HasSubstr("truncated IDX header: 10 bytes, want 16"));
  EXPECT_THAT(error_of([&] { parse_idx_images(std::span(b).first(b.size() - 1), "f"); }),
              HasSubstr("truncated IDX data: 1567 bytes after the 16-byte header, the dimensions need 1568"));
  auto l = idx_labels(4);
  EXPECT_THAT(error_of([&] { parse_idx_labels(std::span(l).first(9), "lab"); }),
              HasSubstr("lab: truncated IDX data: 1 bytes after the 8-byte header, the dimensions need 4"));
  b.push_back(0);
  EXPECT_THAT(error_of([&] { parse_idx_images(b, "f"); }), HasSubstr("1 trailing bytes after the IDX data (at byte 1584)"));
}

TEST(Idx, WrongDimensions) {
  EXPECT_THAT(error_of([&] { parse_idx_images(idx_images(1, 0, 28), "f"); }),
              HasSubstr("bad IDX image dimensions 0x28"));
  auto huge = idx_images(0, 28, 28);
  huge[12] = 0xff;  // cols = 0xff00001c
  EXPECT_THAT(error_of([&] { parse_idx_images(huge, "f"); }), HasSubstr("bad IDX image dimensions 28x4278190108"));
  // A count larger than the data: no allocation of the declared size, just the error.
  auto big = idx_images(1);
  big[4] = 0x7f;
  EXPECT_THAT(error_of([&] { parse_idx_images(big, "f"); }), HasSubstr("truncated IDX data"));
  TempDir dir;
  auto imgs = dir.write("small", idx_images(2, 14, 14));
  auto labs = dir.write("labs", idx_labels(2));
  EXPECT_THAT(error_of([&] { load_idx(imgs, labs); }), HasSubstr("small: images are 14x14, want 28x28"));
  auto imgs3 = dir.write("three", idx_images(3));
  EXPECT_THAT(error_of([&] { load_idx(imgs3, labs); }), HasSubstr("labs: 2 labels but " + imgs3 + " holds 3 images"));
}

TEST(Idx, LabelOutOfRange) {
  auto l = idx_labels(20);
  l[8 + 13] = 10;
  EXPECT_THAT(error_of([&] { parse_idx_labels(l, "lab"); }),
              HasSubstr("lab: label 10 out of range 0..9 (label 13, byte 21)"));
  EXPECT_NO_THROW(parse_idx_labels(l, "lab", 11));
}

TEST(Idx, FileErrors) {
  TempDir dir;
  EXPECT_THAT(error_of([&] { read_file(dir.path() + "/nope"); }),
              AllOf(HasSubstr(dir.path() + "/nope: cannot open"), HasSubstr("No such file")));
  EXPECT_THAT(error_of([&] { read_file(dir.path()); }), HasSubstr("is a directory"));
  auto labs = dir.write("l", idx_labels(1));
  EXPECT_THAT(error_of([&] { load_idx(dir.path() + "/missing-images", labs); }), HasSubstr("missing-images: cannot open"));
  EXPECT_THAT(error_of([&] { load_fashion_mnist(dir.path(), false); }),
              HasSubstr(dir.path() + "/t10k-images-idx3-ubyte.gz: cannot open"));
}

TEST(Idx, GzipErrors) {
  auto z = gzip(idx_images(4));
  // Truncated anywhere after the magic.
  for (std::size_t n : {std::size_t{2}, std::size_t{10}, z.size() / 2, z.size() - 1}) {
    std::vector<std::uint8_t> t(z.begin(), z.begin() + static_cast<long>(n));
    EXPECT_THAT(error_of([&] { gunzip_if_gzip(t, "t.gz"); }), HasSubstr("t.gz: gzip: truncated stream")) << n;
  }
  auto bad = z;
  bad[3] = 0xe0;  // reserved flag bits
  EXPECT_THAT(error_of([&] { gunzip_if_gzip(bad, "c.gz"); }), HasSubstr("c.gz: gzip: corrupt data near compressed byte"));
  auto crc = z;
  crc[crc.size() - 6] ^= 1;  // CRC32 of the trailer
  EXPECT_THAT(error_of([&] { gunzip_if_gzip(crc, "c.gz"); }), HasSubstr("incorrect data check"));
  auto tail = z;
  tail.push_back('x');
  EXPECT_THAT(error_of([&] { gunzip_if_gzip(tail, "c.gz"); }), HasSubstr("1 trailing bytes after the stream"));
  EXPECT_THAT(error_of([&] { gunzip_if_gzip(z, "c.gz", 1000); }), HasSubstr("inflates to more than 1000 bytes"));
  // Gzip of garbage: inflates, then the IDX check names the file.
  TempDir dir;
  auto f = dir.write("g.gz", gzip({1, 2, 3, 4, 5}));
  auto l = dir.write("l", idx_labels(1));
  EXPECT_THAT(error_of([&] { load_idx(f, l); }), HasSubstr("g.gz: wrong IDX magic 0x01020304"));
}

// ---- The real Fashion-MNIST files of Debian's dataset-fashion-mnist ----

class FashionMnist : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(testing::have_fashion())
        << "Fashion-MNIST not found in " << testing::fashion_dir()
        << ": run scripts/setup (Debian package dataset-fashion-mnist)";
  }
  static void check(const Dataset& ds, std::size_t n) {
    ASSERT_EQ(ds.size(), n);
    ASSERT_EQ(ds.images.size(), n * kPixels);
    std::array<std::size_t, 10> per{};
    for (auto l : ds.labels) ++per[l];
    for (int c = 0; c < 10; ++c) EXPECT_EQ(per[c], n / 10) << "class " << c;  // balanced
    float lo = 1, hi = 0;
    for (float v : ds.images) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    EXPECT_EQ(lo, 0.0f);
    EXPECT_EQ(hi, 1.0f);
  }
};

TEST_F(FashionMnist, TestSet10k) {
  Dataset ds = load_fashion_mnist(testing::fashion_dir(), false);
  check(ds, 10000);
  EXPECT_EQ(ds.labels[0], 9);  // the first t10k item is an ankle boot
  EXPECT_EQ(ds.labels[1], 2);
}

TEST_F(FashionMnist, TrainSet60k) {
  Dataset ds = load_fashion_mnist(testing::fashion_dir(), true);
  check(ds, 60000);
  EXPECT_EQ(ds.labels[0], 9);
  EXPECT_EQ(ds.labels[1], 0);
}

}  // namespace
}  // namespace tessera::data
