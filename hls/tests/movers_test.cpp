// C simulation of the data movers (hls/movers) with g++ and the stand-in HLS headers: the
// flits and ring records are checked against flits packed here, independently, from the
// layout in docs/network.md (data 31:0, word address 49:32, destination 60:50, kind 63:61;
// a read request's data: the reply's node 10:0 and address 28:11). Random data print their
// seed.
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

// addr: the tile's byte address (0x8000_0000 + the SRAM offset).
uint64_t ref_flit(uint32_t kind, uint32_t dst, uint32_t addr, uint32_t data) {
  return uint64_t{data} | uint64_t{(addr - kBase) >> 2} << 32 | uint64_t{dst} << 50 | uint64_t{kind} << 61;
}
uint32_t ref_reply(uint32_t node, uint32_t tag) { return node | tag << 11; }

uint64_t bits(ap_uint<64> b) { return b.get(63, 0); }
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
  hls::stream<ap_uint<64>> out("h2d");
  uint32_t status[4] = {99, 99, 99, 99};
  tess_h2d(dv.data(), data.lines.data(), out, static_cast<uint32_t>(dv.size()), 300 * 64, kHostNode, kTiles, kSram, status);
  EXPECT_EQ(status[0], kOk) << status_name(status[0]);
  uint64_t n = 0;
  for (const D& d : ds) {
    for (uint32_t i = 0; i < d.words; ++i, ++n) {
      ASSERT_FALSE(out.empty()) << "flit " << n;
      ASSERT_TRUE(bits(out.read()) == ref_flit(0, d.tile, d.addr + 4 * i, data.word(d.offset / 4 + i)))
          << "descriptor tile " << d.tile << " word " << i;
    }
  }
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(status[2], n);
  EXPECT_EQ(status[3], want_lines) << "each line read once per descriptor";
}

// A read request's data is its reply's node (this host node) and tag (the descriptor's word 3,
// counting on per word and wrapping at 2^18).
TEST(Movers, HostToDeviceReadRequestsCarryTheirReplysNodeAndTag) {
  std::vector<ap_uint<128>> dv = {desc(5, kBase + 20, 4, kKindRead, 0x3fffe), desc(1, kBase, 0, kKindDebugWrite, 0)};
  Buffer data = random_buffer(1, 7);
  hls::stream<ap_uint<64>> out;
  uint32_t status[4] = {};
  tess_h2d(dv.data(), data.lines.data(), out, 2, 64, kHostNode + 1, kTiles, kSram, status);
  ASSERT_EQ(status[0], kOk) << status_name(status[0]);
  const uint32_t tags[5] = {0x3fffe, 0x3ffff, 0, 1, 2};
  for (uint32_t i = 0; i < 5; ++i)
    EXPECT_TRUE(bits(out.read()) == ref_flit(1, 4, kBase + 20 + 4 * i, ref_reply(kHostNode + 1, tags[i]))) << i;
  EXPECT_TRUE(bits(out.read()) == ref_flit(2, 0, kBase, data.word(0)));
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(status[2], 6u);
  EXPECT_EQ(status[3], 1u);
}

// The widest fields: a write to the last word of the largest tile SRAM of the targets that
// run the RTL (the Alveo targets' 384 KiB: word 0x17fff) and a read request from node 2047
// (all 11 bits) with the largest tag.
TEST(Movers, HostToDeviceFillsTheWidestFields) {
  constexpr uint32_t kAlveoSram = 393216, kLast = kBase + kAlveoSram - 4;
  std::vector<ap_uint<128>> dv = {desc(1, kLast, 79, kKindWrite, 60), desc(1, kLast, 79, kKindRead, 0x3ffff)};
  Buffer data = random_buffer(1, 9);
  hls::stream<ap_uint<64>> out;
  uint32_t status[4] = {};
  tess_h2d(dv.data(), data.lines.data(), out, 2, 64, 2047, 80, kAlveoSram, status);
  ASSERT_EQ(status[0], kOk) << status_name(status[0]);
  EXPECT_EQ(bits(out.read()), uint64_t{data.word(15)} | uint64_t{0x17fff} << 32 | uint64_t{79} << 50);
  EXPECT_EQ(bits(out.read()), uint64_t{0x7ff | 0x3ffffu << 11} | uint64_t{0x17fff} << 32 | uint64_t{79} << 50 |
                                  uint64_t{1} << 61);
  EXPECT_TRUE(out.empty());
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
      {desc(1, kBase, 0, kKindRead, 1u << 18), kReserved},  // a tag wider than a reply's address
  };
  for (size_t c = 0; c < cases.size(); ++c) {
    std::vector<ap_uint<128>> dv = {desc(8, kBase, 1, kKindWrite, 0), desc(2, kBase, 2, kKindRead, 0), cases[c].bad};
    hls::stream<ap_uint<64>> out;
    uint32_t status[4] = {};
    tess_h2d(dv.data(), data.lines.data(), out, 3, 4 * 64, kHostNode, kTiles, kSram, status);
    EXPECT_EQ(status[0], cases[c].code) << "case " << c << ": " << status_name(status[0]);
    EXPECT_EQ(status[1], 2u) << "case " << c << ": the bad descriptor's index";
    EXPECT_TRUE(out.empty()) << "case " << c << ": nothing sent";
  }
}

// n write flits to host node kHostNode, at random addresses (all 18 bits) with random data.
std::vector<u128> feed(hls::stream<ap_uint<64>>& s, uint32_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<u128> v;
  for (uint32_t i = 0; i < n; ++i) {
    const uint64_t f = ref_flit(0, kHostNode, kBase + 4 * (rng() & 0x3ffff), rng());
    s.write(ap_uint<64>(f));
    v.push_back(f);
  }
  return v;
}

TEST(Movers, DeviceToHostWrapsAroundTheRing) {
  hls::stream<ap_uint<64>> in;
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
  hls::stream<ap_uint<64>> in;
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
  hls::stream<ap_uint<64>> in;
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
