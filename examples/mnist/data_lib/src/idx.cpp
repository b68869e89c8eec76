// Files, gzip and IDX (the format of the MNIST and Fashion-MNIST distributions).
#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include "tessera/data/dataset.h"

namespace tessera::data {

std::vector<std::uint8_t> read_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw DataError(path, "is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError(path, std::string("cannot open: ") + std::strerror(errno));
  std::vector<std::uint8_t> bytes;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    bytes.insert(bytes.end(), buf, buf + in.gcount());
    if (in.eof()) break;
  }
  if (in.bad()) throw DataError(path, "read error");
  return bytes;
}

std::vector<std::uint8_t> gunzip_if_gzip(std::vector<std::uint8_t> bytes, const std::string& name,
                                         std::size_t max_out) {
  if (bytes.size() < 2 || bytes[0] != 0x1f || bytes[1] != 0x8b) return bytes;
  std::vector<std::uint8_t> out;
  z_stream zs{};
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) throw DataError(name, "gzip: inflateInit2 failed");
  struct Guard {
    z_stream* z;
    ~Guard() { inflateEnd(z); }
  } guard{&zs};
  if (bytes.size() > std::numeric_limits<uInt>::max())
    throw DataError(name, "gzip: compressed file larger than 4 GiB");
  std::size_t pos = 0;  // input consumed so far
  std::uint8_t chunk[1 << 16];
  for (;;) {
    // One gzip member.
    zs.next_in = bytes.data() + pos;
    zs.avail_in = static_cast<uInt>(bytes.size() - pos);
    for (;;) {
      zs.next_out = chunk;
      zs.avail_out = sizeof chunk;
      const int rc = inflate(&zs, Z_NO_FLUSH);
      if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
        const auto at = static_cast<std::size_t>(zs.next_in - bytes.data());
        throw DataError(name, "gzip: corrupt data near compressed byte " + std::to_string(at) +
                                  ": " + (zs.msg ? zs.msg : zError(rc)));
      }
      const std::size_t got = sizeof chunk - zs.avail_out;
      if (out.size() + got > max_out)
        throw DataError(name, "gzip: inflates to more than " + std::to_string(max_out) + " bytes");
      out.insert(out.end(), chunk, chunk + got);
      if (rc == Z_STREAM_END) break;
      if (got == 0 && zs.avail_in == 0)
        throw DataError(name, "gzip: truncated stream (ends after " + std::to_string(bytes.size()) +
                                  " compressed bytes, " + std::to_string(out.size()) +
                                  " bytes inflated)");
    }
    pos = static_cast<std::size_t>(zs.next_in - bytes.data());
    if (pos == bytes.size()) break;
    if (bytes.size() - pos < 2 || bytes[pos] != 0x1f || bytes[pos + 1] != 0x8b)
      throw DataError(name, "gzip: " + std::to_string(bytes.size() - pos) +
                                " trailing bytes after the stream at byte " + std::to_string(pos));
    if (inflateReset(&zs) != Z_OK) throw DataError(name, "gzip: inflateReset failed");
  }
  return out;
}

