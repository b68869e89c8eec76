// The control-program interpreter: see interpreter.h for what each op does.
//
// Memory safety in native mode: everything read from tile memory (the header, table
// entries, counts) is copied into locals before use, so a codelet that overwrites its own
// program or tables changes what runs but cannot make the host read outside SRAM; every
// pointer comes from tile_ptr with the length that is then used.
#include "runtime/interpreter.h"

#include "codelets/codelets.h"
#include "runtime/platform.h"

namespace tessera::fw {
namespace {

using namespace arch;

[[noreturn]] void bad_program(uint32_t offset) { tile_halt(kExitBadProgram | offset); }

// Entry `index` of a table of `count` T at tile address `table`; index out of range is a
// bad program at `pc`.
template <class T>
T table_entry(uint32_t table, uint32_t count, uint32_t index, uint32_t pc) {
  if (index >= count) bad_program(pc);
  return *tile_ptr<const T>(table + index * static_cast<uint32_t>(sizeof(T)));
}

// Operand words after each opcode; -1 for an unknown opcode.
int operand_count(uint32_t op) {
  switch (op) {
    case kCtlEnd:
      return 0;
    case kCtlExecute:
      return 1;
    case kCtlExchange:
      return 1;
    case kCtlSync:
      return 0;
    case kCtlRepeat:
      return 2;
    case kCtlIf:
      return 3;
    case kCtlHostSync:
      return 1;
    default:
      return -1;
  }
}

// Runs this tile's vertices of compute set `cs`, in order.
void execute(const TileHeader& h, uint32_t cs, uint32_t pc) {
  const ComputeSetEntry set =
      table_entry<ComputeSetEntry>(h.compute_sets, h.num_compute_sets, cs, pc);
  const Vertex* vertices = tile_ptr<const Vertex>(set.vertices, set.count);
  for (uint32_t i = 0; i < set.count; ++i) {
    const Vertex v = vertices[i];
    if (v.codelet >= tessera_codelet_count) bad_program(pc);
#if !defined(__riscv)
    // Native mode: a run of conv2d vertices of one channel each may go as one kernel call.
    if (tessera_codelet_table[v.codelet].fn == codelet_conv2d) {
      i += native_conv2d_vertices(vertices + i, set.count - i) - 1;
      continue;
    }
#endif
    tessera_codelet_table[v.codelet].fn(v.state);
  }
}

void push(RunState& st, uint32_t body, uint32_t end, uint32_t next, uint32_t times) {
  st.frames[st.depth++] = RunFrame{body, end, next, times};
  st.pc = body;
}

}  // namespace

StepResult run_until_sync(RunState& st) {
  const TileHeader h = *tile_ptr<const TileHeader>(tile_header_addr());
  if (h.magic != kTileHeaderMagic || h.version != kTileHeaderVersion) tile_halt(kExitBadHeader);
  const uint32_t* prog = tile_ptr<const uint32_t>(h.program, h.program_words);
  if (st.depth > kCtlMaxNesting) bad_program(st.pc);  // never: the pushes check it

  for (;;) {
    // Native mode's watchdog, between two ops (a program that loops without a barrier
    // would otherwise hold the host thread for ever); nothing on RISC-V.
    if (tile_should_yield()) return StepResult::kYield;
    // Close every body that ends here: run it again or continue after it.
    while (st.depth > 0 && st.pc == st.frames[st.depth - 1].end) {
      RunFrame& f = st.frames[st.depth - 1];
      if (f.left > 1) {
        --f.left;
        st.pc = f.body;
      } else {
        st.pc = f.next;
        --st.depth;
      }
    }
    // The innermost body (or the program) ends at `limit`: ops and bodies must fit in it.
    const uint32_t limit = st.depth > 0 ? st.frames[st.depth - 1].end : h.program_words;
    const uint32_t pc = st.pc;
    if (pc >= limit) bad_program(pc);  // ran off the end of the program without End
    const uint32_t op = prog[pc];
    const int nargs = operand_count(op);
    if (nargs < 0 || limit - pc - 1 < static_cast<uint32_t>(nargs)) bad_program(pc);
    const uint32_t* arg = prog + pc + 1;
    const uint32_t next = pc + 1 + static_cast<uint32_t>(nargs);

    switch (op) {
      case kCtlEnd:
        return StepResult::kEnd;  // pc stays on End

      case kCtlExecute:
        st.pc = next;
        execute(h, arg[0], pc);
        break;

      case kCtlExchange: {
        const ExchangeEntry x =
            table_entry<ExchangeEntry>(h.exchanges, h.num_exchanges, arg[0], pc);
        reg_write<kTileRegXchgList>(x.send_list);
        reg_write<kTileRegXchgEntries>(x.entries);
        reg_write<kTileRegRecvExpect>(x.recv_words);
        reg_write<kTileRegXchgStart>(1);
        reg_write<kTileRegSync>(0);
        st.pc = next;
        return StepResult::kSync;
      }

      case kCtlSync:
        reg_write<kTileRegRecvExpect>(0);
        reg_write<kTileRegSync>(0);
        st.pc = next;
        return StepResult::kSync;

      case kCtlHostSync: {
        const StreamEntry s = table_entry<StreamEntry>(h.streams, h.num_streams, arg[0], pc);
        reg_write<kTileRegRecvExpect>(s.recv_words);
        reg_write<kTileRegSync>(1);
        st.pc = next;
        return StepResult::kSync;
      }

      case kCtlRepeat: {
        const uint32_t count = arg[0], body_words = arg[1];
        if (body_words > limit - next || st.depth >= kCtlMaxNesting) bad_program(pc);
        if (count == 0 || body_words == 0)
          st.pc = next + body_words;  // nothing to run
        else
          push(st, next, next + body_words, next + body_words, count);
        break;
      }

      case kCtlIf: {
        const uint32_t then_words = arg[1], else_words = arg[2];
        if (then_words > limit - next || else_words > limit - next - then_words ||
            st.depth >= kCtlMaxNesting)
          bad_program(pc);
        const uint32_t cond_addr =
            table_entry<uint32_t>(h.conditions, h.num_conditions, arg[0], pc);
        const bool taken = *tile_ptr<const uint32_t>(cond_addr) != 0;
        const uint32_t else_begin = next + then_words, after = else_begin + else_words;
        // A frame for either branch, so that the nesting limit does not depend on data.
        if (taken)
          push(st, next, else_begin, after, 1);
        else
          push(st, else_begin, after, after, 1);
        break;
      }
    }
  }
}

}  // namespace tessera::fw
