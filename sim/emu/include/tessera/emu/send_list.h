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

// The same without the checks, for a list that passed them (arch::decode_send_entry).
SendRuns decode_send_entry(std::span<const arch::SendEntry> list, uint32_t& e);

}  // namespace tessera::emu
