// Encoding and parsing of tessera-devd's messages (protocol.h). The parser reads through a
// bounds-checked cursor: every field is checked against what is left before it is read, and
// every count against its limit before anything is allocated for it.
#include <cstring>

#include "tessera/devd/protocol.h"

namespace tessera::devd {

namespace {

class Writer {
 public:
  explicit Writer(Type t) { out_.resize(kFrameHeader), u8(static_cast<uint8_t>(t)); }
  void u8(uint8_t v) { out_.push_back(std::byte{v}); }
  void u16(uint16_t v) { le(v, 2); }
  void u32(uint32_t v) { le(v, 4); }
  void bytes(std::span<const std::byte> b) { out_.insert(out_.end(), b.begin(), b.end()); }
  void str(std::string_view s) {
    u32(static_cast<uint32_t>(s.size()));
    bytes(std::as_bytes(std::span(s.data(), s.size())));
  }
  void u64(uint64_t v) { le(v, 8); }
  // With `offsets`, each segment's host_offset too (DRAM_TO_TILES); else it is implied.
  void segments(const std::vector<device::DmaSegment>& segs, bool offsets = false) {
    u32(static_cast<uint32_t>(segs.size()));
    for (const auto& s : segs) {
      u32(s.tile), u32(s.addr), u32(s.bytes);
      if (offsets) u64(s.host_offset);
    }
  }
  std::vector<std::byte> frame(uint32_t max_frame, const char* what) {
    const uint64_t body = out_.size() - kFrameHeader;
    if (body > max_frame)
      throw ProtocolError(std::string(what) + ": " + std::to_string(body) +
                          " bytes, over the frame limit of " + std::to_string(max_frame));
    for (int i = 0; i < 4; ++i) out_[i] = std::byte(body >> (8 * i));
    return std::move(out_);
  }

 private:
  void le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out_.push_back(std::byte(v >> (8 * i)));
  }
  std::vector<std::byte> out_;
};

class Reader {
 public:
  Reader(std::span<const std::byte> b, const char* what) : b_(b), what_(what) {}
  uint8_t u8(const char* field) { return static_cast<uint8_t>(take(1, field)[0]); }
  uint16_t u16(const char* field) { return static_cast<uint16_t>(le(take(2, field))); }
  uint32_t u32(const char* field) { return static_cast<uint32_t>(le(take(4, field))); }
  uint64_t u64(const char* field) { return le(take(8, field)); }
  std::span<const std::byte> take(size_t n, const char* field) {
    if (n > b_.size() - at_)
      fail(std::string(field) + " needs " + std::to_string(n) + " bytes at offset " +
           std::to_string(at_) + ", " + std::to_string(b_.size() - at_) + " left");
    const auto s = b_.subspan(at_, n);
    at_ += n;
    return s;
  }
  std::string str(const char* field, size_t max) {
    const uint32_t n = u32(field);
    if (n > max)
      fail(std::string(field) + " is " + std::to_string(n) + " bytes, over its limit of " +
           std::to_string(max));
    const auto s = take(n, field);
    return std::string(reinterpret_cast<const char*>(s.data()), s.size());
  }
  std::vector<std::byte> rest() {
    const auto s = b_.subspan(at_);
    at_ = b_.size();
    return {s.begin(), s.end()};
  }
  uint32_t count(const char* field, uint32_t max, size_t each) {
    const uint32_t n = u32(field);
    if (n > max)
      fail(std::string(field) + " is " + std::to_string(n) + ", over its limit of " +
           std::to_string(max));
    if (uint64_t{n} * each > b_.size() - at_)
      fail(std::string(field) + " is " + std::to_string(n) + " but only " +
           std::to_string(b_.size() - at_) + " bytes are left");
    return n;
  }
  // With `offsets`, each segment's host_offset is read (DRAM_TO_TILES); else they follow
  // one another from 0.
  std::vector<device::DmaSegment> segments(bool offsets = false) {
    const uint32_t n = count("segment count", kMaxSegments, offsets ? 20 : 12);
    std::vector<device::DmaSegment> segs(n);
    uint64_t off = 0;
    for (auto& s : segs) {
      s.tile = u32("segment tile");
      s.addr = u32("segment address");
      s.bytes = u32("segment bytes");
      s.host_offset = offsets ? u64("segment device memory offset") : off;
      off += s.bytes;
    }
    return segs;
  }
  void end() {
    if (at_ != b_.size()) fail(std::to_string(b_.size() - at_) + " bytes left over at the end");
  }
  [[noreturn]] void fail(const std::string& why) const {
    throw ProtocolError(std::string(what_) + ": " + why);
  }

