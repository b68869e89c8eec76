// The control program and the per-tile tables: what the compiler (or a test, by hand)
// writes into every tile's SRAM and the tile runtime (firmware/runtime) interprets.
// Freestanding: included by tile code, the emulator and the host.
//
// All stored references are 32-bit tile addresses, never host pointers.
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
namespace tessera::arch {
#endif

// One global control program, copied to every tile. Each instruction is an opcode word
// followed by its operands; Repeat and If bodies follow their headers inline.
enum ControlOp : uint32_t {
  kCtlEnd = 0,       // [op]                             the program is done: the tile halts (EXIT 0)
  kCtlExecute = 1,   // [op, cs]                         run this tile's vertices of compute set cs
  kCtlExchange = 2,  // [op, x]                          exchange x: start the send list, arrive, wait
  kCtlSync = 3,      // [op]                             barrier only
  kCtlRepeat = 4,    // [op, count, body_words] body     run body count times
  kCtlIf = 5,        // [op, cond, then_words, else_words] then else
                     //                                  cond indexes the tile's condition table; the
                     //                                  word there (broadcast before) != 0 takes then
  kCtlHostSync = 6,  // [op, stream]                     barrier with the host, which moves stream data
};

inline constexpr uint32_t kTileHeaderMagic = 0x44485354u;  // "TSHD"
inline constexpr uint32_t kTileHeaderVersion = 1;

// Where the runtime finds everything on its tile. The firmware reserves it at its symbol
// `tessera_tile_header`; the loader fills it in.
struct TileHeader {
  uint32_t magic;
  uint32_t version;
  uint32_t program;           // -> uint32_t[program_words]
  uint32_t program_words;
  uint32_t compute_sets;      // -> ComputeSetEntry[num_compute_sets]
  uint32_t num_compute_sets;
  uint32_t exchanges;         // -> ExchangeEntry[num_exchanges]
  uint32_t num_exchanges;
  uint32_t streams;           // -> StreamEntry[num_streams]
  uint32_t num_streams;
  uint32_t conditions;        // -> uint32_t[num_conditions]: address of each If's condition word
  uint32_t num_conditions;
};

struct ComputeSetEntry {
  uint32_t vertices;  // -> Vertex[count]
  uint32_t count;
};

// A vertex: which codelet runs, on which state (a codelet-specific record of words,
// mostly tile addresses of tensor regions and lengths).
struct Vertex {
  uint32_t codelet;  // index into the firmware's codelet table
  uint32_t state;    // -> the vertex state
};

struct ExchangeEntry {
  uint32_t send_list;   // -> SendEntry[entries] (16-byte slots, a SendRepeat being one)
  uint32_t entries;     // slots, not transfers
  uint32_t recv_words;  // words this tile must receive before it may pass the barrier
};

// One run of words to send: `bytes` (a multiple of 4) from `src` on this tile to
// `dst_addr` on node `dst_node` (a tile id, or a host node id).
struct SendEntry {
  uint32_t src;
  uint32_t bytes;
  uint32_t dst_node;  // | kSendRepeat: the next slot is this entry's SendRepeat
  uint32_t dst_addr;
};

// Bit 31 of SendEntry.dst_node: the entry is strided. The slot after it is a SendRepeat, and
// the entry sends `count` runs of `bytes`: run k from `src + k * src_stride` to
// `dst_addr + k * dst_stride` on node `dst_node & ~kSendRepeat`. count >= 1, both strides
// multiples of 4 (a source stride of 0 sends one run to several places), reserved 0; every
// run obeys the rules of a plain entry. docs/network.md, "Send lists".
inline constexpr uint32_t kSendRepeat = 0x80000000u;

struct SendRepeat {
  uint32_t count;       // runs, >= 1
  uint32_t src_stride;  // bytes from one run's source to the next's
  uint32_t dst_stride;  // bytes from one run's destination to the next's
  uint32_t reserved;    // 0
};

static_assert(sizeof(SendEntry) == 16 && sizeof(SendRepeat) == 16, "send-list slots are 16 bytes");

// One send-list entry decoded: `count` runs of `bytes`, run k from `src + k * src_stride`
// on the sending tile to `dst + k * dst_stride` on node `node`. A plain entry is one run
// with strides 0.
struct SendRuns {
  uint32_t src = 0, bytes = 0, node = 0, dst = 0;
  uint32_t count = 1, src_stride = 0, dst_stride = 0;
  bool strided = false;
};

// The one decoder of the layout above, for every reader of a send list (the emulator's
// exchange, the profile's exchange matrix): the entry in slot `e` of a list of `slots`
// slots, `slot(i)` returning slot i as a SendEntry (a SendRepeat slot is read as one). A
// strided entry leaves `e` on its repeat slot; one in the list's last slot, whose repeat
// slot is missing, decodes as a plain entry (the emulator's checks reject it first).
// Nothing is checked: a count of 0, a reserved word or a run outside SRAM is the caller's.
template <class Slot>
constexpr SendRuns decode_send_entry(Slot&& slot, uint32_t slots, uint32_t& e) {
  const SendEntry x = slot(e);
  SendRuns r;
  r.src = x.src;
  r.bytes = x.bytes;
  r.node = x.dst_node & ~kSendRepeat;
  r.dst = x.dst_addr;
  if ((x.dst_node & kSendRepeat) && e + 1 < slots) {
    const SendEntry rep = slot(++e);  // SendRepeat's fields in SendEntry's places
    r.count = rep.src;
    r.src_stride = rep.bytes;
    r.dst_stride = rep.dst_node;
    r.strided = true;
  }
  return r;
}
static_assert(offsetof(SendRepeat, count) == offsetof(SendEntry, src) &&
                  offsetof(SendRepeat, src_stride) == offsetof(SendEntry, bytes) &&
                  offsetof(SendRepeat, dst_stride) == offsetof(SendEntry, dst_node),
              "decode_send_entry reads a SendRepeat slot through SendEntry's fields");

struct StreamEntry {
  uint32_t recv_words;  // words the host writes to this tile in this stream's host sync
};

// EXIT codes the runtime writes: 0 when the program ends; a trap is reported as
// kExitTrap | mcause (the first-trap latch has pc, tval and superstep).
inline constexpr uint32_t kExitTrap = 0x80000000u;
inline constexpr uint32_t kExitBadProgram = 0x40000000u;  // | offset of the bad opcode
// The TileHeader's magic or version is wrong (no program offset to report).
inline constexpr uint32_t kExitBadHeader = kExitBadProgram | 0x3FFFFFFFu;

// Repeat and If bodies nest at most this deep (the runtime's fixed stack; the verifier
// checks it). A deeper Repeat or If is a bad program.
inline constexpr uint32_t kCtlMaxNesting = 8;

#ifdef __cplusplus
}  // namespace tessera::arch
#endif
