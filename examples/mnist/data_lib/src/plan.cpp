// The MNIST training plan (examples/mnist/training-plan.md): reader, writer, shift and
// gather. The generator is in plan_generate.cpp.
#include "tessera/data/plan.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace tessera::data {

namespace {

// ---- A small JSON reader: enough for plan.json (any valid JSON; depth limited) ----

struct Json {
  enum Kind { kNull, kBool, kNumber, kString, kArray, kObject } kind = kNull;
  bool b = false;
  double num = 0;
  bool integral = false;  // the literal had no fraction or exponent
  std::string str;
  std::vector<Json> items;
  std::vector<std::pair<std::string, Json>> members;
  // Defined below the struct: a pair<string, Json> needs Json complete, and Clang
  // instantiates the members' special functions where Json's are defined.
  const Json* get(const std::string& key) const;
  Json();
  Json(const Json&);
  Json(Json&&) noexcept;
  Json& operator=(const Json&);
  Json& operator=(Json&&) noexcept;
  ~Json();
};

Json::Json() = default;
Json::Json(const Json&) = default;
Json::Json(Json&&) noexcept = default;
Json& Json::operator=(const Json&) = default;
Json& Json::operator=(Json&&) noexcept = default;
Json::~Json() = default;

const Json* Json::get(const std::string& key) const {
  for (const auto& [k, v] : members)
    if (k == key) return &v;
  return nullptr;
}

class JsonParser {
 public:
  JsonParser(std::string_view t, const std::string& name) : t_(t), name_(name) {}
  Json parse() {
    Json v = value(0);
    ws();
    if (p_ != t_.size()) fail("unexpected text after the JSON value");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw DataError(name_, "invalid JSON at byte " + std::to_string(p_) + ": " + what);
  }
  void ws() {
    while (p_ < t_.size() && (t_[p_] == ' ' || t_[p_] == '\t' || t_[p_] == '\n' || t_[p_] == '\r')) ++p_;
  }
  bool eat(char c) {
    ws();
    if (p_ < t_.size() && t_[p_] == c) {
      ++p_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!eat(c)) fail(std::string("expected '") + c + "'");
  }
  bool literal(std::string_view w) {
    if (t_.substr(p_, w.size()) == w) {
      p_ += w.size();
      return true;
    }
    return false;
  }
  Json value(int depth) {
    if (depth > 64) fail("nested too deeply");
    ws();
    if (p_ >= t_.size()) fail("unexpected end");
    Json v;
    const char c = t_[p_];
    if (c == '{') {
      ++p_;
      v.kind = Json::kObject;
      if (eat('}')) return v;
      do {
        ws();
        if (p_ >= t_.size() || t_[p_] != '"') fail("expected a string key");
        std::string k = string();
        expect(':');
        v.members.emplace_back(std::move(k), value(depth + 1));
      } while (eat(','));
      expect('}');
    } else if (c == '[') {
      ++p_;
      v.kind = Json::kArray;
      if (eat(']')) return v;
      do v.items.push_back(value(depth + 1));
      while (eat(','));
      expect(']');
    } else if (c == '"') {
      v.kind = Json::kString;
      v.str = string();
    } else if (literal("true")) {
      v.kind = Json::kBool;
      v.b = true;
    } else if (literal("false")) {
      v.kind = Json::kBool;
    } else if (literal("null")) {
      v.kind = Json::kNull;
    } else {
      number(v);
    }
    return v;
  }
  std::string string() {
    ++p_;  // the opening quote
    std::string s;
    while (true) {
      if (p_ >= t_.size()) fail("unterminated string");
      const char c = t_[p_++];
      if (c == '"') return s;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in a string");
      if (c != '\\') {
        s += c;
        continue;
      }
      if (p_ >= t_.size()) fail("unterminated string");
      const char e = t_[p_++];
      switch (e) {
        case '"': case '\\': case '/': s += e; break;
        case 'b': s += '\b'; break;
        case 'f': s += '\f'; break;
        case 'n': s += '\n'; break;
        case 'r': s += '\r'; break;
        case 't': s += '\t'; break;
        case 'u': {
          if (p_ + 4 > t_.size()) fail("short \\u escape");
          unsigned cp = 0;
          for (int i = 0; i < 4; ++i) {
            const char h = t_[p_++];
            cp <<= 4;
            if (h >= '0' && h <= '9') cp |= unsigned(h - '0');
            else if (h >= 'a' && h <= 'f') cp |= unsigned(h - 'a' + 10);
            else if (h >= 'A' && h <= 'F') cp |= unsigned(h - 'A' + 10);
            else fail("bad \\u escape");
          }
          // Keys and values we use are ASCII; keep others as UTF-8 of the BMP code unit.
          if (cp < 0x80) s += char(cp);
          else if (cp < 0x800) s += char(0xC0 | (cp >> 6)), s += char(0x80 | (cp & 0x3F));
          else s += char(0xE0 | (cp >> 12)), s += char(0x80 | ((cp >> 6) & 0x3F)), s += char(0x80 | (cp & 0x3F));
          break;
        }
        default: fail("bad escape");
      }
    }
  }
  void number(Json& v) {
    const size_t start = p_;
    auto digits = [&] {
      const size_t s = p_;
      while (p_ < t_.size() && t_[p_] >= '0' && t_[p_] <= '9') ++p_;
      return p_ > s;
    };
    if (p_ < t_.size() && t_[p_] == '-') ++p_;
    if (p_ < t_.size() && t_[p_] == '0') ++p_;
    else if (!digits()) fail("expected a value");
    v.integral = true;
    if (p_ < t_.size() && t_[p_] == '.') {
      ++p_;
      v.integral = false;
      if (!digits()) fail("bad number");
    }
    if (p_ < t_.size() && (t_[p_] == 'e' || t_[p_] == 'E')) {
      ++p_;
      v.integral = false;
      if (p_ < t_.size() && (t_[p_] == '+' || t_[p_] == '-')) ++p_;
      if (!digits()) fail("bad number");
    }
    v.kind = Json::kNumber;
    v.num = std::strtod(std::string(t_.substr(start, p_ - start)).c_str(), nullptr);
  }