 private:
  static uint64_t le(std::span<const std::byte> b) {
    uint64_t v = 0;
    for (size_t i = 0; i < b.size(); ++i) v |= uint64_t(b[i]) << (8 * i);
    return v;
  }
  std::span<const std::byte> b_;
  size_t at_ = 0;
  const char* what_;
};

template <class... F>
struct Overload : F... {
  using F::operator()...;
};
template <class... F>
Overload(F...) -> Overload<F...>;  // Clang 14 does not deduce aggregates' arguments

}  // namespace

uint32_t frame_length(std::span<const std::byte, kFrameHeader> h, uint32_t max_frame) {
  const uint32_t n =
      uint32_t(h[0]) | uint32_t(h[1]) << 8 | uint32_t(h[2]) << 16 | uint32_t(h[3]) << 24;
  if (n == 0) throw ProtocolError("frame: empty body (a frame holds at least its type byte)");
  if (n > max_frame)
    throw ProtocolError("frame: " + std::to_string(n) + " bytes announced, over the limit of " +
                        std::to_string(max_frame));
  return n;
}

uint64_t segment_bytes(std::span<const device::DmaSegment> segments, uint64_t limit) {
  uint64_t n = 0;
  for (const auto& s : segments) {
    n += s.bytes;
    if (n > limit)
      throw ProtocolError("DMA: the segments move more than " + std::to_string(limit) +
                          " bytes, over the frame limit");
  }
  return n;
}

std::vector<std::byte> encode(const Request& r, uint32_t max_frame) {
  return std::visit(
      Overload{
          [&](const Hello& m) {
            Writer w(Type::kHello);
            w.u32(m.magic), w.u16(m.min_version), w.u16(m.max_version), w.str(m.token);
            return w.frame(max_frame, "HELLO");
          },
          [&](const Lease& m) {
            Writer w(Type::kLease);
            w.str(m.name), w.u32(m.wait_ms);
            return w.frame(max_frame, "LEASE");
          },
          [&](const Release&) { return Writer(Type::kRelease).frame(max_frame, "RELEASE"); },
          [&](const Configure& m) {
            Writer w(Type::kConfigure);
            w.str(m.target), w.bytes(m.firmware);
            return w.frame(max_frame, "CONFIGURE");
          },
          [&](const Regs& m) {
            Writer w(Type::kRegs);
            w.u32(static_cast<uint32_t>(m.ops.size()));
            for (const auto& op : m.ops)
              w.u8(static_cast<uint8_t>(op.kind)), w.u32(op.offset), w.u32(op.value);
            return w.frame(max_frame, "REGS");
          },
          [&](const DmaWrite& m) {
            Writer w(Type::kDmaWrite);
            w.segments(m.segments), w.bytes(m.data);
            return w.frame(max_frame, "DMA_WRITE");
          },
          [&](const DmaRead& m) {
            Writer w(Type::kDmaRead);
            w.segments(m.segments);
            return w.frame(max_frame, "DMA_READ");
          },
          [&](const Wait& m) {
            Writer w(Type::kWait);
            w.u32(m.mask), w.u32(m.timeout_ms);
            return w.frame(max_frame, "WAIT");
          },
          [&](const ErrorDetail&) {
            return Writer(Type::kErrorDetail).frame(max_frame, "ERROR_DETAIL");
          },
          [&](const DramWrite& m) {
            Writer w(Type::kDramWrite);
            w.u64(m.offset), w.bytes(m.data);
            return w.frame(max_frame, "DRAM_WRITE");
          },
          [&](const DramToTiles& m) {
            Writer w(Type::kDramToTiles);
            w.segments(m.segments, /*offsets=*/true);
            return w.frame(max_frame, "DRAM_TO_TILES");
          },
          [&](const TilesToDram& m) {
            Writer w(Type::kTilesToDram);
            w.segments(m.segments, /*offsets=*/true);
            return w.frame(max_frame, "TILES_TO_DRAM");
          },
          [&](const DramRead& m) {
            Writer w(Type::kDramRead);
            w.u64(m.offset), w.u32(m.bytes);
            return w.frame(max_frame, "DRAM_READ");
          },
      },
      r);
}

