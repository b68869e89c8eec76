// tessera-devd's codec: every message survives encode and parse; frames and messages that are
// malformed (empty, over the limit, truncated, counts over their limits, bytes left over, a
// DMA whose data and segments disagree) are refused with a ProtocolError naming the field;
// the token comparison and the token file's checks; chunked DMA covers exactly the bytes of
// the whole list.
#include <gmock/gmock.h>
#include "tessera/testutil/seed.h"
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>

#include "tessera/devd/protocol.h"
#include "tessera/devd/token.h"
#include "tessera/device/dma_chunks.h"

namespace tessera::devd {
namespace {

using ::testing::HasSubstr;

std::span<const std::byte> body_of(const std::vector<std::byte>& frame) {
  EXPECT_EQ(frame_length(std::span<const std::byte, kFrameHeader>(frame.data(), kFrameHeader),
                         kDefaultMaxFrame),
            frame.size() - kFrameHeader);
  return std::span(frame).subspan(kFrameHeader);
}

std::vector<std::byte> bytes(std::initializer_list<int> v) {
  std::vector<std::byte> b;
  for (int x : v) b.push_back(std::byte(x));
  return b;
}

TEST(Codec, RequestsSurviveEncodeAndParse) {
  Hello h;
  h.token = "0123456789abcdef-token";
  auto r = parse_request(body_of(encode(Request{h})));
  EXPECT_EQ(std::get<Hello>(r).token, h.token);
  r = parse_request(body_of(encode(Request{Lease{"emu1", 1234}})));
  EXPECT_EQ(std::get<Lease>(r).name, "emu1");
  EXPECT_EQ(std::get<Lease>(r).wait_ms, 1234u);
  r = parse_request(body_of(encode(Request{Configure{"small", bytes({0x7f, 'E', 'L', 'F'})}})));
  EXPECT_EQ(std::get<Configure>(r).target, "small");
  EXPECT_EQ(std::get<Configure>(r).firmware.size(), 4u);
  Regs g{{device::RegOp::read(0x10), device::RegOp::write(0x20, 0xdeadbeef)}};
  r = parse_request(body_of(encode(Request{g})));
  ASSERT_EQ(std::get<Regs>(r).ops.size(), 2u);
  EXPECT_EQ(std::get<Regs>(r).ops[1].kind, device::RegOp::kWrite);
  EXPECT_EQ(std::get<Regs>(r).ops[1].value, 0xdeadbeefu);
  DmaWrite w{{{1, 0x1000, 8, 0}, {2, 0x2000, 4, 8}},
             bytes({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})};
  r = parse_request(body_of(encode(Request{w})));
  const DmaWrite& w2 = std::get<DmaWrite>(r);
  ASSERT_EQ(w2.segments.size(), 2u);
  EXPECT_EQ(w2.segments[1].tile, 2u);
  EXPECT_EQ(w2.segments[1].host_offset, 8u);
  EXPECT_EQ(w2.data, w.data);
  r = parse_request(body_of(encode(Request{Wait{7, 500}})));
  EXPECT_EQ(std::get<Wait>(r).timeout_ms, 500u);
  r = parse_request(body_of(encode(Request{DramWrite{(uint64_t{5} << 32) + 12, bytes({1, 2, 3, 4})}})));
  EXPECT_EQ(std::get<DramWrite>(r).offset, (uint64_t{5} << 32) + 12);
  EXPECT_EQ(std::get<DramWrite>(r).data, bytes({1, 2, 3, 4}));
  r = parse_request(body_of(encode(Request{DramRead{(uint64_t{3} << 32) + 8, 4096}})));
  EXPECT_EQ(std::get<DramRead>(r).offset, (uint64_t{3} << 32) + 8);
  EXPECT_EQ(std::get<DramRead>(r).bytes, 4096u);
  DramToTiles d{{{3, 0x1000, 8, uint64_t{1} << 33}, {0, 0x2000, 4, 16}}};
  r = parse_request(body_of(encode(Request{d})));
  const DramToTiles& d2 = std::get<DramToTiles>(r);
  ASSERT_EQ(d2.segments.size(), 2u);
  EXPECT_EQ(d2.segments[0].tile, 3u);
  EXPECT_EQ(d2.segments[0].host_offset, uint64_t{1} << 33) << "the device memory offset, not implied";
  EXPECT_EQ(d2.segments[1].bytes, 4u);
  EXPECT_EQ(d2.segments[1].host_offset, 16u);
}

TEST(Codec, RepliesSurviveEncodeAndParse) {
  auto r = parse_reply(body_of(encode(Reply{Welcome{1, 1u << 20, {"a", "b"}}})));
  EXPECT_EQ(std::get<Welcome>(r).devices, (std::vector<std::string>{"a", "b"}));
  r = parse_reply(body_of(encode(Reply{RegValues{{1, 2, 3}}})));
  EXPECT_EQ(std::get<RegValues>(r).values, (std::vector<uint32_t>{1, 2, 3}));
  r = parse_reply(body_of(encode(Reply{Done{Type::kDmaWrite}})));
  EXPECT_EQ(std::get<Done>(r).type, Type::kDmaWrite);
  r = parse_reply(body_of(encode(Reply{Done{Type::kDramToTiles}})));
  EXPECT_EQ(std::get<Done>(r).type, Type::kDramToTiles);
  r = parse_reply(body_of(encode(Reply{Error{ErrorCode::kBusy, "busy"}})));
  EXPECT_EQ(std::get<Error>(r).code, ErrorCode::kBusy);
  EXPECT_EQ(std::get<Error>(r).message, "busy");
}

TEST(Codec, FrameLengthsAreCheckedBeforeAnythingIsAllocated) {
  auto header = [](uint32_t n) {
    std::array<std::byte, kFrameHeader> h;
    for (int i = 0; i < 4; ++i) h[i] = std::byte(n >> (8 * i));
    return h;
  };
  EXPECT_THAT([&] { frame_length(header(0), 1000); },
              ::testing::ThrowsMessage<ProtocolError>(HasSubstr("empty")));
  EXPECT_THAT([&] { frame_length(header(1001), 1000); },
              ::testing::ThrowsMessage<ProtocolError>(
                  HasSubstr("1001 bytes announced, over the limit of 1000")));
  EXPECT_THAT([&] { frame_length(header(0xffffffff), 1000); }, ::testing::Throws<ProtocolError>());
  EXPECT_EQ(frame_length(header(1000), 1000), 1000u);
  // The sender refuses to build a frame the peer would refuse.
  EXPECT_THAT(
      [] {
        encode(Request{Configure{"small", std::vector<std::byte>(2000)}}, 1000);
      },
      ::testing::ThrowsMessage<ProtocolError>(HasSubstr("over the frame limit")));
}

TEST(Codec, MalformedMessagesNameTheField) {
  auto bad = [](std::vector<std::byte> body, const char* why) {
    EXPECT_THAT([&] { parse_request(body); },
                ::testing::ThrowsMessage<ProtocolError>(HasSubstr(why)));
  };
  bad({}, "empty");
  bad(bytes({0x42}), "unknown type 66");
  bad(bytes({1, 0x54, 0x53, 0x44}), "magic needs 4 bytes");
  bad(bytes({1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0}), "wrong magic");
  bad(bytes({2, 0xff, 0xff, 0xff, 0xff}), "device name is 4294967295 bytes, over its limit of 64");
  bad(bytes({2, 1, 0, 0, 0, 'a', 0, 0, 0, 0, 9}), "1 bytes left over");
  bad(bytes({3, 0}), "RELEASE: 1 bytes left over");
  bad(bytes({5, 0, 0x10, 0, 0}), "op count is 4096 but only 0 bytes are left");
  bad(bytes({5, 1, 0x10, 0, 0}), "op count is 4097, over its limit of 4096");
  bad(bytes({5, 1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0}), "op kind 2");
  bad(bytes({6, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0, 1, 2, 3}),
      "the segments move 8 bytes but the frame carries 3");
  bad(bytes({6, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff}), "more than");
  bad(bytes({7, 0xff, 0xff, 0, 0}), "segment count is 65535 but only 0 bytes are left");
  bad(bytes({8, 1, 0, 0, 0}), "timeout needs 4 bytes");
  bad(bytes({4, 5, 0, 0, 0, 's', 'm', 'a', 'l', 'l'}), "no firmware");
  bad(bytes({10, 1, 2, 3}), "DRAM_WRITE: offset needs 8 bytes");
  bad(bytes({10, 0, 0, 0, 0, 0, 0, 0, 0}), "DRAM_WRITE: no bytes");
  bad(bytes({11, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0}), "segment count is 1 but only 12 bytes are left");
  bad(bytes({11, 0, 0, 0, 0, 7}), "DRAM_TO_TILES: 1 bytes left over");
  bad(bytes({13, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}), "DRAM_READ: no bytes");
  bad(bytes({13, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0}), "DRAM_READ: byte count needs 4 bytes");
  bad(bytes({13, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 1}), "DRAM_READ: 1 bytes left over");
  EXPECT_THAT([] { parse_reply(bytes({0x05})); },
              ::testing::ThrowsMessage<ProtocolError>(HasSubstr("is a request")));
  EXPECT_THAT(
      [] {
        parse_reply(bytes({0xff, 9, 0, 0, 0, 0}));
      },
      ::testing::ThrowsMessage<ProtocolError>(HasSubstr("unknown error code 9")));
}

TEST(Codec, RandomBytesNeverCrashTheParser) {
  const uint64_t seed = tessera::testutil::random_seed("codec random bytes");
  std::mt19937 rng(seed);
  for (int i = 0; i < 20000; ++i) {
    std::vector<std::byte> b(rng() % 64);
    for (auto& x : b) x = std::byte(rng());
    if (!b.empty() && rng() % 2) b[0] = std::byte(1 + rng() % 9);
    try {
      parse_request(b);
    } catch (const ProtocolError&) {
    }
    try {
      parse_reply(b);
    } catch (const ProtocolError&) {
    }
  }
}

TEST(Token, ComparedWhole) {
  EXPECT_TRUE(tokens_equal("0123456789abcdef", "0123456789abcdef"));
  EXPECT_FALSE(tokens_equal("0123456789abcdef", "0123456789abcdeF"));
  EXPECT_FALSE(tokens_equal("0123456789abcdef", "0123456789abcde"));
  EXPECT_FALSE(tokens_equal("0123456789abcdef", "0123456789abcdef0"));
  EXPECT_FALSE(tokens_equal("0123456789abcdef", ""));
  EXPECT_FALSE(tokens_equal("", ""));
  // A given token that repeats the expected one's prefix does not match.
  EXPECT_FALSE(tokens_equal("abababababababab", "ab"));
}

// The server's token file must be private (mode 600): one readable by group or others is
// refused, naming the file; a token shorter than 16 characters likewise.
TEST(Token, TheServersFileMustBePrivate) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("tessera-devd-token-test-" + std::to_string(::getpid()));
  std::ofstream(path) << "0123456789abcdef-token\n";
  ::chmod(path.c_str(), 0644);
  EXPECT_THAT([&] { read_token_file(path.string(), true); },
              ::testing::ThrowsMessage<std::runtime_error>(
                  HasSubstr("'" + path.string() + "': readable by group or others")));
  EXPECT_EQ(read_token_file(path.string(), false), "0123456789abcdef-token");  // a client's
  ::chmod(path.c_str(), 0600);
  EXPECT_EQ(read_token_file(path.string(), true), "0123456789abcdef-token");
  std::ofstream(path) << "short\n";
  EXPECT_THAT([&] { read_token_file(path.string(), true); },
              ::testing::ThrowsMessage<std::runtime_error>(HasSubstr("must have 16 to 256")));
  std::filesystem::remove(path);
}

TEST(DmaChunks, CoverExactlyTheBytesOfTheWholeList) {
  const uint64_t seed = tessera::testutil::random_seed("dma chunks");
  std::mt19937 rng(seed);
  for (int round = 0; round < 200; ++round) {
    std::vector<device::DmaSegment> segs;
    uint64_t host = 0;
    for (int i = 0, n = 1 + rng() % 8; i < n; ++i) {
      const uint32_t bytes = static_cast<uint32_t>(4 * (rng() % 300));
      segs.push_back({static_cast<uint32_t>(rng() % 4),
                      static_cast<uint32_t>(0x1000 + 4 * (rng() % 1000)), bytes, host});
      host += bytes + 4 * (rng() % 3);
    }
    const uint64_t max = 4 + rng() % 600;
    // Independent reference: each (tile, address) -> host offset, byte by byte.
    std::map<std::pair<uint32_t, uint64_t>, uint64_t> want, got;
    for (const auto& s : segs)
      for (uint32_t b = 0; b < s.bytes; ++b)
        want[{s.tile, uint64_t{s.addr} + b}] = s.host_offset + b;
    for (const auto& c : device::dma_chunks(segs, max)) {
      EXPECT_LE(device::dma_bytes(c), max & ~uint64_t{3}) << "seed " << seed;
      EXPECT_FALSE(c.empty());
      for (const auto& s : c) {
        EXPECT_EQ(s.bytes % 4, 0u);
        for (uint32_t b = 0; b < s.bytes; ++b)
          got[{s.tile, uint64_t{s.addr} + b}] = s.host_offset + b;
      }
    }
    ASSERT_EQ(got, want) << "seed " << seed;
  }
}

}  // namespace
}  // namespace tessera::devd
