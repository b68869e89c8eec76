#include "examples.h"

#include <bit>
#include <cmath>
#include <random>

namespace tessera::handbuilt {

using arch::kCtlEnd;
using arch::kCtlExchange;
using arch::kCtlExecute;
using arch::kCtlHostSync;
using arch::kCtlIf;
using arch::kCtlRepeat;

std::vector<uint32_t> float_words(const std::vector<float>& f) {
  std::vector<uint32_t> w;
  for (float v : f) w.push_back(std::bit_cast<uint32_t>(v));
  return w;
}

std::vector<float> word_floats(const std::vector<uint32_t>& w) {
  std::vector<float> f;
  for (uint32_t v : w) f.push_back(std::bit_cast<float>(v));
  return f;
}

namespace {

std::vector<float> random_floats(std::mt19937& rng, size_t n) {
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& f : v) f = d(rng);
  return v;
}

}  // namespace

// ---- MatVec16 ------------------------------------------------------------------------------

MatVec16::MatVec16(uint32_t seed, uint32_t repeat_) : repeat(repeat_) {
  std::mt19937 rng(seed);
  a = random_floats(rng, kN * kN);
  x = random_floats(rng, kN);
}

void MatVec16::build(ProgramBuilder& b) {
  addr_.resize(kTiles);
  for (uint32_t t = 0; t < kTiles; ++t) {
    const uint32_t r = t / 4, c = t % 4;
    std::vector<float> block;
    for (uint32_t i = 0; i < kBlock; ++i)
      for (uint32_t j = 0; j < kBlock; ++j) block.push_back(a[(r * kBlock + i) * kN + c * kBlock + j]);
    TileAddrs& m = addr_[t];
    m.a = b.put(t, float_words(block));
    m.x = b.alloc(t, kBlock);
    m.partial = b.alloc(t, kBlock);
    m.gather = b.alloc(t, 4 * kSlice);
    m.y = b.alloc(t, kSlice);
  }
  for (uint32_t t = 0; t < kTiles; ++t) {
    const uint32_t r = t / 4, c = t % 4;
    const TileAddrs& m = addr_[t];
    if (r == 0) {
      b.expect_host(t, 0, kBlock);
      for (uint32_t below = 1; below < 4; ++below) {  // exchange 0: x block down the column
        b.add_send(t, 0, m.x, kBlock * 4, below * 4 + c, addr_[below * 4 + c].x);
        b.expect(below * 4 + c, 0, kBlock);
      }
    }
    b.add_vertex(t, 0, kCodelet_matvec, {m.partial, m.a, m.x, kBlock, kBlock});
    for (uint32_t c2 = 0; c2 < 4; ++c2) {  // exchange 1: slice c2 of the partial to tile (r, c2)
      const uint32_t dst = r * 4 + c2;
      b.add_send(t, 1, m.partial + c2 * kSlice * 4, kSlice * 4, dst, addr_[dst].gather + c * kSlice * 4);
      b.expect(dst, 1, kSlice);
    }
    b.add_vertex(t, 1, kCodelet_reduce_sum, {m.y, m.gather, kSlice, 4});
  }
  b.expect_host(0, 1, 0);  // host sync 1 moves data out only
  b.program() = {kCtlHostSync, 0, kCtlRepeat, repeat, 8, kCtlExchange, 0, kCtlExecute, 0, kCtlExchange, 1,
                 kCtlExecute, 1, kCtlHostSync, 1, kCtlEnd};
}

std::vector<float> MatVec16::run(device::Device& dev) {
  std::vector<float> y(kN);
  handbuilt::run(dev, [&](uint32_t sync) {
    for (uint32_t t = 0; t < kTiles; ++t) {
      const uint32_t r = t / 4, c = t % 4;
      if (sync == 0 && r == 0)
        write_words(dev, t, addr_[t].x,
                    float_words(std::vector<float>(x.begin() + c * kBlock, x.begin() + (c + 1) * kBlock)));
      if (sync == 1) {
        const auto part = word_floats(read_words(dev, t, addr_[t].y, kSlice));
        std::copy(part.begin(), part.end(), y.begin() + r * kBlock + c * kSlice);
      }
    }
  });
  return y;
}

