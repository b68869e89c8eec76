// The PyTorch reference's plan generator in C++ (examples/mnist/training-plan.md): numpy's
// default_rng (SeedSequence -> PCG64) for the batch order and shifts, torch's CPU generator
// (mt19937) for nn.Linear's initial parameters, drawn exactly as train_sgd_reference.py does.
#include <cmath>
#include <stdexcept>
#include <string>

#include "tessera/data/plan.h"

namespace tessera::data {

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