  std::string_view t_;
  const std::string& name_;
  size_t p_ = 0;
};

// An integer in [lo, hi] (a JSON number with an integral value), or DataError.
int64_t json_int(const Json& v, const std::string& key, const std::string& name, int64_t lo, int64_t hi) {
  if (v.kind != Json::kNumber || !std::isfinite(v.num) || v.num != std::floor(v.num) || v.num < double(lo) ||
      v.num > double(hi))
    throw DataError(name, "\"" + key + "\" must be an integer in " + std::to_string(lo) + ".." + std::to_string(hi));
  return static_cast<int64_t>(v.num);
}

std::string path_in(const std::string& dir, const std::string& file) {
  return (std::filesystem::path(dir) / file).string();
}

// A file of exactly `count` elements of T.
template <typename T>
std::vector<T> read_exact(const std::string& path, size_t count) {
  const std::vector<uint8_t> bytes = read_file(path);
  if (bytes.size() != count * sizeof(T))
    throw DataError(path, std::to_string(bytes.size()) + " bytes, want " + std::to_string(count * sizeof(T)) + " (" +
                              std::to_string(count) + " x " + std::to_string(sizeof(T)) + "-byte elements)");
  std::vector<T> out(count);
  if (count) std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

void write_exact(const std::string& path, const void* data, size_t bytes) {
  std::ofstream f(path, std::ios::binary);
  if (!f) throw DataError(path, "cannot open for writing");
  f.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
  if (!f.flush()) throw DataError(path, "write failed");
}

}  // namespace

// ---- Plan files ----

uint32_t Plan::epoch_steps() const {
  uint32_t s = steps_per_epoch ? steps_per_epoch : (batch ? uint32_t(kSplitTrain / batch) : 1);
  return std::max<uint32_t>(1, std::min(s, std::max<uint32_t>(1, steps)));
}

std::vector<std::string> plan_param_names(size_t layer_count) {
  std::vector<std::string> n;
  for (size_t k = 1; k <= layer_count; ++k) n.push_back("w" + std::to_string(k)), n.push_back("b" + std::to_string(k));
  return n;
}

std::vector<std::vector<uint32_t>> plan_param_shapes(std::span<const uint32_t> layers) {
  std::vector<std::vector<uint32_t>> s;
  for (size_t k = 0; k + 1 < layers.size(); ++k) s.push_back({layers[k], layers[k + 1]}), s.push_back({layers[k + 1]});
  return s;
}

Plan parse_plan_json(std::string_view text, const std::string& name) {
  const Json j = JsonParser(text, name).parse();
  if (j.kind != Json::kObject) throw DataError(name, "not a JSON object");
  Plan p;
  if (const Json* f = j.get("format"))
    if (f->kind != Json::kString || f->str != kPlanFormat)
      throw DataError(name, std::string("\"format\" must be \"") + kPlanFormat + "\"");
  const Json* batch = j.get("batch");
  const Json* steps = j.get("steps");
  if (!batch || !steps) throw DataError(name, "needs integers \"batch\" and \"steps\"");
  p.batch = uint32_t(json_int(*batch, "batch", name, 1, 1 << 20));
  p.steps = uint32_t(json_int(*steps, "steps", name, 1, 1 << 24));
  if (uint64_t(p.batch) * p.steps > (uint64_t(1) << 28))
    throw DataError(name, "batch x steps = " + std::to_string(uint64_t(p.batch) * p.steps) + " samples: too many");
  if (const Json* l = j.get("layers")) {
    if (l->kind != Json::kArray || l->items.size() < 2 || l->items.size() > 16)
      throw DataError(name, "\"layers\" must be an array of 2..16 sizes");
    p.layers.clear();
    for (const Json& v : l->items) p.layers.push_back(uint32_t(json_int(v, "layers", name, 1, 1 << 16)));
    if (p.layers.front() != kPixels || p.layers.back() != kClasses)
      throw DataError(name, "\"layers\" must start at 784 and end at 10");
  }
  // Informative keys: used when well-formed, else ignored (as the reference does).
  auto opt_int = [&](const char* key, int64_t lo, int64_t hi, int64_t fallback) {
    const Json* v = j.get(key);
    if (!v || v->kind != Json::kNumber || !std::isfinite(v->num) || v->num != std::floor(v->num) || v->num < double(lo) ||
        v->num > double(hi))
      return fallback;
    return static_cast<int64_t>(v->num);
  };
  p.steps_per_epoch = uint32_t(opt_int("steps_per_epoch", 1, 1 << 24, 0));
  p.epochs = uint32_t(opt_int("epochs", 1, 1 << 24, 0));
  p.seed = opt_int("seed", 0, int64_t(1) << 53, -1);
  p.shift_max = int32_t(opt_int("shift_max", 0, 127, -1));
  return p;
}

std::vector<std::vector<float>> read_params(const std::string& dir, std::span<const uint32_t> layers) {
  std::vector<std::vector<float>> params;
  const auto names = plan_param_names(layers.size() - 1);
  const auto shapes = plan_param_shapes(layers);
  for (size_t i = 0; i < names.size(); ++i) {
    size_t n = 1;
    for (uint32_t d : shapes[i]) n *= d;
    const std::string path = path_in(dir, names[i] + ".f32");
    std::vector<float> v = read_exact<float>(path, n);
    for (size_t e = 0; e < v.size(); ++e)
      if (!std::isfinite(v[e])) throw DataError(path, "element " + std::to_string(e) + " is not finite");
    params.push_back(std::move(v));
  }
  return params;
}

Plan read_plan(const std::string& dir, uint32_t train_count) {
  const std::string json_path = path_in(dir, "plan.json");
  const std::vector<uint8_t> text = read_file(json_path);
  Plan p = parse_plan_json(std::string_view(reinterpret_cast<const char*>(text.data()), text.size()), json_path);
  p.params = read_params(dir, p.layers);
  const size_t samples = size_t(p.steps) * p.batch;
  const std::string order_path = path_in(dir, "order.u32");
  p.order = read_exact<uint32_t>(order_path, samples);
  for (size_t i = 0; i < p.order.size(); ++i)
    if (p.order[i] >= train_count)
      throw DataError(order_path, "element " + std::to_string(i) + " (step " + std::to_string(i / p.batch) + ", sample " +
                                      std::to_string(i % p.batch) + "): index " + std::to_string(p.order[i]) +
                                      " >= " + std::to_string(train_count) + " training digits");
  p.shifts = read_exact<int8_t>(path_in(dir, "shifts.i8"), samples * 2);
  return p;
}

void write_params(const std::string& dir, std::span<const uint32_t> layers, const std::vector<std::vector<float>>& params) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const auto names = plan_param_names(layers.size() - 1);
  const auto shapes = plan_param_shapes(layers);
  if (params.size() != names.size())
    throw DataError(dir, std::to_string(params.size()) + " parameters, want " + std::to_string(names.size()));
  for (size_t i = 0; i < names.size(); ++i) {
    size_t n = 1;
    for (uint32_t d : shapes[i]) n *= d;
    const std::string path = path_in(dir, names[i] + ".f32");
    if (params[i].size() != n)
      throw DataError(path, std::to_string(params[i].size()) + " values, want " + std::to_string(n));
    write_exact(path, params[i].data(), n * sizeof(float));
  }
}