std::vector<float> MatVec16::reference() const {
  std::vector<float> y(kN);
  for (uint32_t row = 0; row < kN; ++row) {
    float sum = 0.0f;
    for (uint32_t c = 0; c < 4; ++c) {
      float acc = 0.0f;  // matvec: fma chain over the block's columns, from +0
      for (uint32_t j = 0; j < kBlock; ++j) acc = std::fmaf(a[row * kN + c * kBlock + j], x[c * kBlock + j], acc);
      sum = c == 0 ? acc : sum + acc;  // reduce_sum: first partial, then add left to right
    }
    y[row] = sum;
  }
  return y;
}

std::vector<double> MatVec16::exact() const {
  std::vector<double> y(kN, 0.0);
  for (uint32_t row = 0; row < kN; ++row)
    for (uint32_t j = 0; j < kN; ++j) y[row] += double{a[row * kN + j]} * x[j];
  return y;
}

// ---- AllReduce16 ---------------------------------------------------------------------------

AllReduce16::AllReduce16(uint32_t seed, bool relu_) : relu(relu_) {
  std::mt19937 rng(seed);
  for (uint32_t t = 0; t < kTiles; ++t) v.push_back(random_floats(rng, kLen));
}

void AllReduce16::build(ProgramBuilder& b) {
  addr_.resize(kTiles);
  for (uint32_t t = 0; t < kTiles; ++t) {
    TileAddrs& m = addr_[t];
    m.v = b.put(t, float_words(v[t]));
    m.gather = b.alloc(t, kTiles * kChunk);
    m.owned = b.alloc(t, kChunk);
    m.result = b.alloc(t, kLen);
    m.cond = b.put(t, {relu ? 1u : 0u});
    b.set_condition(t, 0, m.cond);
  }
  const uint32_t scale = std::bit_cast<uint32_t>(1.0f / kTiles);
  for (uint32_t t = 0; t < kTiles; ++t) {
    const TileAddrs& m = addr_[t];
    for (uint32_t j = 0; j < kTiles; ++j) {
      // Exchange 0 (reduce-scatter): chunk j of v_t into slot t of tile j's gather.
      b.add_send(t, 0, m.v + j * kChunk * 4, kChunk * 4, j, addr_[j].gather + t * kChunk * 4);
      // Exchange 1 (all-gather): tile t's sum into chunk t of every tile's result.
      b.add_send(t, 1, m.owned, kChunk * 4, j, addr_[j].result + t * kChunk * 4);
    }
    b.expect(t, 0, kTiles * kChunk);
    b.expect(t, 1, kLen);
    b.add_vertex(t, 0, kCodelet_reduce_sum, {m.owned, m.gather, kChunk, kTiles});
    b.add_vertex(t, 1, kCodelet_scale, {m.v, m.result, kLen, scale});
    b.add_vertex(t, 2, kCodelet_relu, {m.v, m.v, kLen});
  }
  b.expect_host(0, 0, 0);
  b.program() = {kCtlRepeat, kRounds, 8,                                   // 3 times:
                 kCtlExchange, 0, kCtlExecute, 0, kCtlExchange, 1, kCtlExecute, 1,
                 kCtlIf, 0, 2, 0, kCtlExecute, 2,                           // if (cond) relu
                 kCtlHostSync, 0, kCtlEnd};
}

std::vector<std::vector<float>> AllReduce16::run(device::Device& dev) {
  std::vector<std::vector<float>> out(kTiles);
  handbuilt::run(dev, [&](uint32_t) {
    for (uint32_t t = 0; t < kTiles; ++t) out[t] = word_floats(read_words(dev, t, addr_[t].v, kLen));
  });
  return out;
}

std::vector<float> AllReduce16::reference() const {
  std::vector<std::vector<float>> cur = v;
  std::vector<float> mean(kLen);
  for (uint32_t round = 0; round < kRounds; ++round) {
    for (uint32_t i = 0; i < kLen; ++i) {
      float s = cur[0][i];
      for (uint32_t t = 1; t < kTiles; ++t) s = s + cur[t][i];
      mean[i] = s * (1.0f / kTiles);
    }
    for (auto& vt : cur) vt = mean;
  }
  if (relu)
    for (float& f : mean) f = f > 0.0f ? f : 0.0f;  // relu of a non-NaN: max(x, +0)
  return mean;
}

}  // namespace tessera::handbuilt
