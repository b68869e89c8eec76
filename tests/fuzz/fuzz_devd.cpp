// libFuzzer harness of tessera-devd's frame parser (host/devd/protocol): the input is a byte
// stream as a server or client would read it, frame after frame. Each frame's length is
// checked against the limit, its body parsed as a request and as a reply; whatever parses
// must encode back to the same bytes. Anything else than a ProtocolError is a finding.
#include <cstdlib>
#include <cstring>

#include "tessera/devd/protocol.h"

using namespace tessera::devd;

namespace {

constexpr uint32_t kLimit = 1u << 20;

template <class M>
void round_trip(const M& m, std::span<const std::byte> body) {
  const std::vector<std::byte> again = encode(m, kLimit);
  if (again.size() != body.size() + kFrameHeader ||
      std::memcmp(again.data() + kFrameHeader, body.data(), body.size()) != 0)
    std::abort();  // parse and encode disagree
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const std::byte> in(reinterpret_cast<const std::byte*>(data), size);
  while (in.size() >= kFrameHeader) {
    uint32_t n = 0;
    try {
      n = frame_length(in.first<kFrameHeader>(), kLimit);
    } catch (const ProtocolError&) {
      return 0;
    }
    in = in.subspan(kFrameHeader);
    if (n > in.size()) return 0;  // truncated: the reader waits for more
    const auto body = in.first(n);
    in = in.subspan(n);
    try {
      round_trip(parse_request(body), body);
    } catch (const ProtocolError&) {
    }
    try {
      round_trip(parse_reply(body), body);
    } catch (const ProtocolError&) {
    }
  }
  return 0;
}
