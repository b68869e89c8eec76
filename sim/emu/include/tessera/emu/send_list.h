// A send list as the emulator reads it (docs/network.md, "Send lists"): each entry, plain or
// strided, decoded into its runs and checked on its own against the machine's memory. The
// checks across entries and tiles (no address written twice, nothing written where a send
// list reads) are the exchange's (exchange.cpp). The fuzzer fuzz_send_list calls these too.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>

#include "tessera/arch/control.h"
#include "tessera/arch/tile_map.h"

namespace tessera::emu {

// One entry's runs (arch/control.h decodes the layout, for the profile too).
using SendRuns = arch::SendRuns;

// What an entry is checked against.
struct SendListBounds {
  uint32_t tiles = 0, host_nodes = 0;
  uint32_t sram_end = 0;      // one past the last SRAM address
  uint32_t firmware_end = 0;  // no exchange writes below it
};

// A bad entry: the device error it raises.
struct SendListError {
  uint32_t tile = 0;  // the tile the error is reported on
  uint32_t code = 0;  // arch::kDevErrXchg*
  uint32_t detail = 0;
  std::string what;  // "tile 3 send entry 1: ...", without the superstep
};

// Reads the entry in slot `e` of tile `tile`'s list (at tile address `list_addr`), and
// its repeat slot if it has one (then `e` is left on that slot). On success `out` holds its
// runs: every run is aligned and inside SRAM, the node is a tile, and when bytes > 0 nothing
// is written below firmware_end and the runs do not overlap one another.
std::optional<SendListError> read_send_entry(std::span<const arch::SendEntry> list, uint32_t list_addr, uint32_t tile,
                                             uint32_t& e, const SendListBounds& bounds, SendRuns& out);

// The same without the checks, for a list that passed them (arch::decode_send_entry);
// inline, as the exchange decodes every entry again to move its words.
inline SendRuns decode_send_entry(std::span<const arch::SendEntry> list, uint32_t& e) {
  return arch::decode_send_entry([&](uint32_t i) { return list[i]; }, static_cast<uint32_t>(list.size()), e);
}

// read_send_entry's checks without its messages, inline for the exchange's loop over
// millions of entries: true when the entry passes (then `e` and `out` are as
// read_send_entry leaves them). On false, read_send_entry from the same slot says why.
inline bool send_entry_ok(std::span<const arch::SendEntry> list, uint32_t& e, const SendListBounds& b, SendRuns& r) {
  const uint32_t slots = static_cast<uint32_t>(list.size());
  if ((list[e].dst_node & arch::kSendRepeat) && e + 1 == slots) return false;
  r = decode_send_entry(list, e);
  if (r.strided) {
    arch::SendRepeat rep;
    std::memcpy(&rep, &list[e], sizeof rep);
    if (rep.count == 0 || rep.reserved != 0 || ((rep.src_stride | rep.dst_stride) & 3)) return false;
  }
  const uint64_t last = r.count - 1;
  if (((r.src | r.bytes) & 3) || r.src < arch::kSramBase || r.src + last * r.src_stride + r.bytes > b.sram_end)
    return false;
  if (r.node >= b.tiles) return false;
  if ((r.dst & 3) || r.dst < arch::kSramBase || r.dst + last * r.dst_stride + r.bytes > b.sram_end) return false;
  if (r.bytes == 0) return true;
  return r.dst >= b.firmware_end && !(r.count > 1 && r.dst_stride < r.bytes);
}

}  // namespace tessera::emu
