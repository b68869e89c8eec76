#include "strided_sends.h"

#include <random>
#include <stdexcept>

#include "examples.h"

namespace tessera::handbuilt {

StridedSends::StridedSends(uint32_t tiles_, uint32_t seed) : tiles(tiles_) {
  if (tiles < 2) throw std::invalid_argument("StridedSends needs 2 tiles or more");
  std::mt19937 rng(seed);
  src.resize(tiles);
  for (auto& s : src) {
    s.resize(kSrcWords);
    for (uint32_t& w : s) w = static_cast<uint32_t>(rng());
  }
}

std::vector<StridedSends::Transfer> StridedSends::transfers() const {
  constexpr uint32_t row = kCols * 4, channel = kRows * row;  // bytes
  std::vector<Transfer> x;
  for (uint32_t t = 0; t < tiles; ++t) {
    const uint32_t d1 = (t + 1) % tiles, d2 = (t + tiles / 2 + 1) % tiles;
    x.push_back({t, 2 * row, 4 * row, kChannels, channel, 4 * row, d1, kRecv, 0});      // recv words 0..255
    x.push_back({t, 7 * channel, row, 1, 0, 0, d1, kRecv, 256 * 4});                      // 256..263
    x.push_back({t, 3 * channel + 2 * 4, 3 * 4, kRows, row, 4 * 4, d1, kRecv, 264 * 4});  // 264..295, gaps
    x.push_back({t, 7 * row, 4 * 4, 5, 0, 6 * 4, d2, kBcast, 0});                         // bcast 0..29, gaps
    x.push_back({t, channel + row, row, 1, 4000, 8000, d2, kBcast, 32 * 4});              // 32..39
    x.push_back({t, 0, 0, 3, 4, 4, d2, kBcast, 40 * 4});                                  // nothing
    x.push_back({t, 5 * channel, row, kRows / 2, 2 * row, row, d2, kBcast, 40 * 4});      // 40..71
  }
  return x;
}

std::vector<uint32_t> StridedSends::expected_words() const {
  std::vector<uint32_t> w(tiles, 0);
  for (const Transfer& x : transfers()) w[x.to] += x.bytes / 4 * x.count;
  return w;
}

uint32_t StridedSends::slots(uint32_t tile, bool strided) const {
  uint32_t n = 0;
  for (const Transfer& x : transfers())
    if (x.from == tile) n += strided ? (x.count > 1 || x.src_stride ? 2 : 1) : x.count;
  return n;
}

void StridedSends::build(ProgramBuilder& b, bool strided) {
  addr_.resize(tiles);
  for (uint32_t t = 0; t < tiles; ++t) addr_[t] = {b.put(t, src[t]), b.alloc(t, kRecvWords), b.alloc(t, kBcastWords)};
  const auto base = [&](uint32_t t, Region r) {
    return r == kSrc ? addr_[t].src : r == kRecv ? addr_[t].recv : addr_[t].bcast;
  };
  for (const Transfer& x : transfers()) {
    const uint32_t s = addr_[x.from].src + x.src, d = base(x.to, x.region) + x.dst;
    if (!strided) {
      for (uint32_t k = 0; k < x.count; ++k) b.add_send(x.from, 0, s + k * x.src_stride, x.bytes, x.to, d + k * x.dst_stride);
    } else if (x.count > 1 || x.src_stride) {  // the one-run entry with strides is strided too
      b.add_send(x.from, 0, s, x.bytes, x.to, d, {x.count, x.src_stride, x.dst_stride, 0});
    } else {
      b.add_send(x.from, 0, s, x.bytes, x.to, d);
    }
  }
  const std::vector<uint32_t> words = expected_words();
  for (uint32_t t = 0; t < tiles; ++t) {
    b.expect(t, 0, words[t]);
    b.add_vertex(t, 0, kCodelet_copy, {addr_[t].src, addr_[t].recv, kRows * kCols});
  }
  b.program() = {arch::kCtlRepeat, kRounds, 4, arch::kCtlExchange, 0, arch::kCtlExecute, 0, arch::kCtlEnd};
}

std::vector<StridedSends::Memory> StridedSends::reference() const {
  std::vector<Memory> m(tiles);
  for (uint32_t t = 0; t < tiles; ++t) m[t] = {src[t], std::vector<uint32_t>(kRecvWords), std::vector<uint32_t>(kBcastWords)};
  for (uint32_t round = 0; round < kRounds; ++round) {
    const std::vector<Memory> before = m;  // every word moves at once
    for (const Transfer& x : transfers()) {
      std::vector<uint32_t>& to = x.region == kRecv ? m[x.to].recv : m[x.to].bcast;
      for (uint32_t k = 0; k < x.count; ++k)
        for (uint32_t i = 0; i < x.bytes / 4; ++i)
          to.at((x.dst + k * x.dst_stride) / 4 + i) = before[x.from].src.at((x.src + k * x.src_stride) / 4 + i);
    }
    for (auto& t : m) std::copy(t.recv.begin(), t.recv.begin() + kRows * kCols, t.src.begin());
  }
  return m;
}

std::vector<StridedSends::Memory> StridedSends::read(device::Device& dev) const {
  std::vector<Memory> m(tiles);
  for (uint32_t t = 0; t < tiles; ++t)
    m[t] = {read_words(dev, t, addr_[t].src, kSrcWords), read_words(dev, t, addr_[t].recv, kRecvWords),
            read_words(dev, t, addr_[t].bcast, kBcastWords)};
  return m;
}

}  // namespace tessera::handbuilt
