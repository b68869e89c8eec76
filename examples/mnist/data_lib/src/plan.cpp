// The MNIST training plan (examples/mnist/training-plan.md): reader, writer, shift, gather,
// and the PyTorch reference's generator (numpy default_rng + torch's init) in C++.
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
  const Json* get(const std::string& key) const {
    for (const auto& [k, v] : members)
      if (k == key) return &v;
    return nullptr;
  }
};

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

// ---- numpy's default_rng: SeedSequence -> PCG64 ----

namespace {

constexpr uint32_t kInitA = 0x43b0d7e5, kMultA = 0x931e8875, kInitB = 0x8b51f9dd, kMultB = 0x58f38ded;
constexpr uint32_t kMixMultL = 0xca01f9dd, kMixMultR = 0x4973f715;

// numpy.random.SeedSequence(seed).generate_state(n32, uint32) (pool size 4, no spawn key).
std::vector<uint32_t> seed_sequence_state(uint64_t seed, size_t n32) {
  std::vector<uint32_t> entropy{uint32_t(seed)};
  if (seed >> 32) entropy.push_back(uint32_t(seed >> 32));
  uint32_t hash_const = kInitA;
  auto hashmix = [&](uint32_t v) {
    v ^= hash_const;
    hash_const *= kMultA;
    v *= hash_const;
    v ^= v >> 16;
    return v;
  };
  auto mix = [](uint32_t x, uint32_t y) {
    uint32_t r = kMixMultL * x - kMixMultR * y;
    r ^= r >> 16;
    return r;
  };
  uint32_t pool[4];
  for (size_t i = 0; i < 4; ++i) pool[i] = hashmix(i < entropy.size() ? entropy[i] : 0);
  for (size_t s = 0; s < 4; ++s)
    for (size_t d = 0; d < 4; ++d)
      if (s != d) pool[d] = mix(pool[d], hashmix(pool[s]));
  std::vector<uint32_t> out(n32);
  uint32_t hc = kInitB;
  for (size_t i = 0; i < n32; ++i) {
    uint32_t v = pool[i % 4];
    v ^= hc;
    hc *= kMultB;
    v *= hc;
    v ^= v >> 16;
    out[i] = v;
  }
  return out;
}

using u128 = unsigned __int128;
constexpr u128 kPcgMult = (u128(0x2360ED051FC65DA4ull) << 64) | 0x4385DF649FCCF645ull;

}  // namespace

NumpyRng::NumpyRng(uint64_t seed) {
  const std::vector<uint32_t> w = seed_sequence_state(seed, 8);
  uint64_t v[4];
  for (int i = 0; i < 4; ++i) v[i] = uint64_t(w[2 * i]) | (uint64_t(w[2 * i + 1]) << 32);
  const u128 initstate = (u128(v[0]) << 64) | v[1];
  const u128 initseq = (u128(v[2]) << 64) | v[3];
  state_ = 0;
  inc_ = (initseq << 1) | 1;
  state_ = state_ * kPcgMult + inc_;
  state_ += initstate;
  state_ = state_ * kPcgMult + inc_;
}

uint64_t NumpyRng::next_u64() {
  state_ = state_ * kPcgMult + inc_;
  const uint64_t hi = uint64_t(state_ >> 64), lo = uint64_t(state_);
  const uint64_t x = hi ^ lo;
  const unsigned rot = unsigned(hi >> 58);
  return (x >> rot) | (x << ((64 - rot) & 63));
}

uint32_t NumpyRng::next_u32() {
  if (has_u32_) {
    has_u32_ = false;
    return u32_;
  }
  const uint64_t n = next_u64();
  has_u32_ = true;
  u32_ = uint32_t(n >> 32);
  return uint32_t(n);
}

uint64_t NumpyRng::interval(uint64_t max) {
  if (max == 0) return 0;
  uint64_t mask = max;
  for (int s = 1; s < 64; s <<= 1) mask |= mask >> s;
  uint64_t v;
  if (max <= 0xFFFFFFFFull) {
    while ((v = (next_u32() & mask)) > max) {
    }
  } else {
    while ((v = (next_u64() & mask)) > max) {
    }
  }
  return v;
}

std::vector<int64_t> NumpyRng::permutation(uint32_t n) {
  std::vector<int64_t> a(n);
  for (uint32_t i = 0; i < n; ++i) a[i] = i;
  for (uint32_t i = n; i-- > 1;) std::swap(a[i], a[interval(i)]);
  return a;
}

