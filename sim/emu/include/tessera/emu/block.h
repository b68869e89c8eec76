// The ISS's decoded blocks: the instructions from one start address up to the first that
// ends a block, decoded once, with the cycle model's schedule of the whole block worked
// out in advance for the usual case that nothing from before the block stalls it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tessera/emu/decode.h"

namespace tessera::emu {

// The op that follows a block's last instruction: the executor's "look up the next block".
inline constexpr Op kOpBlockEnd = Op::kCount;
// The executor's handlers for a conditional branch back to its own block's start (a loop of
// one block), in the order of Beq..Bgeu, follow kOpBlockEnd's in its table.
inline constexpr size_t kLoopHandlers = 6;
inline constexpr size_t loop_handler_index(Op branch) {
  return static_cast<size_t>(kOpBlockEnd) + 1 + (static_cast<size_t>(branch) - static_cast<size_t>(Op::Beq));
}

// A scoreboard slot and a cycle count relative to the block's entry.
struct SlotTime {
  uint8_t slot;
  uint32_t cycle;
};

// A block's instruction, with the executor's handler for it (direct threading).
struct BlockInsn : Decoded {
  const void* handler = nullptr;
  uint32_t pc = 0;
};

struct Block {
  // Control transfers, traps, CSR accesses and fence.i end a block; so does this length.
  static constexpr uint32_t kMaxInsns = 32;

  uint32_t start = 0;   // SRAM offset of the first instruction
  uint32_t len = 0;     // instructions, without the end marker
  uint32_t start_pc = 0;  // the address of the first instruction
  uint32_t end_pc = 0;    // the address after the last instruction
  uint64_t epoch = 0;   // the hart's code epoch in which the words were last checked
  // insns[len] is the end marker (kOpBlockEnd).
  std::vector<BlockInsn> insns;
  // The handler table the `handler`s were taken from (the executor has one per mode).
  const void* const* table = nullptr;

  // The cycle model's schedule, valid when every source the block reads before writing it
  // is ready by the cycle its first reader issues in the schedule (the live-ins). Then the
  // block takes `cycles` (plus `taken_penalty` when its last instruction jumps) and leaves
  // each slot it writes ready at its result cycle (fflags: at least `fflags_ready`).
  // A block holding a CSR access has no schedule (it reads and writes mcycle itself).
  // The first kFixed entries of live_in and results sit in fixed arrays that the executor
  // walks without a loop (padded with the always-ready slot and the sink, which change
  // nothing); the rest, in long blocks, in the vectors.
  static constexpr uint32_t kFixed = 8;
  bool scheduled = false;
  uint32_t cycles = 0;
  uint32_t taken_penalty = 0;
  uint8_t live_slot[kFixed] = {};
  uint32_t live_cycle[kFixed] = {};
  uint32_t fixed_results = 0;  // entries used in result_slot / result_cycle
  uint32_t last_ready = 0;     // the latest result cycle, fflags included
  uint8_t result_slot[kFixed] = {};
  uint32_t result_cycle[kFixed] = {};
  std::vector<SlotTime> live_in_rest;
  std::vector<SlotTime> results_rest;
  bool writes_fflags = false;
  uint32_t fflags_ready = 0;
  bool more_results = false;  // results_rest is not empty or fflags is written
  // A loop of one block: a scheduled block whose last instruction is a conditional branch
  // to its first. Its branch takes a handler that runs the block again without going
  // through the block end. A pass that jumps back takes `loop_cycles` (cycles +
  // taken_penalty); if nothing it computes is still in flight by then (`loop_settles`:
  // last_ready <= loop_cycles), every pass after one entered with nothing in flight is on
  // the schedule too, and the executor only counts the passes, applying them at once when
  // the loop is left or something looks at the cycle.
  bool self_loop = false;
  bool loop_settles = false;
  uint32_t loop_cycles = 0;
  // The cycles of a pass that falls through (0) or jumps (1), where its schedule leaves
  // nothing in flight at its end (last_ready <= those cycles); else 0. Entered with nothing
  // in flight, such a pass only adds them to the cycle: no ready cycle matters after it.
  uint32_t quick_cycles[2] = {0, 0};

  // Chaining: the block last found after this one, when it fell through (0) or jumped (1),
  // and its address (1, which no pc is, when there is none); the executor checks the
  // address and the block's epoch before use.
  Block* next[2] = {nullptr, nullptr};
  uint32_t next_pc[2] = {1, 1};
};

// Decodes the block at SRAM offset `start` (< sram_bytes, a multiple of 4) from `sram`.
void build_block(Block& b, const uint8_t* sram, uint32_t sram_bytes, uint32_t start);

// True if the block's words are still those in `sram`.
bool block_matches(const Block& b, const uint8_t* sram);

}  // namespace tessera::emu