namespace {

std::uint32_t be32(std::span<const std::uint8_t> b, std::size_t at) {
  return (std::uint32_t{b[at]} << 24) | (std::uint32_t{b[at + 1]} << 16) |
         (std::uint32_t{b[at + 2]} << 8) | std::uint32_t{b[at + 3]};
}

std::string hex32(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

// Checks the magic (0x0000 08 <ndims>) and the header length; returns the dimensions.
std::vector<std::uint32_t> idx_header(std::span<const std::uint8_t> b, const std::string& name,
                                      std::uint32_t ndims, const char* kind) {
  if (b.size() < 4)
    throw DataError(name, "truncated IDX header: " + std::to_string(b.size()) +
                              " bytes, the magic number alone is 4");
  const std::uint32_t magic = be32(b, 0);
  const std::uint32_t want = 0x00000800u | ndims;
  if (magic != want)
    throw DataError(name, std::string("wrong IDX magic ") + hex32(magic) + " at byte 0, want " +
                              hex32(want) + " (" + kind + ": unsigned bytes, " +
                              std::to_string(ndims) + " dimension" + (ndims == 1 ? "" : "s") + ")");
  const std::size_t header = 4 + 4 * std::size_t{ndims};
  if (b.size() < header)
    throw DataError(name, "truncated IDX header: " + std::to_string(b.size()) + " bytes, want " +
                              std::to_string(header));
  std::vector<std::uint32_t> dims;
  for (std::uint32_t d = 0; d < ndims; ++d) dims.push_back(be32(b, 4 + 4 * d));
  return dims;
}

void check_payload(std::span<const std::uint8_t> b, const std::string& name, std::size_t header,
                   std::uint64_t want) {
  const std::uint64_t have = b.size() - header;
  if (have < want)
    throw DataError(name, "truncated IDX data: " + std::to_string(have) + " bytes after the " +
                              std::to_string(header) + "-byte header, the dimensions need " +
                              std::to_string(want));
  if (have > want)
    throw DataError(name, std::to_string(have - want) + " trailing bytes after the IDX data (at byte " +
                              std::to_string(header + want) + ")");
}

}  // namespace

IdxImages parse_idx_images(std::span<const std::uint8_t> b, const std::string& name) {
  auto dims = idx_header(b, name, 3, "images");
  IdxImages im;
  im.count = dims[0];
  im.rows = dims[1];
  im.cols = dims[2];
  constexpr std::uint32_t kMaxSide = 4096;
  if (im.rows == 0 || im.cols == 0 || im.rows > kMaxSide || im.cols > kMaxSide)
    throw DataError(name, "bad IDX image dimensions " + std::to_string(im.rows) + "x" +
                              std::to_string(im.cols) + " (bytes 8..15): each must be 1.." +
                              std::to_string(kMaxSide));
  const std::uint64_t n = std::uint64_t{im.count} * im.rows * im.cols;
  check_payload(b, name, 16, n);
  im.pixels.resize(n);
  for (std::uint64_t i = 0; i < n; ++i) im.pixels[i] = static_cast<float>(b[16 + i]) / 255.0f;
  return im;
}

std::vector<std::uint8_t> parse_idx_labels(std::span<const std::uint8_t> b, const std::string& name,
                                           int classes) {
  auto dims = idx_header(b, name, 1, "labels");
  check_payload(b, name, 8, dims[0]);
  std::vector<std::uint8_t> labels(b.begin() + 8, b.end());
  for (std::size_t i = 0; i < labels.size(); ++i)
    if (labels[i] >= classes)
      throw DataError(name, "label " + std::to_string(labels[i]) + " out of range 0.." +
                                std::to_string(classes - 1) + " (label " + std::to_string(i) +
                                ", byte " + std::to_string(8 + i) + ")");
  return labels;
}

Dataset load_idx(const std::string& images_path, const std::string& labels_path) {
  IdxImages im = parse_idx_images(gunzip_if_gzip(read_file(images_path), images_path), images_path);
  if (im.rows != kRows || im.cols != kCols)
    throw DataError(images_path, "images are " + std::to_string(im.rows) + "x" +
                                     std::to_string(im.cols) + ", want 28x28");
  Dataset ds;
  ds.labels = parse_idx_labels(gunzip_if_gzip(read_file(labels_path), labels_path), labels_path);
  if (ds.labels.size() != im.count)
    throw DataError(labels_path, std::to_string(ds.labels.size()) + " labels but " + images_path +
                                     " holds " + std::to_string(im.count) + " images");
  ds.images = std::move(im.pixels);
  return ds;
}

Dataset load_fashion_mnist(const std::string& dir, bool train) {
  const std::string prefix = dir + "/" + (train ? "train" : "t10k");
  auto pick = [](const std::string& base) {
    std::error_code ec;
    return std::filesystem::exists(base, ec) ? base : base + ".gz";
  };
  return load_idx(pick(prefix + "-images-idx3-ubyte"), pick(prefix + "-labels-idx1-ubyte"));
}

}  // namespace tessera::data