std::vector<int64_t> NumpyRng::integers_closed(int64_t low, int64_t high, size_t count) {
  if (high < low) throw std::invalid_argument("integers: high < low");
  const uint64_t rng = uint64_t(high) - uint64_t(low);
  std::vector<int64_t> out(count, low);
  if (rng == 0) return out;
  if (rng > 0xFFFFFFFEull) throw std::invalid_argument("integers: ranges over 2^32-1 values are not implemented");
  const uint32_t excl = uint32_t(rng) + 1;
  for (size_t i = 0; i < count; ++i) {
    // Lemire's method, as numpy's buffered_bounded_lemire_uint32.
    uint64_t m = uint64_t(next_u32()) * excl;
    uint32_t left = uint32_t(m);
    if (left < excl) {
      const uint32_t threshold = (0xFFFFFFFFu - uint32_t(rng)) % excl;
      while (left < threshold) {
        m = uint64_t(next_u32()) * excl;
        left = uint32_t(m);
      }
    }
    out[i] = int64_t(uint64_t(low) + (m >> 32));
  }
  return out;
}

// ---- torch's CPU generator: mt19937 ----

TorchRng::TorchRng(uint64_t seed) {
  mt_[0] = uint32_t(seed & 0xffffffffu);
  for (uint32_t j = 1; j < 624; ++j) mt_[j] = 1812433253u * (mt_[j - 1] ^ (mt_[j - 1] >> 30)) + j;
}

uint32_t TorchRng::next_u32() {
  if (next_ >= 624) {
    for (int k = 0; k < 624; ++k) {
      const uint32_t y = (mt_[k] & 0x80000000u) | (mt_[(k + 1) % 624] & 0x7fffffffu);
      mt_[k] = mt_[(k + 397) % 624] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
    }
    next_ = 0;
  }
  uint32_t y = mt_[next_++];
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680u;
  y ^= (y << 15) & 0xefc60000u;
  y ^= y >> 18;
  return y;
}

float TorchRng::uniform(double from_d, double to_d) {
  // at::uniform_real_distribution<float>: 24 random bits scaled to [0,1), then
  // x * (to - from) + from, which torch's build contracts into one fused multiply-add
  // (checked bit for bit against torch 1.13's nn.Linear init).
  const float from = static_cast<float>(from_d), to = static_cast<float>(to_d);
  const float x = static_cast<float>(next_u32() & ((1u << 24) - 1)) * (1.0f / float(1u << 24));
  return std::fmaf(x, to - from, from);
}

// ---- The reference's generator ----

Plan generate_plan(uint64_t seed, uint32_t batch, uint32_t epochs, int shift_max, std::vector<uint32_t> layers,
                   uint32_t train_count) {
  if (batch == 0 || batch > train_count)
    throw std::invalid_argument("generate_plan: batch " + std::to_string(batch) + " must be 1.." + std::to_string(train_count));
  if (epochs == 0) throw std::invalid_argument("generate_plan: at least one epoch");
  if (shift_max < 0 || shift_max > 127) throw std::invalid_argument("generate_plan: shift_max must be 0..127");
  if (layers.size() < 2) throw std::invalid_argument("generate_plan: at least two layer sizes");
  Plan p;
  p.batch = batch;
  p.layers = std::move(layers);
  p.steps_per_epoch = train_count / batch;
  p.epochs = epochs;
  p.steps = epochs * p.steps_per_epoch;
  p.seed = int64_t(seed);
  p.shift_max = shift_max;
  // Parameters: nn.Linear(in, out) in layer order; weight [out, in] then bias, each
  // uniform_(-bound, bound); w_k is the weight transposed.
  TorchRng t(seed);
  for (size_t k = 0; k + 1 < p.layers.size(); ++k) {
    const uint32_t in = p.layers[k], out = p.layers[k + 1];
    // kaiming_uniform_(a=sqrt(5)): gain = sqrt(2/(1+a^2)), bound = sqrt(3) * gain / sqrt(fan_in).
    const double a = std::sqrt(5.0);
    const double gain = std::sqrt(2.0 / (1 + a * a));
    const double wbound = std::sqrt(3.0) * (gain / std::sqrt(double(in)));
    std::vector<float> w(size_t(in) * out);
    for (uint32_t o = 0; o < out; ++o)
      for (uint32_t i = 0; i < in; ++i) w[size_t(i) * out + o] = t.uniform(-wbound, wbound);
    const double bbound = 1 / std::sqrt(double(in));
    std::vector<float> b(out);
    for (float& v : b) v = t.uniform(-bbound, bbound);
    p.params.push_back(std::move(w));
    p.params.push_back(std::move(b));
  }
  NumpyRng r(seed);
  const size_t per_epoch = size_t(p.steps_per_epoch) * batch;
  for (uint32_t e = 0; e < epochs; ++e) {
    const std::vector<int64_t> perm = r.permutation(train_count);
    const std::vector<int64_t> sh = r.integers_closed(-shift_max, shift_max, per_epoch * 2);
    for (size_t i = 0; i < per_epoch; ++i) p.order.push_back(uint32_t(perm[i]));
    for (int64_t v : sh) p.shifts.push_back(int8_t(v));
  }
  return p;
}

}  // namespace tessera::data
