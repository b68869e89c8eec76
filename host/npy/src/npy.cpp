// .npy read and write (npy.h). The header is a Python dict literal; it is parsed here with
// a small strict tokenizer rather than trusted, so that any byte sequence gives a value or
// a clear error.
#include "tessera/npy/npy.h"

#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>

namespace tessera::npy {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicBytes = 6;

struct Header {
  std::string descr;
  std::optional<bool> fortran_order;
  std::optional<std::vector<uint64_t>> shape;
};

// A cursor over the header text with the few tokens a numpy header holds.
class HeaderParser {
 public:
  HeaderParser(const std::string& text, const std::string& what) : s_(text), what_(what) {}

  Header parse() {
    Header h;
    bool have_descr = false;
    expect('{');
    while (!peek('}')) {
      const std::string key = string_literal();
      expect(':');
      if (key == "descr") {
        if (have_descr) fail("key 'descr' twice");
        h.descr = string_literal();
        have_descr = true;
      } else if (key == "fortran_order") {
        if (h.fortran_order) fail("key 'fortran_order' twice");
        h.fortran_order = boolean();
      } else if (key == "shape") {
        if (h.shape) fail("key 'shape' twice");
        h.shape = tuple();
      } else {
        fail("unknown key '" + key + "'");
      }
      if (!peek('}')) expect(',');
    }
    expect('}');
    skip_space();
    if (pos_ != s_.size()) fail("text after the closing '}'");
    if (!have_descr || !h.fortran_order || !h.shape) fail("needs the keys 'descr', 'fortran_order' and 'shape'");
    return h;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw NpyError(what_ + ": bad header (" + why + " at offset " + std::to_string(pos_) + "): " + s_);
  }
  void skip_space() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\t' || s_[pos_] == '\r')) ++pos_;
  }
  bool peek(char c) {
    skip_space();
    return pos_ < s_.size() && s_[pos_] == c;
  }
  void expect(char c) {
    if (!peek(c)) fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  std::string string_literal() {
    skip_space();
    if (pos_ >= s_.size() || (s_[pos_] != '\'' && s_[pos_] != '"')) fail("expected a string");
    const char q = s_[pos_++];
    const size_t end = s_.find(q, pos_);
    if (end == std::string::npos) fail("unterminated string");
    std::string r = s_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return r;
  }
  bool boolean() {
    skip_space();
    if (s_.compare(pos_, 4, "True") == 0) return pos_ += 4, true;
    if (s_.compare(pos_, 5, "False") == 0) return pos_ += 5, false;
    fail("expected True or False");
  }
  std::vector<uint64_t> tuple() {
    std::vector<uint64_t> v;
    expect('(');
    while (!peek(')')) {
      skip_space();
      if (pos_ >= s_.size() || s_[pos_] < '0' || s_[pos_] > '9') fail("expected a dimension (a non-negative integer)");
      uint64_t d = 0;
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') {
        d = d * 10 + static_cast<uint64_t>(s_[pos_++] - '0');
        if (d > 0xFFFFFFFFull) fail("a dimension above 2^32 - 1");
      }
      if (pos_ < s_.size() && s_[pos_] == 'L') ++pos_;  // Python 2 longs
      v.push_back(d);
      if (!peek(')')) expect(',');
    }
    expect(')');
    return v;
  }

  const std::string& s_;
  const std::string& what_;
  size_t pos_ = 0;
};

std::optional<exe::DType> dtype_of(const std::string& descr) {
  if (descr == "<f4") return exe::DType::kF32;
  if (descr == "<i4") return exe::DType::kI32;
  if (descr == "<u4") return exe::DType::kU32;
  if (descr == "|u1" || descr == "<u1" || descr == "u1") return exe::DType::kU8;
  return std::nullopt;
}

const char* descr_of(exe::DType t) {
  switch (t) {
    case exe::DType::kF32: return "<f4";
    case exe::DType::kI32: return "<i4";
    case exe::DType::kU32: return "<u4";
    case exe::DType::kU8: return "|u1";
  }
  return "?";
}

uint64_t count_of(const std::vector<uint32_t>& shape) {
  uint64_t n = 1;
  for (uint32_t d : shape) n *= d;  // each below 2^32 and at most a few dims: checked by callers
  return n;
}

}  // namespace

uint64_t Array::element_count() const { return count_of(shape); }

std::vector<float> Array::floats() const {
  if (dtype != exe::DType::kF32) throw NpyError("array of " + describe(*this) + " read as f32");
  std::vector<float> v(data.size() / 4);
  std::memcpy(v.data(), data.data(), v.size() * 4);
  return v;
}

std::vector<uint32_t> Array::words() const {
  if (dtype != exe::DType::kU32 && dtype != exe::DType::kI32)
    throw NpyError("array of " + describe(*this) + " read as 32-bit integers");
  std::vector<uint32_t> v(data.size() / 4);
  std::memcpy(v.data(), data.data(), v.size() * 4);
  return v;
}

Array Array::of(const std::vector<float>& v, std::vector<uint32_t> shape) {
  Array a;
  a.dtype = exe::DType::kF32;
  a.shape = std::move(shape);
  a.data.resize(v.size() * 4);
  std::memcpy(a.data.data(), v.data(), a.data.size());
  return a;
}

Array Array::of_words(const std::vector<uint32_t>& v, std::vector<uint32_t> shape, exe::DType dtype) {
  Array a;
  a.dtype = dtype;
  a.shape = std::move(shape);
  a.data.resize(v.size() * 4);
  std::memcpy(a.data.data(), v.data(), a.data.size());
  return a;
}

