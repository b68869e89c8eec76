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

#if !defined(__riscv)
// Native mode only: passes, from where `state` is (the start of a superstep: the tile's
// earlier barriers resolved), up to `most` supersteps in which the tile runs no vertex,
// sends nothing and receives nothing: Executes of empty compute sets, Repeat headers and
// ends of bodies, each superstep ended by an Exchange of no entries and no receive words or
// by a Sync. When it passes one or more, it arrives at the first one's barrier with that
// op's register writes, leaves `state` after the last one's, and returns how many: the
// machine counts the tile arrived at the others' barriers as each superstep starts, with
// no turn. 0: the next superstep does something (or the program or its tables are
// wrong, which run_until_sync then reports); nothing was written. It reads nothing that
// could change before the real turns would: the tile's SRAM is written only by the
// exchanges, in which it receives nothing (a stray send is the machine's error at that
// barrier), and by the host in a host sync or reset, and it stops at each HostSync, If and
// End. Nothing halts the tile here; each bad address or index ends the pass.
uint32_t pass_idle_supersteps(RunState& state, uint32_t most);
#endif

}  // namespace tessera::fw
