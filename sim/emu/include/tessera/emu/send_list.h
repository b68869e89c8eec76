// A send list as the emulator reads it (docs/network.md, "Send lists"): each entry, plain or
// strided, decoded into its runs and checked on its own against the machine's memory. The
// checks across entries and tiles (no address written twice, nothing written where a send
// list reads) are the exchange's (exchange.cpp). The fuzzer fuzz_send_list calls these too.
#pragma once

#include <cstdint>
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

// The same without the checks, for a list that passed them (arch::decode_send_entry).
inline SendRuns decode_send_entry(std::span<const arch::SendEntry> list, uint32_t& e) {
  return arch::decode_send_entry([&](uint32_t i) { return list[i]; }, static_cast<uint32_t>(list.size()), e);
}

// Whether the entry that decode_send_entry read from slots `first` to `e` (its repeat slot,
// if strided) into `r` passes every check below: the exchange's fast path, inline and
// without building a message. read_send_entry decides, and says what is wrong.
inline bool send_entry_ok(std::span<const arch::SendEntry> list, uint32_t first, uint32_t e, const SendRuns& r,
                          const SendListBounds& b) {
  if (r.strided) {
    const arch::SendEntry& rep = list[e];  // a SendRepeat: count, src_stride, dst_stride, reserved
    if (r.count == 0 || rep.dst_addr != 0 || ((r.src_stride | r.dst_stride) & 3)) return false;
  } else if (list[first].dst_node & arch::kSendRepeat) {
    return false;  // strided in the list's last slot
  }
  const uint64_t last = r.count - 1;
  if (((r.src | r.dst | r.bytes) & 3) || r.node >= b.tiles || r.src < arch::kSramBase || r.dst < arch::kSramBase ||
      r.src + last * r.src_stride + r.bytes > b.sram_end || r.dst + last * r.dst_stride + r.bytes > b.sram_end)
    return false;
  return r.bytes == 0 || (r.dst >= b.firmware_end && (r.count == 1 || r.dst_stride >= r.bytes));
}

// Reads the entry in slot `e` of tile `tile`'s list (at tile address `list_addr`), and
// its repeat slot if it has one (then `e` is left on that slot). On success `out` holds its
// runs: every run is aligned and inside SRAM, the node is a tile, and when bytes > 0 nothing
// is written below firmware_end and the runs do not overlap one another.
std::optional<SendListError> read_send_entry(std::span<const arch::SendEntry> list, uint32_t list_addr, uint32_t tile,
                                             uint32_t& e, const SendListBounds& bounds, SendRuns& out);

}  // namespace tessera::emu