std::string describe(const Array& a) {
  std::string s = std::string(exe::dtype_name(a.dtype)) + "[";
  for (size_t i = 0; i < a.shape.size(); ++i) s += (i ? "," : "") + std::to_string(a.shape[i]);
  return s + "]";
}

Array parse(std::span<const std::byte> bytes, const std::string& what) {
  if (bytes.size() < kMagicBytes + 2 || std::memcmp(bytes.data(), kMagic, kMagicBytes) != 0)
    throw NpyError(what + ": not a .npy file (no \\x93NUMPY magic at the start)");
  const auto u8 = [&](size_t i) { return static_cast<uint32_t>(bytes[i]); };
  const uint32_t major = u8(6), minor = u8(7);
  if (major < 1 || major > 3 || minor != 0)
    throw NpyError(what + ": .npy format version " + std::to_string(major) + "." + std::to_string(minor) +
                   " is not supported (1.0, 2.0, 3.0)");
  const size_t len_bytes = major == 1 ? 2 : 4;
  if (bytes.size() < 8 + len_bytes) throw NpyError(what + ": truncated in the header length");
  uint64_t header_len = u8(8) | u8(9) << 8;
  if (major > 1) header_len |= uint64_t{u8(10)} << 16 | uint64_t{u8(11)} << 24;
  const size_t data_start = 8 + len_bytes + header_len;
  if (bytes.size() < data_start)
    throw NpyError(what + ": truncated: the header says " + std::to_string(header_len) + " bytes, the file has " +
                   std::to_string(bytes.size() - 8 - len_bytes) + " after the length");
  const std::string text(reinterpret_cast<const char*>(bytes.data()) + 8 + len_bytes, header_len);
  const Header h = HeaderParser(text, what).parse();
  const std::optional<exe::DType> dt = dtype_of(h.descr);
  if (!dt) {
    const bool big = !h.descr.empty() && h.descr[0] == '>';
    throw NpyError(what + ": dtype '" + h.descr + "'" + (big ? " is big-endian" : "") +
                   " is not supported (float32 '<f4', int32 '<i4', uint32 '<u4', uint8 '|u1')");
  }
  if (*h.fortran_order)
    throw NpyError(what + ": Fortran (column-major) order is not supported; save a C-ordered array "
                          "(numpy.ascontiguousarray)");
  Array a;
  a.dtype = *dt;
  uint64_t n = 1;
  for (uint64_t d : *h.shape) {
    if (d != 0 && n > (uint64_t{1} << 40) / d) throw NpyError(what + ": the shape has more than 2^40 elements");
    n *= d;
    a.shape.push_back(static_cast<uint32_t>(d));
  }
  const uint64_t need = n * exe::dtype_bytes(a.dtype), have = bytes.size() - data_start;
  if (have != need)
    throw NpyError(what + ": " + describe(a) + " needs " + std::to_string(need) + " data bytes, the file has " +
                   std::to_string(have) + (have < need ? " (truncated)" : " (bytes left over)"));
  a.data.assign(bytes.begin() + static_cast<std::ptrdiff_t>(data_start), bytes.end());
  return a;
}

Array read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw NpyError(path + ": cannot open for reading");
  // In blocks: a character at a time (istreambuf_iterator) took 0.1 s for 60 MB.
  std::vector<char> c;
  for (std::vector<char> block(1 << 20); f.read(block.data(), std::streamsize(block.size())) || f.gcount() > 0;)
    c.insert(c.end(), block.begin(), block.begin() + f.gcount());
  if (f.bad()) throw NpyError(path + ": read error");
  return parse(std::as_bytes(std::span(c)), path);
}

std::vector<std::byte> serialize(const Array& a) {
  if (a.data.size() != a.element_count() * exe::dtype_bytes(a.dtype))
    throw NpyError("npy: " + describe(a) + " with " + std::to_string(a.data.size()) + " data bytes");
  std::string dict = std::string("{'descr': '") + descr_of(a.dtype) + "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < a.shape.size(); ++i) dict += (i ? ", " : "") + std::to_string(a.shape[i]);
  dict += a.shape.size() == 1 ? ",)" : ")";  // numpy: (2, 3), (2,), ()
  dict += ", }";
  // Header: magic, version, length, dict, spaces, '\n'; the data starts at a multiple of 64.
  const bool v2 = (10 + dict.size() + 1 + 63) / 64 * 64 - 10 > 65535;  // the length is a u16 in 1.0
  const size_t prefix = v2 ? 12 : 10;
  const size_t total = (prefix + dict.size() + 1 + 63) / 64 * 64;
  dict.append(total - prefix - dict.size() - 1, ' ');
  dict += '\n';
  std::vector<std::byte> out(total + a.data.size());
  std::memcpy(out.data(), kMagic, kMagicBytes);
  out[6] = std::byte{v2 ? uint8_t{2} : uint8_t{1}};
  out[7] = std::byte{0};
  const size_t len = dict.size();
  for (size_t i = 0; i < prefix - 8; ++i) out[8 + i] = std::byte{static_cast<uint8_t>(len >> (8 * i))};
  std::memcpy(out.data() + prefix, dict.data(), dict.size());
  if (!a.data.empty()) std::memcpy(out.data() + total, a.data.data(), a.data.size());
  return out;
}

void write_file(const std::string& path, const Array& a) {
  const std::vector<std::byte> bytes = serialize(a);
  std::ofstream f(path, std::ios::binary);
  if (!f) throw NpyError(path + ": cannot open for writing");
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!f.flush()) throw NpyError(path + ": write failed");
}

}  // namespace tessera::npy
