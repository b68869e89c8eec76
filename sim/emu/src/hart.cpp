// The ISS's execute loop. Each instruction's semantics come from insns.def; this file
// supplies the vocabulary they are written in (operands, memory, jumps, traps, CSRs).
//
// Speed: instructions are decoded once into blocks (block.h) that run one after another
// without a fetch per instruction, each with its cycle-model schedule worked out once;
// SRAM accesses take an inline fast path, and everything rare (register block, HTIF,
// traps) lives out of line. A loop of one block runs again from its branch, counting its
// passes; adjacent ALU instructions run in fused pairs (fused_pairs.h); a block end with
// nothing in flight only adds cycles (docs/speed.md). Self-modifying code: a store into a
// line holding code ends its block and has every block's words checked again before they
// run (hart.h).
#include "tessera/emu/hart.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <stdexcept>
#include <string>

#include "tessera/arch/tile_map.h"
#include "tessera/emu/csr.h"
#include "tessera/emu/disasm.h"
#include "tessera/fp/fp32.h"
#include "fused_pairs.h"

static_assert(std::endian::native == std::endian::little, "the ISS assumes a little-endian host");

namespace tessera::emu {

using arch::kSramBase;
// Cycles a trap adds after its issue cycle: the fetch restarts at mtvec, as for a jump.
constexpr uint64_t kTrapRefetch = arch::kLatency[static_cast<size_t>(arch::InsnClass::kJump)].taken_penalty;

Hart::Hart(uint8_t* sram, uint32_t sram_bytes, TileBus* bus)
    : sram_(sram), sram_bytes_(sram_bytes), bus_(bus),
      blocks_((sram_bytes + (1u << kPageShift) - 1) >> kPageShift),
      code_lines_((sram_bytes + (1u << kCodeLineShift) - 1) >> kCodeLineShift) {
  // Every bounds check below is `offset < sram_bytes_` on an aligned offset of at most 4
  // bytes: with sram_bytes_ a non-zero multiple of 4 the whole access is then inside SRAM
  // (no `offset + size` that could wrap in 32 bits).
  if (sram_bytes == 0 || sram_bytes % 4 != 0 || sram_bytes > 0x7ffff800u)
    throw std::invalid_argument("tile SRAM of " + std::to_string(sram_bytes) + " bytes: want a non-zero multiple of 4");
  reset(kSramBase);
}

void Hart::reset(uint32_t pc) {
  std::memset(x_, 0, sizeof x_);
  std::memset(f_, 0, sizeof f_);
  pc_ = pc;
  mstatus_ = kMstatusMpp;
  mtvec_ = kMtvecReset;
  mepc_ = mcause_ = mtval_ = mscratch_ = mie_ = 0;
  fflags_ = frm_ = 0;
  cycle_ = instret_ = 0;
  std::fill(std::begin(ready_), std::end(ready_), 0);
  latest_ready_ = 0;
  deferred_ = nullptr;
  set_halt({});
  latch_ = {};
  superstep = 0;
  ++epoch_;  // SRAM is rewritten around a reset
}

void Hart::set_tohost(uint32_t tohost_addr, uint32_t fromhost_addr) {
  tohost_ = tohost_addr;
  fromhost_ = fromhost_addr;
}

void Hart::rebuild(Block& b, uint32_t offset) {
  build_block(b, sram_, sram_bytes_, offset);
  b.epoch = epoch_;
  for (uint32_t line = offset >> kCodeLineShift; line <= (offset + 4 * b.len - 1) >> kCodeLineShift; ++line)
    code_lines_[line] = 1;
}

Block& Hart::block_slow(uint32_t offset, const void* const* table) {
  flush_results();  // the deferred block may be rebuilt
  auto& page = blocks_[offset >> kPageShift];
  if (!page) page = std::make_unique<std::unique_ptr<Block>[]>(kPageInsns);
  auto& b = page[(offset >> 2) & (kPageInsns - 1)];
  if (!b) {
    b = std::make_unique<Block>();
    rebuild(*b, offset);
  } else if (b->epoch != epoch_) {
    if (block_matches(*b, sram_)) b->epoch = epoch_;
    else rebuild(*b, offset);
  }
  if (b->table != table) {
    for (BlockInsn& i : b->insns) i.handler = table[static_cast<size_t>(i.op)];
    if (b->self_loop) b->insns[b->len - 1].handler = table[loop_handler_index(b->insns[b->len - 1].op)];
    // Adjacent ALU instructions that form a pair of fused_pairs.h, from the first: the
    // first's handler runs both. (The second keeps its own: nothing enters a block in its
    // middle, and a budget that ends inside the block runs its first instruction alone.)
    // The tracing executor has none (null entries).
    if (table[kFusedHandlersBase] != nullptr) {
      for (uint32_t i = 0; i + 1 < b->len; ++i) {
        const int pair = fused_pair_index(b->insns[i].op, b->insns[i + 1].op);
        if (pair < 0) continue;
        b->insns[i].handler = table[fused_handler_index(pair)];
        ++i;
      }
    }
    b->table = table;
  }
  return *b;
}

// Every run starts a new epoch, so a block checked in this epoch was checked in this run
// and holds this run's handlers.
inline Block& Hart::block_at(uint32_t offset, const void* const* table) {
  if (const auto& page = blocks_[offset >> kPageShift]) [[likely]]
    if (Block* b = page[(offset >> 2) & (kPageInsns - 1)].get())
      if (b->epoch == epoch_) [[likely]] return *b;
  return block_slow(offset, table);
}

Block& Hart::step_block(const Block& b) {
  step_.start = b.start;
  step_.len = 1;
  step_.start_pc = b.insns[0].pc;
  step_.end_pc = b.insns[0].pc + 4;
  step_.scheduled = false;
  step_.insns.assign(b.insns.begin(), b.insns.begin() + 1);
  step_.insns[0].handler = b.table[static_cast<size_t>(b.insns[0].op)];  // never the loop's
  step_.insns.push_back(b.insns[b.len]);
  return step_;
}

void Hart::raise(uint32_t cause, uint32_t tval) {
  if (!latch_.valid) latch_ = {true, cause, pc_, tval, superstep};
  // A trap nothing could recover from halts the tile rather than loop (docs/isa.md "Traps"):
  // one before software installed a handler, or one at the handler's own first instruction.
  // Any other trap, also one inside the handler, vectors to mtvec as the privileged spec has it.
  if (mtvec_ == kMtvecReset || pc_ == (mtvec_ & ~3u)) {
    set_halt({Halt::Kind::kTrap, cause, pc_, tval});
    return;
  }
  mepc_ = pc_;
  mcause_ = cause;
  mtval_ = tval;
  const uint32_t mie = mstatus_ & kMstatusMie;
  mstatus_ = (mstatus_ & ~(kMstatusMie | kMstatusMpie)) | (mie ? kMstatusMpie : 0);
  pc_ = mtvec_ & ~3u;
}

template <typename T>
Hart::Mem Hart::load_slow(uint32_t addr, T& out) {
  if (addr & (sizeof(T) - 1)) return raise(kCauseMisalignedLoad, addr), Mem::kTrap;
  const uint32_t off = addr - kSramBase;
  if (off < sram_bytes_) {  // aligned SRAM access that only missed the fast path
    std::memcpy(&out, sram_ + off, sizeof(T));
    return Mem::kOk;
  }
  if (addr - arch::kRegsBase < arch::kRegsBytes && sizeof(T) == 4) {
    uint32_t v = 0;
    switch (bus_->load(addr - arch::kRegsBase, v)) {
      case TileBus::Access::kOk: out = static_cast<T>(v); return Mem::kOk;
      case TileBus::Access::kStall: return Mem::kStall;
      case TileBus::Access::kFault: break;
    }
  }
  return raise(kCauseLoadAccess, addr), Mem::kTrap;
}

template <typename T>
Hart::Mem Hart::store_slow(uint32_t addr, uint32_t value) {
  if (addr & (sizeof(T) - 1)) return raise(kCauseMisalignedStore, addr), Mem::kTrap;
  const uint32_t off = addr - kSramBase;
  if (off < sram_bytes_) {
    const T v = static_cast<T>(value);
    std::memcpy(sram_ + off, &v, sizeof(T));
    if (tohost_ && addr - tohost_ == 4) htif_command();
    return Mem::kOk;
  }
  if (addr - arch::kRegsBase < arch::kRegsBytes && sizeof(T) == 4) {
    switch (bus_->store(addr - arch::kRegsBase, value)) {
      case TileBus::Access::kOk: return Mem::kOk;
      case TileBus::Access::kStall: return Mem::kStall;
      case TileBus::Access::kFault: break;
    }
  }
  return raise(kCauseStoreAccess, addr), Mem::kTrap;
}

// The high word of tohost was written: act on the 64-bit command (device 0: exit with
// payload >> 1 if payload bit 0 is set; device 1 command 1: print a character), then
// acknowledge as QEMU's spike machine does (tohost cleared, fromhost set).
void Hart::htif_command() {
  uint64_t cmd;
  std::memcpy(&cmd, sram_ + (tohost_ - kSramBase), 8);
  const uint32_t device = static_cast<uint32_t>(cmd >> 56), command = (cmd >> 48) & 0xff;
  const uint64_t payload = cmd & 0xffffffffffffull;
  if (device == 0 && command == 0 && (payload & 1)) {
    set_halt({Halt::Kind::kTohost, static_cast<uint32_t>(payload >> 1), pc_, 0});
    return;
  }
  if (device == 1 && command == 1) {
    std::fputc(static_cast<int>(payload & 0xff), console_);
    const uint64_t ack = (cmd >> 48 << 48) | 0x100 | (payload & 0xff);
    std::memset(sram_ + (tohost_ - kSramBase), 0, 8);
    if (fromhost_ && fromhost_ - kSramBase + 8 <= sram_bytes_)
      std::memcpy(sram_ + (fromhost_ - kSramBase), &ack, 8);
    return;
  }
  set_halt({Halt::Kind::kHtifError, static_cast<uint32_t>(cmd), pc_, static_cast<uint32_t>(cmd >> 32)});
}

void Hart::trace_retired(const Decoded& d, uint32_t pc) {
  std::fprintf(trace_, "0x%08x (0x%08x) %-32s", pc, d.raw, disassemble(d.raw, pc).c_str());
  switch (op_format(d.op)) {
    case Format::U: case Format::J: case Format::Jr: case Format::Load: case Format::I:
    case Format::Shift: case Format::R: case Format::Csr: case Format::CsrI: case Format::XFm:
    case Format::XF: case Format::XFF:
      if (d.rd) std::fprintf(trace_, " %s=0x%08x", xreg_name(d.rd), x_[d.rd]);
      break;
    case Format::FLoad: case Format::FR4: case Format::FRm: case Format::FR1m: case Format::FR:
    case Format::FXm: case Format::FX:
      std::fprintf(trace_, " %s=0x%08x", freg_name(d.rd), f_[d.rd]);
      break;
    default: break;
  }
  std::fputc('\n', trace_);
}

StopReason Hart::run(uint64_t max_insns) {
  if (trace_) return timing_ ? run_loop<true, true>(max_insns) : run_loop<true, false>(max_insns);
  return timing_ ? run_loop<false, true>(max_insns) : run_loop<false, false>(max_insns);
}

enum CsrKind { kCsrW, kCsrS, kCsrC };  // CSR_OP: write, set bits, clear bits

namespace {

// The value an op of a fused pair writes, from its semantics in insns.def (formats U, I,
// Shift and R: each a plain WX(value)); any other op fails to compile.
template <Op kOp>
[[gnu::always_inline]] inline uint32_t alu_value([[maybe_unused]] uint32_t x1, [[maybe_unused]] uint32_t x2,
                                                 [[maybe_unused]] int32_t imm, [[maybe_unused]] uint32_t pc) {
#define X1 x1
#define X2 x2
#define S1 static_cast<int32_t>(x1)
#define S2 static_cast<int32_t>(x2)
#define IMM imm
#define PC pc
#define WX(v) return static_cast<uint32_t>(v)
#define TESSERA_ALU(id, ...) if constexpr (kOp == Op::id) { __VA_ARGS__ } else
#define TESSERA_ALU_U TESSERA_ALU
#define TESSERA_ALU_I TESSERA_ALU
#define TESSERA_ALU_Shift TESSERA_ALU
#define TESSERA_ALU_R TESSERA_ALU
#define TESSERA_SKIP(...)
#define TESSERA_ALU_J TESSERA_SKIP
#define TESSERA_ALU_Jr TESSERA_SKIP
#define TESSERA_ALU_B TESSERA_SKIP
#define TESSERA_ALU_Load TESSERA_SKIP
#define TESSERA_ALU_Store TESSERA_SKIP
#define TESSERA_ALU_Fence TESSERA_SKIP
#define TESSERA_ALU_None TESSERA_SKIP
#define TESSERA_ALU_Csr TESSERA_SKIP
#define TESSERA_ALU_CsrI TESSERA_SKIP
#define TESSERA_ALU_FLoad TESSERA_SKIP
#define TESSERA_ALU_FStore TESSERA_SKIP
#define TESSERA_ALU_FR4 TESSERA_SKIP
#define TESSERA_ALU_FRm TESSERA_SKIP
#define TESSERA_ALU_FR1m TESSERA_SKIP
#define TESSERA_ALU_FR TESSERA_SKIP
#define TESSERA_ALU_XFm TESSERA_SKIP
#define TESSERA_ALU_XF TESSERA_SKIP
#define TESSERA_ALU_XFF TESSERA_SKIP
#define TESSERA_ALU_FXm TESSERA_SKIP
#define TESSERA_ALU_FX TESSERA_SKIP
#define INSN(id, name, fmt, mask, match, klass, ...) TESSERA_ALU_##fmt(id, __VA_ARGS__)
#include "tessera/emu/insns.def"
#undef INSN
  static_assert(kOp != kOp, "a fused pair's op must be of format U, I, Shift or R (fused_pairs.h)");
#undef TESSERA_ALU
#undef TESSERA_SKIP
#undef X1
#undef X2
#undef S1
#undef S2
#undef IMM
#undef PC
#undef WX
}

}  // namespace

template <bool kTrace, bool kTiming>
StopReason Hart::run_loop(uint64_t max_insns) {
  // Threaded dispatch: every handler ends in its own indirect jump to the next one, which
  // the host's branch predictor learns far better than one shared switch; each block
  // instruction holds its handler's address.
  static void* const kHandlers[] = {
      &&op_kIllegal,
#define INSN(id, ...) &&op_##id,
#include "tessera/emu/insns.def"
#undef INSN
      &&block_end,
      &&loop_Beq, &&loop_Bne, &&loop_Blt, &&loop_Bge, &&loop_Bltu, &&loop_Bgeu,
  // The fused pairs; none when tracing (their code is then left out, and blocks do not pair).
#define TESSERA_FUSED_ENTRY(a, b) kTrace ? nullptr : &&fz_##a##_##b,
      TESSERA_FUSED_PAIRS(TESSERA_FUSED_ENTRY)
#undef TESSERA_FUSED_ENTRY
  };
  static_assert(loop_handler_index(Op::Bgeu) == static_cast<size_t>(kOpBlockEnd) + kLoopHandlers);
  static_assert(fused_handler_index(kFusedCount - 1) + 1 == sizeof(kHandlers) / sizeof(kHandlers[0]));

  if (halt_.kind != Halt::Kind::kNone) return StopReason::kHalted;
  if (max_insns == 0) return StopReason::kBudget;
  ++epoch_;  // SRAM may have been written since the last run: check each block's words again
  // Instructions retired or trapped in this run before the current block; instret_ is kept
  // as instret0 + n and written back where something may read it (CSRs, leaving).
  uint64_t n = 0, instret0 = instret_;
  Block* blk = nullptr;
  const BlockInsn* dp = nullptr;
  uint32_t pc = 0, npc = 0, offset = 0;
  [[maybe_unused]] uint32_t rm_bits = 0;
  [[maybe_unused]] fp::Rm rm = fp::Rm::kRne;
  [[maybe_unused]] uint32_t flags_before = 0;
  // The cycle model is applied after the fact: a block's instructions do not depend on it,
  // so cycle_ and ready_ keep their values from the block's entry until it ends, and are
  // then advanced by the block's schedule, or instruction by instruction where the
  // schedule does not hold. Where something reads them inside a block (the register
  // block, traps), the instructions before are timed first: `settled` of them. Zero
  // whenever a block is entered: set only on the slow paths, which leave the block, and
  // reset where they do (not at every block's entry, which costs every handler).
  uint32_t settled = 0;
  // Set by the slow paths of loads and stores (halts, stores into code, the register
  // block): the block ends after this instruction.
  bool leave_block = false;
  // A loop of one block on its schedule: passes of `blk` that ran but are not yet in n and
  // the cycle model (APPLY_PASSES), and the budget left for passes after those.
  uint64_t loop_k = 0, loop_room = 0;

#include "hart_exec.inc"

// pc_ is written back only where the block is left (and before slow paths and traps);
// each block instruction knows its own pc, and only the last can jump (setting npc).
#define RETIRE_AND_NEXT(fmt)                                             \
  if constexpr (kTrace) trace_retired(*dp, dp->pc);                      \
  if (leave_block) [[unlikely]] goto retire_exit;                        \
  NEXT_##fmt
  // Branches and jumps always end their block: straight to its end.
#define NEXT_B goto block_end
#define NEXT_J goto block_end
#define NEXT_Jr goto block_end
#define NEXT_ANY ++dp; goto* dp->handler
#define NEXT_U NEXT_ANY
#define NEXT_Load NEXT_ANY
#define NEXT_Store NEXT_ANY
#define NEXT_I NEXT_ANY
#define NEXT_Shift NEXT_ANY
#define NEXT_R NEXT_ANY
#define NEXT_Fence NEXT_ANY
#define NEXT_None NEXT_ANY
#define NEXT_Csr NEXT_ANY
#define NEXT_CsrI NEXT_ANY
#define NEXT_FLoad NEXT_ANY
#define NEXT_FStore NEXT_ANY
#define NEXT_FR4 NEXT_ANY
#define NEXT_FRm NEXT_ANY
#define NEXT_FR1m NEXT_ANY
#define NEXT_FR NEXT_ANY
#define NEXT_XFm NEXT_ANY
#define NEXT_XF NEXT_ANY
#define NEXT_XFF NEXT_ANY
#define NEXT_FXm NEXT_ANY
#define NEXT_FX NEXT_ANY

  goto next_block;

#define INSN(id, name, fmt, mask, match, klass, ...) \
  op_##id : {                                        \
    PROLOGUE_##fmt __VA_ARGS__ EPILOGUE_##fmt        \
  }                                                  \
  RETIRE_AND_NEXT(fmt);
#include "tessera/emu/insns.def"
#undef INSN

op_kIllegal:
  ILLEGAL();

