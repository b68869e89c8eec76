// What the passes hand each other, from the vertex graph down to the executable:
//
//   Graph --lower_programs--> Lowered --plan_exchanges--> ExchangePlan
//         --plan_memory--> MemoryPlan --resolve_addresses--> Resolved --codegen--> exe::Executable
//
// Each has a text dump (dump.h) that the golden tests compare.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tessera/arch/control.h"
#include "tessera/exe/executable.h"
#include "tessera/exe/firmware_layout.h"
#include "tessera/graph/graph.h"

namespace tessera::passes {

using graph::Region;
using graph::Tensor;

// The global control programs, with global tables shared by all programs: the bytecode's
// Execute operands are compute-set ids, Exchange operands index `exchanges`, HostSync
// operands index `host_syncs`, If operands index `conditions`.
struct Lowered {
  struct Exchange {
    std::vector<std::pair<Region, Region>> copies;  // src -> dst, each of equal size
  };
  struct HostSync {  // one HostWrite/HostRead: one exe::Stream
    uint32_t stream = 0;  // the graph's stream
    Region tensor;
    exe::StreamDirection direction = exe::StreamDirection::kHostToDevice;
    std::string name;     // unique: the stream's name, "#k" added on its k-th reuse
  };
  struct Condition {
    Region cond;       // the one-word condition
    Tensor broadcast;  // hidden [tiles] variable, element t on tile t: tile t's copy
  };
  struct Program {
    std::string name;
    std::vector<uint32_t> words;       // the bytecode, ending in kCtlEnd
    std::vector<uint32_t> host_syncs;  // HostSync operands in program order
  };
  std::vector<Program> programs;
  std::vector<Exchange> exchanges;
  std::vector<HostSync> host_syncs;
  std::vector<Condition> conditions;
};

// Exchanges and host streams split into runs that are contiguous on one tile at both ends.
struct ExchangePlan {
  struct Transfer {  // becomes one SendEntry (and a SendRepeat when count > 1)
    uint32_t src_tile = 0, dst_tile = 0;
    Region src, dst;  // the first run: equal sizes, each contiguous on its tile
    // `count` runs, run k from src + k * src_stride to dst + k * dst_stride (bytes: the runs
    // lie in one block of memory on each side, fold_sends.cpp).
    uint32_t count = 1, src_stride = 0, dst_stride = 0;
    uint32_t slots() const { return count > 1 ? 2 : 1; }  // 16-byte slots in the send list
  };
  struct Exchange {
    std::vector<std::vector<Transfer>> sends;  // per tile: its send list
    std::vector<uint32_t> recv_words;          // per tile
  };
  struct StreamRun {  // stream elements [offset, offset + region.size()) <-> region on tile
    uint32_t tile = 0;
    Region region;
    uint32_t offset = 0;
  };
  struct Stream {
    std::vector<StreamRun> runs;
    std::vector<uint32_t> recv_words;  // per tile: words the host writes there
  };
  std::vector<Exchange> exchanges;
  std::vector<Stream> streams;  // per Lowered::host_syncs entry
};

// Addresses of everything the loader writes, per tile, and the usage report.
struct MemoryPlan {
  struct Placed {  // one interval of a variable
    uint32_t tile = 0, begin = 0, end = 0, addr = 0;
    exe::LiveRange live;  // its live range in steps (the numbering of exe::LiveRange)
  };
  struct Tile {
    std::vector<uint32_t> programs;       // per program: its copy of the bytecode
    uint32_t cs_table = 0, xchg_table = 0, stream_table = 0, cond_table = 0;
    std::vector<uint32_t> vertex_arrays;  // per compute set: Vertex[count]
    std::vector<uint32_t> send_lists;     // per exchange: SendEntry[entries]
    exe::TileMemory usage;
    uint64_t needed = 0;                  // bytes from firmware_end up, incl. alignment
  };
  uint32_t sram_end = 0;
  std::vector<Tile> tiles;
  std::vector<uint32_t> vertex_state;            // per vertex: its state record
  std::vector<std::vector<Placed>> tensors;      // per variable, in element order
  std::vector<std::pair<uint32_t, uint32_t>> program_steps;  // per program: first step, count
  std::vector<std::string> errors;               // tiles that do not fit, one line each
  std::string peak;  // if a tile does not fit: when the fullest one peaks and what is live then
  // Per tile that does not fit: the temporaries (variable, bytes) live when its tensors peak.
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> peak_temporaries;

  // The address of the first element of a region contiguous on one tile.
  uint32_t addr_of(const Region& t) const;
};

// Concrete words for every table, per tile.
struct Resolved {
  struct Tile {
    std::vector<std::vector<arch::Vertex>> compute_sets;            // per compute set
    std::vector<std::pair<uint32_t, std::vector<uint32_t>>> states;  // (address, state record)
    struct Send {  // a send-list entry: its first run, then how often and how far it repeats
      arch::SendEntry entry;                        // dst_node without kSendRepeat
      uint32_t count = 1, src_stride = 0, dst_stride = 0;  // strides in bytes
    };
    std::vector<std::vector<Send>> sends;                            // per exchange
    std::vector<uint32_t> recv_words;                               // per exchange
    std::vector<uint32_t> stream_recv_words;                        // per host sync
    std::vector<uint32_t> conditions;                               // per If: its word's address
  };
  std::vector<Tile> tiles;
  std::vector<exe::Tensor> tensors;  // the user's variables, with addresses
  std::vector<exe::Stream> streams;  // per host sync
};

}  // namespace tessera::passes
