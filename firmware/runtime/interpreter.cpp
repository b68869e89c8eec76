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

// The op at the state's position, after closing every body that ends there (running it
// again or continuing after it).
struct Decoded {
  uint32_t pc, op, limit, next;  // limit: where the innermost body (or the program) ends
  const uint32_t* arg;
};

// False when the op is unknown, it or its operands run past `limit`, or the position is at
// or past `limit` (off the end of the program without End): a bad program at st.pc.
bool decode(RunState& st, const uint32_t* prog, uint32_t program_words, Decoded& d) {
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
  d.limit = st.depth > 0 ? st.frames[st.depth - 1].end : program_words;
  d.pc = st.pc;
  if (d.pc >= d.limit) return false;
  d.op = prog[d.pc];
  const int nargs = operand_count(d.op);
  if (nargs < 0 || d.limit - d.pc - 1 < static_cast<uint32_t>(nargs)) return false;
  d.arg = prog + d.pc + 1;
  d.next = d.pc + 1 + static_cast<uint32_t>(nargs);
  return true;
}

// A Repeat's body entered or skipped (its operands checked: false for a bad program).
bool enter_repeat(RunState& st, const Decoded& d) {
  const uint32_t count = d.arg[0], body_words = d.arg[1];
  if (body_words > d.limit - d.next || st.depth >= kCtlMaxNesting) return false;
  if (count == 0 || body_words == 0)
    st.pc = d.next + body_words;  // nothing to run
  else
    push(st, d.next, d.next + body_words, d.next + body_words, count);
  return true;
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
    Decoded d;
    if (!decode(st, prog, h.program_words, d)) bad_program(st.pc);
    const uint32_t pc = d.pc, op = d.op, limit = d.limit, next = d.next;
    const uint32_t* arg = d.arg;

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

      case kCtlRepeat:
        if (!enter_repeat(st, d)) bad_program(pc);
        break;

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

#if !defined(__riscv)
namespace {

// Entry `index` of a table of `count` T at tile address `table`, or null when the index is
// out of range or the entry is not in SRAM.
template <class T>
const T* entry_or_null(uint32_t table, uint32_t count, uint32_t index) {
  return index < count ? tile_ptr_or_null<const T>(table + index * static_cast<uint32_t>(sizeof(T))) : nullptr;
}

}  // namespace

uint32_t pass_idle_supersteps(RunState& st, uint32_t most) {
  const TileHeader* hp = tile_ptr_or_null<const TileHeader>(tile_header_addr());
  if (!hp || hp->magic != kTileHeaderMagic || hp->version != kTileHeaderVersion) return 0;
  const TileHeader h = *hp;
  const uint32_t* prog = tile_ptr_or_null<const uint32_t>(h.program, h.program_words);
  if (!prog || st.depth > kCtlMaxNesting) return 0;
  RunState s = st;  // committed to `st` at each barrier passed
  uint32_t passed = 0;
  const ExchangeEntry* first = nullptr;  // the first barrier's exchange; null: a Sync
  while (passed < most) {
    Decoded d;
    if (!decode(s, prog, h.program_words, d)) break;
    if (d.op == kCtlExecute) {
      const auto* set = entry_or_null<ComputeSetEntry>(h.compute_sets, h.num_compute_sets, d.arg[0]);
      if (!set || set->count != 0) break;
      s.pc = d.next;
    } else if (d.op == kCtlRepeat) {
      if (!enter_repeat(s, d)) break;
    } else if (d.op == kCtlExchange || d.op == kCtlSync) {
      if (d.op == kCtlExchange) {
        const auto* x = entry_or_null<ExchangeEntry>(h.exchanges, h.num_exchanges, d.arg[0]);
        if (!x || x->entries != 0 || x->recv_words != 0) break;
        if (passed == 0) first = x;
      }
      s.pc = d.next;
      st = s;
      ++passed;
    } else {
      break;  // End, HostSync, If
    }
  }
  if (passed == 0) return 0;
  // The first barrier's arrival, as run_until_sync writes it.
  if (first) {
    reg_write<kTileRegXchgList>(first->send_list);
    reg_write<kTileRegXchgEntries>(0);
  }
  reg_write<kTileRegRecvExpect>(0);
  if (first) reg_write<kTileRegXchgStart>(1);
  reg_write<kTileRegSync>(0);
  return passed;
}
#endif

}  // namespace tessera::fw