  // The branch at the end of a loop of one block (Block::self_loop). When it jumps back
  // after a pass entered with nothing in flight, and the block's passes leave nothing in
  // flight (loop_settles), the passes are only counted (loop_k) until the loop is left,
  // the budget would end inside the next pass, or something looks at the cycle
  // (APPLY_PASSES); when only the first condition holds, it does what the block end
  // would (finish_block, the budget) and enters the block again; in every other case the
  // block end decides.
#define LOOP_BRANCH(id, cond)                                                   \
  loop_##id : {                                                                 \
    if constexpr (kTrace) trace_retired(*dp, dp->pc);                           \
    if (!(cond)) goto block_end;                                                \
    if (loop_k == 0) [[unlikely]] {                                             \
      if constexpr (kTiming)                                                    \
        if (!blk->loop_settles || latest_ready_ > cycle_) goto loop_one_pass;   \
      loop_room = max_insns - n - blk->len;                                     \
    }                                                                           \
    ++loop_k;                                                                   \
    if (loop_room >= blk->len) [[likely]] {                                     \
      loop_room -= blk->len;                                                    \
      dp = blk->insns.data();                                                   \
      goto* dp->handler;                                                        \
    }                                                                           \
    APPLY_PASSES();                                                             \
    pc = blk->start_pc;                                                         \
    goto enter_block;                                                           \
  }
  LOOP_BRANCH(Beq, X1 == X2)
  LOOP_BRANCH(Bne, X1 != X2)
  LOOP_BRANCH(Blt, S1 < S2)
  LOOP_BRANCH(Bge, S1 >= S2)
  LOOP_BRANCH(Bltu, X1 < X2)
  LOOP_BRANCH(Bgeu, X1 >= X2)