void write_plan(const Plan& p, const std::string& dir) {
  const size_t samples = size_t(p.steps) * p.batch;
  if (p.order.size() != samples || p.shifts.size() != 2 * samples)
    throw DataError(dir, "plan arrays do not match batch x steps");
  write_params(dir, p.layers, p.params);
  write_exact(path_in(dir, "order.u32"), p.order.data(), samples * 4);
  write_exact(path_in(dir, "shifts.i8"), p.shifts.data(), samples * 2);
  std::ostringstream j;
  j << "{\n  \"format\": \"" << kPlanFormat << "\",\n  \"batch\": " << p.batch << ",\n  \"steps\": " << p.steps
    << ",\n  \"layers\": [";
  for (size_t i = 0; i < p.layers.size(); ++i) j << (i ? ", " : "") << p.layers[i];
  j << "]";
  if (p.epochs) j << ",\n  \"epochs\": " << p.epochs;
  if (p.steps_per_epoch) j << ",\n  \"steps_per_epoch\": " << p.steps_per_epoch;
  j << ",\n  \"train_count\": " << kSplitTrain;
  if (p.seed >= 0) j << ",\n  \"seed\": " << p.seed;
  if (p.shift_max >= 0) j << ",\n  \"shift_max\": " << p.shift_max;
  j << ",\n  \"generator\": \"tessera (C++): the generator of train_sgd_reference.py\"\n}\n";
  const std::string s = j.str();
  write_exact(path_in(dir, "plan.json"), s.data(), s.size());
}