namespace {
Type reply_type(Type t) { return static_cast<Type>(static_cast<uint8_t>(t) | 0x80); }
}  // namespace

std::vector<std::byte> encode(const Reply& r, uint32_t max_frame) {
  return std::visit(
      Overload{
          [&](const Welcome& m) {
            Writer w(reply_type(Type::kHello));
            w.u16(m.version), w.u32(m.max_frame), w.u32(static_cast<uint32_t>(m.devices.size()));
            for (const auto& d : m.devices) w.str(d);
            return w.frame(max_frame, "HELLO reply");
          },
          [&](const Leased& m) {
            Writer w(reply_type(Type::kLease));
            w.str(m.name);
            return w.frame(max_frame, "LEASE reply");
          },
          [&](const Done& m) { return Writer(reply_type(m.type)).frame(max_frame, "reply"); },
          [&](const RegValues& m) {
            Writer w(reply_type(Type::kRegs));
            w.u32(static_cast<uint32_t>(m.values.size()));
            for (uint32_t v : m.values) w.u32(v);
            return w.frame(max_frame, "REGS reply");
          },
          [&](const DmaData& m) {
            Writer w(reply_type(Type::kDmaRead));
            w.bytes(m.data);
            return w.frame(max_frame, "DMA_READ reply");
          },
          [&](const Events& m) {
            Writer w(reply_type(Type::kWait));
            w.u32(m.events);
            return w.frame(max_frame, "WAIT reply");
          },
          [&](const Detail& m) {
            Writer w(reply_type(Type::kErrorDetail));
            w.str(m.text);
            return w.frame(max_frame, "ERROR_DETAIL reply");
          },
          [&](const Error& m) {
            Writer w(Type::kError);
            w.u8(static_cast<uint8_t>(m.code)), w.str(m.message);
            return w.frame(max_frame, "ERROR reply");
          },
      },
      r);
}

Request parse_request(std::span<const std::byte> body) {
  if (body.empty()) throw ProtocolError("request: empty body");
  const auto type = static_cast<Type>(body[0]);
  const auto b = body.subspan(1);
  switch (type) {
    case Type::kHello: {
      Reader r(b, "HELLO");
      Hello m;
      m.magic = r.u32("magic");
      if (m.magic != kMagic) r.fail("wrong magic (not a tessera-devd client)");
      m.min_version = r.u16("min version");
      m.max_version = r.u16("max version");
      if (m.min_version > m.max_version) r.fail("min version over max version");
      m.token = r.str("token", kMaxToken);
      r.end();
      return m;
    }
    case Type::kLease: {
      Reader r(b, "LEASE");
      Lease m;
      m.name = r.str("device name", kMaxName);
      m.wait_ms = r.u32("wait");
      r.end();
      return m;
    }
    case Type::kRelease:
      Reader(b, "RELEASE").end();
      return Release{};
    case Type::kConfigure: {
      Reader r(b, "CONFIGURE");
      Configure m;
      m.target = r.str("target", kMaxName);
      m.firmware = r.rest();
      if (m.firmware.empty()) r.fail("no firmware");
      return m;
    }
    case Type::kRegs: {
      Reader r(b, "REGS");
      Regs m;
      m.ops.resize(r.count("op count", kMaxRegOps, 9));
      for (auto& op : m.ops) {
        const uint8_t k = r.u8("op kind");
        if (k > 1) r.fail("op kind " + std::to_string(k) + " (0 read, 1 write)");
        op.kind = static_cast<device::RegOp::Kind>(k);
        op.offset = r.u32("op offset");
        op.value = r.u32("op value");
      }
      r.end();
      return m;
    }
    case Type::kDmaWrite: {
      Reader r(b, "DMA_WRITE");
      DmaWrite m;
      m.segments = r.segments();
      const uint64_t want = segment_bytes(m.segments, body.size());
      m.data = r.rest();
      if (m.data.size() != want)
        r.fail("the segments move " + std::to_string(want) + " bytes but the frame carries " +
               std::to_string(m.data.size()));
      return m;
    }
    case Type::kDmaRead: {
      Reader r(b, "DMA_READ");
      DmaRead m;
      m.segments = r.segments();
      r.end();
      return m;
    }
    case Type::kWait: {
      Reader r(b, "WAIT");
      Wait m;
      m.mask = r.u32("mask");
      m.timeout_ms = r.u32("timeout");
      r.end();
      return m;
    }
    case Type::kErrorDetail:
      Reader(b, "ERROR_DETAIL").end();
      return ErrorDetail{};
    case Type::kDramWrite: {
      Reader r(b, "DRAM_WRITE");
      DramWrite m;
      m.offset = r.u64("offset");
      m.data = r.rest();
      if (m.data.empty()) r.fail("no bytes");
      return m;
    }
    case Type::kDramToTiles: {
      Reader r(b, "DRAM_TO_TILES");
      DramToTiles m;
      m.segments = r.segments(/*offsets=*/true);
      r.end();
      return m;
    }
    case Type::kTilesToDram: {
      Reader r(b, "TILES_TO_DRAM");
      TilesToDram m;
      m.segments = r.segments(/*offsets=*/true);
      r.end();
      return m;
    }
    case Type::kDramRead: {
      Reader r(b, "DRAM_READ");
      DramRead m;
      m.offset = r.u64("offset");
      m.bytes = r.u32("byte count");
      if (m.bytes == 0) r.fail("no bytes");
      r.end();
      return m;
    }
    default:
      throw ProtocolError("request: unknown type " + std::to_string(static_cast<unsigned>(type)));
  }
}