#undef LOOP_BRANCH
  // A fused pair (fused_pairs.h): two ALU instructions, one dispatch. Neither can trap,
  // touch memory or end the block, and the cycle model times them from the block's
  // schedule like any other.
#define TESSERA_FUSED_CELL(a, b)                                                \
  fz_##a##_##b : {                                                              \
    const BlockInsn& i0_ = dp[0];                                               \
    x_[i0_.dst] = alu_value<Op::a>(x_[i0_.rs1], x_[i0_.rs2], i0_.imm, i0_.pc);  \
    const BlockInsn& i1_ = dp[1];                                               \
    x_[i1_.dst] = alu_value<Op::b>(x_[i1_.rs1], x_[i1_.rs2], i1_.imm, i1_.pc);  \
    dp += 2;                                                                    \
    goto* dp->handler;                                                          \
  }
  TESSERA_FUSED_PAIRS(TESSERA_FUSED_CELL)
#undef TESSERA_FUSED_CELL
loop_one_pass: __attribute__((unused));  // timed only
  npc = blk->start_pc;
  if constexpr (kTiming) {
    if (latest_ready_ > cycle_) goto block_end;
    finish_block(*blk, cycle_, true);
  }
  n += blk->len;
  pc = npc;
  goto enter_block;

  // The cycle model (arch/latency.toml), when timing is on: an instruction issues when its
  // sources are ready, holds the issue slot for its class's issue cycles (plus the refetch
  // penalty of a taken branch or jump), and its result is ready `result` cycles after issue.