// ---- Shift and gather ----

void shift_image(std::span<const float> in, int dx, int dy, std::span<float> out) {
  if (in.size() != kPixels || out.size() != kPixels) throw std::invalid_argument("shift_image: want 784 pixels");
  for (int r = 0; r < kRows; ++r)
    for (int c = 0; c < kCols; ++c) {
      const int sr = r - dy, sc = c - dx;
      out[size_t(r) * kCols + size_t(c)] =
          (sr >= 0 && sr < kRows && sc >= 0 && sc < kCols) ? in[size_t(sr) * kCols + size_t(sc)] : 0.0f;
    }
}

void gather_step(const Dataset& train, const Plan& plan, uint32_t step, std::span<float> x,
                 std::span<uint32_t> labels) {
  if (step >= plan.steps || x.size() != size_t(plan.batch) * kPixels || labels.size() != plan.batch)
    throw std::invalid_argument("gather_step: step " + std::to_string(step) + " or buffer sizes do not match the plan");
  for (uint32_t j = 0; j < plan.batch; ++j) {
    const uint32_t i = plan.index(step, j);
    if (i >= train.size())
      throw std::out_of_range("gather_step: training digit " + std::to_string(i) + " >= " + std::to_string(train.size()));
    shift_image(train.image(i), plan.dx(step, j), plan.dy(step, j), x.subspan(size_t(j) * kPixels, kPixels));
    labels[j] = train.labels[i];
  }
}

}  // namespace tessera::data
