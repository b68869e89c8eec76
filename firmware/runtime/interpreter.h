// The control-program interpreter (arch/include/tessera/arch/control.h), written once as a
// resumable state machine for both builds: run_until_sync executes ops from the saved
// position until the tile must wait at a barrier (kSync) or the program is done (kEnd).
//
//   RISC-V (runtime/main.cpp): on kSync read SYNC, which blocks until the barrier
//   releases, and call again; on kEnd write EXIT 0.
//   Host (runtime/native.cpp): native_run_until_sync returns to the machine at each
//   kSync; the machine resumes the tile after the barrier.
//
// What each op does to the tile register block:
//   Execute(cs)   runs this tile's vertices of compute set cs in order, no register access
//   Exchange(x)   XCHG_LIST, XCHG_ENTRIES, RECV_EXPECT from ExchangeEntry x, XCHG_START = 1,
//                 SYNC = 0 (arrive), then kSync
//   Sync          RECV_EXPECT = 0, SYNC = 0, then kSync
//   HostSync(s)   RECV_EXPECT = StreamEntry[s].recv_words, SYNC = 1, then kSync
//   Repeat / If   push a frame (at most kCtlMaxNesting deep); If reads its condition word
//   End           kEnd (and kEnd again if called again)
// Errors halt the tile (tile_halt: EXIT, then the core stops or native mode unwinds):
//   a wrong header magic or version: kExitBadHeader;
//   an unknown opcode, operands or a body running past the enclosing body or the program,
//   running off the end of the program without End, an index out of range of its table
//   (compute set, exchange, stream, condition) or of the codelet table, nesting deeper
//   than kCtlMaxNesting: kExitBadProgram | the word offset of the offending op;
//   a table or program address outside SRAM: the access fault of the load (kExitTrap | 5).
#pragma once

#include <stdint.h>

#include "tessera/arch/control.h"

namespace tessera::fw {

// kYield: native mode only, the host's deadline passed (tile_should_yield); the state is
// at an op boundary and the next call carries on from there.
enum class StepResult : uint32_t { kSync, kEnd, kYield };

// One open Repeat or If body: the words [body, end) run `left` more times, then the
// interpreter continues at `next` (for If, after the else part).
struct RunFrame {
  uint32_t body;
  uint32_t end;
  uint32_t next;
  uint32_t left;
};

// Where a tile is in its control program. All zero = at the start (so .bss is a valid
// initial state on RISC-V).
struct RunState {
  uint32_t pc;     // word offset of the next op
  uint32_t depth;  // open frames
  RunFrame frames[arch::kCtlMaxNesting];
};

StepResult run_until_sync(RunState& state);

}  // namespace tessera::fw