block_end: {
  APPLY_PASSES();
  pc = npc;
  n += blk->len;
  const bool taken = pc != blk->end_pc;
  // (A block whose instructions were timed inside, settled > 0, ended through retire_exit.)
  if constexpr (kTiming) {
    // Nothing in flight before the block nor after it (the usual case): only the cycle
    // moves. latest_ready_ stays a bound on every ready cycle written, none is written,
    // and the block's own results are ready by the new cycle (finish_block).
    const uint32_t quick = blk->quick_cycles[taken];
    if (quick != 0 && latest_ready_ <= cycle_) [[likely]] {
      cycle_ += quick;
      deferred_ = nullptr;
    } else if (blk->scheduled && schedule_holds(*blk, cycle_)) {
      finish_block(*blk, cycle_, taken);
    } else {
      settle(*blk, 0, blk->len, taken);
    }
  } else {
    cycle_ += blk->len;
  }
  // A loop of one block runs it again: nothing inside started a new epoch (a store into
  // code or a slow path leaves through retire_exit), so it is still valid.
  if (pc == blk->start_pc) goto enter_block;
  // The block found after this one last time, if it is still at this pc and checked in
  // this epoch (which also means in this run, so its handlers are this loop's).
  Block* const from = blk;
  if (from->next_pc[taken] == pc && from->next[taken]->epoch == epoch_) [[likely]] {
    blk = from->next[taken];
    goto enter_block;
  }
  pc_ = pc;
  if (n == max_insns) goto leave;
  offset = pc - kSramBase;
  if (offset >= sram_bytes_) [[unlikely]] goto fetch_fault;
  blk = &block_at(offset, kHandlers);
  if (from != &step_) {
    from->next[taken] = blk;
    from->next_pc[taken] = pc;
  }
  goto enter_block;
}
next_block:
  pc = pc_;
  offset = pc - kSramBase;
  if (offset >= sram_bytes_) [[unlikely]] goto fetch_fault;
  blk = &block_at(offset, kHandlers);