Reply parse_reply(std::span<const std::byte> body) {
  if (body.empty()) throw ProtocolError("reply: empty body");
  const auto type = static_cast<Type>(body[0]);
  const auto b = body.subspan(1);
  if (type == Type::kError) {
    Reader r(b, "ERROR reply");
    Error m;
    const uint8_t c = r.u8("code");
    if (c < 1 || c > 6) r.fail("unknown error code " + std::to_string(c));
    m.code = static_cast<ErrorCode>(c);
    m.message = r.str("message", 1u << 20);
    r.end();
    return m;
  }
  if (!(static_cast<uint8_t>(type) & 0x80))
    throw ProtocolError("reply: type " + std::to_string(unsigned(type)) + " is a request");
  switch (static_cast<Type>(static_cast<uint8_t>(type) & 0x7f)) {
    case Type::kHello: {
      Reader r(b, "HELLO reply");
      Welcome m;
      m.version = r.u16("version");
      m.max_frame = r.u32("max frame");
      if (m.max_frame < kMinMaxFrame)
        r.fail("max frame " + std::to_string(m.max_frame) + " under " +
               std::to_string(kMinMaxFrame));
      m.devices.resize(r.count("device count", 1024, 4));
      for (auto& d : m.devices) d = r.str("device name", kMaxName);
      r.end();
      return m;
    }
    case Type::kLease: {
      Reader r(b, "LEASE reply");
      Leased m;
      m.name = r.str("device name", kMaxName);
      r.end();
      return m;
    }
    case Type::kRelease:
    case Type::kConfigure:
    case Type::kDmaWrite:
    case Type::kDramWrite:
    case Type::kDramToTiles:
    case Type::kTilesToDram: {
      Reader(b, "reply").end();
      return Done{static_cast<Type>(static_cast<uint8_t>(type) & 0x7f)};
    }
    case Type::kRegs: {
      Reader r(b, "REGS reply");
      RegValues m;
      m.values.resize(r.count("value count", kMaxRegOps, 4));
      for (auto& v : m.values) v = r.u32("value");
      r.end();
      return m;
    }
    case Type::kDmaRead:
      return DmaData{Reader(b, "DMA_READ reply").rest()};
    case Type::kWait: {
      Reader r(b, "WAIT reply");
      Events m;
      m.events = r.u32("events");
      r.end();
      return m;
    }
    case Type::kErrorDetail: {
      Reader r(b, "ERROR_DETAIL reply");
      Detail m;
      m.text = r.str("text", 1u << 20);
      r.end();
      return m;
    }
    default:
      throw ProtocolError("reply: unknown type " + std::to_string(static_cast<unsigned>(type)));
  }
}

bool tokens_equal(std::string_view expected, std::string_view given) {
  // Every byte of `expected` is compared (given's bytes modulo its length, or zero), so the
  // time depends on the expected length only; a length difference is folded in.
  volatile uint8_t diff = expected.size() != given.size();
  for (size_t i = 0; i < expected.size(); ++i) {
    const uint8_t g = given.empty() ? 0 : static_cast<uint8_t>(given[i % given.size()]);
    diff = diff | (static_cast<uint8_t>(expected[i]) ^ g);
  }
  return diff == 0 && !expected.empty();
}

}  // namespace tessera::devd
