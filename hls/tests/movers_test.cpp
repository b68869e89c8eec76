// C simulation of the data movers (hls/movers) with g++ and the stand-in HLS headers: the
// flits and ring records are checked against flits packed here, independently, from the
// layout in docs/network.md (data 31:0, mask 35:32, word address 65:36, source 81:66,
// destination 97:82, kind 99:98). Random data print their seed.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "tess_d2h.h"
#include "tess_h2d.h"
#include "tess_movers.h"

namespace {

using u128 = unsigned __int128;
using namespace tess_movers;

constexpr uint32_t kTiles = 16, kSram = 131072, kHostNode = 16, kBase = 0x80000000u;

u128 ref_flit(uint32_t kind, uint32_t dst, uint32_t src, uint32_t addr, uint32_t data) {
  return u128{data} | u128{0xf} << 32 | u128{addr >> 2} << 36 | u128{src} << 66 | u128{dst} << 82 | u128{kind} << 98;
}

u128 bits(ap_uint<104> b) { return u128{b.get(63, 0)} | u128{b.get(103, 64)} << 64; }
u128 bits(ap_uint<128> b) { return u128{b.get(63, 0)} | u128{b.get(127, 64)} << 64; }

ap_uint<128> desc(uint32_t words, uint32_t addr, uint32_t tile, uint32_t kind, uint32_t offset, uint32_t reserved = 0) {
  ap_uint<128> d;
  d.range(31, 0) = words;
  d.range(63, 32) = addr;
  d.range(95, 64) = tile | kind << 16 | reserved;
  d.range(127, 96) = offset;
  return d;
}

struct Buffer {  // card memory as the movers see it: 512-bit lines
  std::vector<ap_uint<512>> lines;
  uint32_t word(uint32_t i) const { return static_cast<uint32_t>(lines[i / 16].get(32 * (i % 16) + 31, 32 * (i % 16))); }
};

Buffer random_buffer(uint32_t lines, uint32_t seed) {
  std::mt19937 rng(seed);
  Buffer b;
  b.lines.resize(lines);
  for (auto& l : b.lines)
    for (int k = 0; k < 16; ++k) l.range(32 * k + 31, 32 * k) = rng();
  return b;
}

TEST(Movers, HostToDeviceSendsEveryWordInBurstsOfLines) {
  const uint32_t seed = std::random_device{}();
  std::printf("seed %u\n", seed);
  const Buffer data = random_buffer(300, seed);
  // Lengths around a line (16 words) and a burst (64 lines = 1024 words), offsets inside lines.
  struct D {
    uint32_t words, tile, addr, offset;
  };
  const std::vector<D> ds = {{1, 0, kBase, 0},           {15, 3, kBase + 64, 4},    {16, 15, kBase + 400, 0},
                             {17, 7, kBase + 8, 60},     {1024, 2, kBase + 4096, 0}, {1500, 9, kBase, 1028},
                             {33, 1, kBase + kSram - 132, 18996}};
  std::vector<ap_uint<128>> dv;
  uint64_t want_lines = 0;
  for (const D& d : ds) {
    dv.push_back(desc(d.words, d.addr, d.tile, kKindWrite, d.offset));
    want_lines += (d.offset / 4 + d.words - 1) / 16 - d.offset / 64 + 1;
  }
  hls::stream<ap_uint<104>> out("h2d");
  uint32_t status[4] = {99, 99, 99, 99};
  tess_h2d(dv.data(), data.lines.data(), out, static_cast<uint32_t>(dv.size()), 300 * 64, kHostNode, kTiles, kSram, status);
  EXPECT_EQ(status[0], kOk) << status_name(status[0]);
  uint64_t n = 0;
  for (const D& d : ds) {
    for (uint32_t i = 0; i < d.words; ++i, ++n) {
      ASSERT_FALSE(out.empty()) << "flit " << n;
      ASSERT_TRUE(bits(out.read()) == ref_flit(0, d.tile, kHostNode, d.addr + 4 * i, data.word(d.offset / 4 + i)))
          << "descriptor tile " << d.tile << " word " << i;
    }
  }
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(status[2], n);
  EXPECT_EQ(status[3], want_lines) << "each line read once per descriptor";
}

TEST(Movers, HostToDeviceReadRequestsCarryNoData) {
  std::vector<ap_uint<128>> dv = {desc(5, kBase + 20, 4, kKindRead, 0xdead0000), desc(1, kBase, 0, kKindDebugWrite, 0)};
  Buffer data = random_buffer(1, 7);
  hls::stream<ap_uint<104>> out;
  uint32_t status[4] = {};
  tess_h2d(dv.data(), data.lines.data(), out, 2, 64, kHostNode + 1, kTiles, kSram, status);
  ASSERT_EQ(status[0], kOk) << status_name(status[0]);
  for (uint32_t i = 0; i < 5; ++i) EXPECT_TRUE(bits(out.read()) == ref_flit(1, 4, kHostNode + 1, kBase + 20 + 4 * i, 0));
  EXPECT_TRUE(bits(out.read()) == ref_flit(2, 0, kHostNode + 1, kBase, data.word(0)));
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(status[2], 6u);
  EXPECT_EQ(status[3], 1u);
}

TEST(Movers, HostToDeviceRejectsBadDescriptorsBeforeSendingAnything) {
  Buffer data = random_buffer(4, 3);
  struct Case {
    ap_uint<128> bad;
    uint32_t code;
  };
  const std::vector<Case> cases = {
      {desc(1, kBase, 0, 3, 0), kBadKind},
      {desc(1, kBase, kTiles, kKindWrite, 0), kBadTile},
      {desc(1, kBase + 2, 0, kKindWrite, 0), kMisaligned},
      {desc(1, kBase, 0, kKindWrite, 6), kMisaligned},
      {desc(0, kBase, 0, kKindWrite, 0), kEmpty},
      {desc(1, kBase - 4, 0, kKindRead, 0), kOutsideSram},
      {desc(2, kBase + kSram - 4, 0, kKindRead, 0), kOutsideSram},
      {desc(0x40000000, kBase, 0, kKindRead, 0), kOutsideSram},
      {desc(2, kBase, 0, kKindWrite, 4 * 64 - 4), kPastData},
      {desc(1, kBase, 0, kKindWrite, 0, 1u << 20), kReserved},
  };
  for (size_t c = 0; c < cases.size(); ++c) {
    std::vector<ap_uint<128>> dv = {desc(8, kBase, 1, kKindWrite, 0), desc(2, kBase, 2, kKindRead, 0), cases[c].bad};
    hls::stream<ap_uint<104>> out;
    uint32_t status[4] = {};
    tess_h2d(dv.data(), data.lines.data(), out, 3, 4 * 64, kHostNode, kTiles, kSram, status);
    EXPECT_EQ(status[0], cases[c].code) << "case " << c << ": " << status_name(status[0]);
    EXPECT_EQ(status[1], 2u) << "case " << c << ": the bad descriptor's index";
    EXPECT_TRUE(out.empty()) << "case " << c << ": nothing sent";
  }
}

std::vector<u128> feed(hls::stream<ap_uint<104>>& s, uint32_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<u128> v;
  for (uint32_t i = 0; i < n; ++i) {
    const u128 f = ref_flit(0, kHostNode, rng() % kTiles, kBase + 4 * (rng() % 1024), rng());
    ap_uint<104> b;
    b.range(63, 0) = static_cast<uint64_t>(f);
    b.range(103, 64) = static_cast<uint64_t>(f >> 64);
    s.write(b);
    v.push_back(f);
  }
  return v;
}

TEST(Movers, DeviceToHostWrapsAroundTheRing) {
  hls::stream<ap_uint<104>> in;
  const std::vector<u128> sent = feed(in, 6, 11);
  std::vector<ap_uint<128>> ring(8);
  uint32_t status[4] = {};
  tess_d2h(in, ring.data(), 8, 5, 5, 6, status);
  EXPECT_EQ(status[0], kOk) << status_name(status[0]);
  EXPECT_EQ(status[1], 3u) << "new head";
  EXPECT_EQ(status[2], 6u);
  const uint32_t at[6] = {5, 6, 7, 0, 1, 2};
  for (int i = 0; i < 6; ++i) EXPECT_TRUE(bits(ring[at[i]]) == sent[i]) << "record " << i;
  EXPECT_TRUE(in.empty());
}

TEST(Movers, DeviceToHostStopsAtAFullRingAndLeavesTheRestInTheStream) {
  hls::stream<ap_uint<104>> in;
  const std::vector<u128> sent = feed(in, 10, 12);
  std::vector<ap_uint<128>> ring(8);
  uint32_t status[4] = {};
  // head 3, tail 5: records 5, 6, 7, 0, 1, 2 are the host's; room for one (slot 3).
  tess_d2h(in, ring.data(), 8, 3, 5, 10, status);
  EXPECT_EQ(status[0], kRingFull) << status_name(status[0]);
  EXPECT_EQ(status[1], 4u);
  EXPECT_EQ(status[2], 1u);
  EXPECT_EQ(in.size(), 9u) << "back-pressure: the rest stays in the stream";
  EXPECT_TRUE(bits(ring[3]) == sent[0]);
  // The host drains everything (tail = head); the next launch takes 7, then 2.
  tess_d2h(in, ring.data(), 8, 4, 4, 9, status);
  EXPECT_EQ(status[0], kRingFull);
  EXPECT_EQ(status[2], 7u);
  EXPECT_EQ(status[1], 3u);
  for (uint32_t i = 0; i < 7; ++i) EXPECT_TRUE(bits(ring[(4 + i) % 8]) == sent[1 + i]) << "record " << i;
  tess_d2h(in, ring.data(), 8, 3, 3, 2, status);
  EXPECT_EQ(status[0], kOk);
  EXPECT_TRUE(bits(ring[3]) == sent[8] && bits(ring[4]) == sent[9]);
  EXPECT_TRUE(in.empty());
}

TEST(Movers, DeviceToHostRejectsABadRing) {
  hls::stream<ap_uint<104>> in;
  feed(in, 2, 13);
  std::vector<ap_uint<128>> ring(8);
  uint32_t status[4] = {};
  tess_d2h(in, ring.data(), 1, 0, 0, 1, status);
  EXPECT_EQ(status[0], kRingSize);
  tess_d2h(in, ring.data(), 8, 8, 0, 1, status);
  EXPECT_EQ(status[0], kRingIndex);
  tess_d2h(in, ring.data(), 8, 0, 9, 1, status);
  EXPECT_EQ(status[0], kRingIndex);
  EXPECT_EQ(in.size(), 2u) << "nothing taken";
}

TEST(Movers, StandInTypesHaveTheCardMemoryLayout) {
  // The card driver hands the movers card memory as these types (host/card: card-sim).
  static_assert(sizeof(ap_uint<128>) == 16 && sizeof(ap_uint<512>) == 64);
  ap_uint<128> r;
  r.range(31, 0) = 0x11223344u;
  r.range(127, 96) = 0xaabbccddu;
  unsigned char b[16];
  std::memcpy(b, &r, 16);
  EXPECT_EQ(b[0], 0x44);
  EXPECT_EQ(b[15], 0xaa);
}

}  // namespace