enter_block:
  // A budget that ends inside the block (or here): its instructions one at a time.
  if (max_insns - n < blk->len) [[unlikely]] {
    pc_ = pc;
    if (n == max_insns) goto leave;
    blk = &step_block(*blk);
  }
  dp = blk->insns.data();
  npc = blk->end_pc;
  goto* dp->handler;

retire_exit: {
  const bool taken = npc != blk->end_pc;  // only the last instruction can jump
  pc_ = taken ? npc : dp->pc + 4;
  const uint32_t done = INSN_INDEX() + 1;
  SETTLE_TO(done, taken);
  settled = 0;
  n += done;
  if (n == max_insns || halt_.kind != Halt::Kind::kNone) goto leave;
  leave_block = false;
  goto next_block;
}

fetch_fault:
  pc_ = pc;
  raise(kCauseFetchAccess, pc);
  dp = nullptr;
trapped:
  APPLY_PASSES();
  if (dp) {
    const uint32_t done = INSN_INDEX();
    SETTLE_TO(done, false);
    settled = 0;
    n += done;
  }
  // A trap is decided when the instruction issues, then the fetch restarts at mtvec.
  if constexpr (kTiming) {
    flush_results();
    const uint64_t issue = dp ? std::max({cycle_, ready_[dp->src[0]], ready_[dp->src[1]], ready_[dp->src[2]]}) : cycle_;
    cycle_ = issue + 1 + kTrapRefetch;
  } else {
    ++cycle_;
  }
  if constexpr (kTrace) {
    const uint32_t raw = dp ? dp->raw : 0;
    if (dp) pc = dp->pc;
    if (halt_.kind == Halt::Kind::kTrap)
      std::fprintf(trace_, "0x%08x (0x%08x) trap %s, halted\n", pc, raw, cause_name(halt_.code));
    else
      std::fprintf(trace_, "0x%08x (0x%08x) trap %s (mtval 0x%08x)\n", pc, raw, cause_name(mcause_), mtval_);
  }
  if (halt_.kind != Halt::Kind::kNone) goto leave;
  --instret0;  // a trap counts against the budget but retires nothing
  if (++n == max_insns) goto leave;
  leave_block = false;
  goto next_block;

stalled:
  APPLY_PASSES();
  flush_results();
  n += INSN_INDEX();
  instret_ = instret0 + n;
  return StopReason::kStalled;

leave:
  flush_results();
  instret_ = instret0 + n;
  return halt_.kind != Halt::Kind::kNone ? StopReason::kHalted : StopReason::kBudget;
}

}  // namespace tessera::emu
