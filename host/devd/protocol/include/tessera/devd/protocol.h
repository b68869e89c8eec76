// tessera-devd's wire protocol (docs/devd.md): frames, the messages in them, and their
// encoding. Pure functions over bytes, shared by the server and the remote backend, and the
// code the fuzzer drives (tests/fuzz/fuzz_devd.cpp).
//
// A frame is a 4-byte little-endian body length, then the body: one type byte and the
// message. The length is checked against the receiver's maximum before anything is
// allocated. Each request gets exactly one reply, in order: the request's type | 0x80, or
// kError. Every integer is little-endian; a string or byte run is a u32 length and the bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "tessera/device/device.h"

namespace tessera::devd {

inline constexpr uint32_t kMagic = 0x56445354;  // "TSDV"
inline constexpr uint16_t kVersion = 1;         // the protocol this build speaks
inline constexpr uint32_t kDefaultMaxFrame = 8u << 20;
inline constexpr uint32_t kMinMaxFrame = 64u << 10;
inline constexpr size_t kMaxToken = 256;
inline constexpr size_t kMaxName = 64;
inline constexpr uint32_t kMaxRegOps = 4096;
inline constexpr uint32_t kMaxSegments = 1u << 16;
inline constexpr size_t kFrameHeader = 4;
// The largest HELLO (type, magic, two versions, the token's length and bytes): the limit of
// any frame before HELLO, so that a peer without the token cannot make the server allocate
// more than this per connection.
inline constexpr uint32_t kMaxHelloFrame = 1 + 4 + 2 + 2 + 4 + kMaxToken;

enum class Type : uint8_t {
  kHello = 1,  // magic, version range, token
  kLease = 2,  // device name (empty: the first), how long to wait in the queue
  kRelease = 3,
  kConfigure = 4,  // target, firmware ELF
  kRegs = 5,       // a batch of register reads and writes
  kDmaWrite = 6,   // segments, then their bytes
  kDmaRead = 7,    // segments
  kWait = 8,       // event mask, timeout
  kErrorDetail = 9,
  kDramWrite = 10,   // device memory offset, then the bytes (cores in reset)
  kDramToTiles = 11, // segments, each with its device memory offset (in a host sync)
  kTilesToDram = 12, // the same, from the tiles to device memory
  kDramRead = 13,    // device memory offset, byte count (the tiles not running); reply: DMA_READ's
  kReplyBit = 0x80,  // a reply: the request's type | 0x80
  kError = 0xff,     // a reply: ErrorCode, message
};

enum class ErrorCode : uint8_t {
  kDevice = 1,    // the device refused (DeviceError): the connection stays
  kProtocol = 2,  // a malformed frame: the server closes the connection
  kAuth = 3,      // a wrong token or version: closed
  kBusy = 4,      // no lease within the wait: the connection stays
  kState = 5,     // out of order (no lease, a second lease, HELLO twice): the connection stays
  kUnknown = 6,   // no such device: the connection stays
};

// A malformed frame or message: what and where.
class ProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// ---- messages -------------------------------------------------------------------------------

struct Hello {
  uint32_t magic = kMagic;
  uint16_t min_version = kVersion, max_version = kVersion;
  std::string token;
};
struct Lease {
  std::string name;
  uint32_t wait_ms = 0;
};
struct Release {};
struct Configure {
  std::string target;
  std::vector<std::byte> firmware;
};
struct Regs {
  std::vector<device::RegOp> ops;
};
// Segments' host_offset is implied: the payload is their bytes in order.
struct DmaWrite {
  std::vector<device::DmaSegment> segments;
  std::vector<std::byte> data;
};
struct DmaRead {
  std::vector<device::DmaSegment> segments;
};
struct Wait {
  uint32_t mask = 0;
  uint32_t timeout_ms = 0;
};
struct ErrorDetail {};
// Device memory (Device::dram_write, dram_to_tiles; docs/weight-streaming.md).
struct DramWrite {
  uint64_t offset = 0;
  std::vector<std::byte> data;
};
// Segments' host_offset is their offset in device memory.
struct DramToTiles {
  std::vector<device::DmaSegment> segments;
};
struct TilesToDram {
  std::vector<device::DmaSegment> segments;
};
struct DramRead {
  uint64_t offset = 0;
  uint32_t bytes = 0;  // 1 .. the frame limit less the reply's type byte
};
using Request = std::variant<Hello, Lease, Release, Configure, Regs, DmaWrite, DmaRead, Wait, ErrorDetail,
                             DramWrite, DramToTiles, TilesToDram, DramRead>;

// Replies.
struct Welcome {
  uint16_t version = kVersion;
  uint32_t max_frame = kDefaultMaxFrame;
  std::vector<std::string> devices;
};
struct Leased {
  std::string name;
};
struct Done {
  Type type = Type::kRelease;  // which request this acknowledges (release, configure, the writes)
};
struct RegValues {
  std::vector<uint32_t> values;
};
struct DmaData {
  std::vector<std::byte> data;
};
struct Events {
  uint32_t events = 0;
};
struct Detail {
  std::string text;
};
struct Error {
  ErrorCode code = ErrorCode::kProtocol;
  std::string message;
};
using Reply = std::variant<Welcome, Leased, Done, RegValues, DmaData, Events, Detail, Error>;

// ---- frames ---------------------------------------------------------------------------------

// The body length a frame header announces; throws ProtocolError if it is 0 or over `max_frame`.
uint32_t frame_length(std::span<const std::byte, kFrameHeader> header, uint32_t max_frame);

// A whole frame (header and body) for a message. Throws ProtocolError if the body would
// exceed `max_frame` (the sender's own check: the peer would refuse it).
std::vector<std::byte> encode(const Request& r, uint32_t max_frame = kDefaultMaxFrame);
std::vector<std::byte> encode(const Reply& r, uint32_t max_frame = kDefaultMaxFrame);

// A frame's body (without the header) as a message. Throws ProtocolError naming the message
// and the field for anything malformed: an unknown type, a field running past the end, bytes
// left over, a count or size over its limit, a DMA whose data does not match its segments.
Request parse_request(std::span<const std::byte> body);
Reply parse_reply(std::span<const std::byte> body);

// The bytes a list of segments moves, checked against `limit` (ProtocolError when over).
uint64_t segment_bytes(std::span<const device::DmaSegment> segments, uint64_t limit);

// Constant-time equality of two tokens: the time depends on the lengths only.
bool tokens_equal(std::string_view a, std::string_view b);

}  // namespace tessera::devd
