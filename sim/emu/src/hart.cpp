// The ISS's execute loop. Each instruction's semantics come from insns.def; this file
// supplies the vocabulary they are written in (operands, memory, jumps, traps, CSRs).
//
// Speed: instructions are decoded once per distinct word into a per-page cache whose tag
// is the raw word itself (so stores to code and DMA into SRAM need no invalidation), SRAM
// accesses take an inline fast path, and everything rare (register block, HTIF, traps)
// lives out of line.
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

static_assert(std::endian::native == std::endian::little, "the ISS assumes a little-endian host");

namespace tessera::emu {

using arch::kSramBase;
// Cycles a trap adds after its issue cycle: the fetch restarts at mtvec, as for a jump.
constexpr uint64_t kTrapRefetch = arch::kLatency[static_cast<size_t>(arch::InsnClass::kJump)].taken_penalty;

Hart::Hart(uint8_t* sram, uint32_t sram_bytes, TileBus* bus)
    : sram_(sram), sram_bytes_(sram_bytes), bus_(bus), icache_((sram_bytes + 4095) >> kPageShift) {
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
  halt_ = {};
  latch_ = {};
  superstep = 0;
}

void Hart::set_tohost(uint32_t tohost_addr, uint32_t fromhost_addr) {
  tohost_ = tohost_addr;
  fromhost_ = fromhost_addr;
}

Decoded* Hart::alloc_page(uint32_t offset) {
  auto& page = icache_[offset >> kPageShift];
  page = std::make_unique<Decoded[]>(kPageInsns);
  const Decoded zero = decode(0);
  for (uint32_t i = 0; i < kPageInsns; ++i) page[i] = zero;
  return page.get();
}

void Hart::redecode(Decoded& d, uint32_t raw) { d = decode(raw); }

inline const Decoded& Hart::fetch_decoded(uint32_t offset) {
  Decoded* page = icache_[offset >> kPageShift].get();
  if (!page) [[unlikely]] page = alloc_page(offset);
  Decoded& d = page[(offset >> 2) & (kPageInsns - 1)];
  uint32_t raw;
  std::memcpy(&raw, sram_ + offset, 4);
  if (d.raw != raw) [[unlikely]] redecode(d, raw);
  return d;
}

void Hart::raise(uint32_t cause, uint32_t tval) {
  if (!latch_.valid) latch_ = {true, cause, pc_, tval, superstep};
  // A trap nothing could recover from halts the tile rather than loop (docs/isa.md "Traps"):
  // one before software installed a handler, or one at the handler's own first instruction.
  // Any other trap, also one inside the handler, vectors to mtvec as the privileged spec has it.
  if (mtvec_ == kMtvecReset || pc_ == (mtvec_ & ~3u)) {
    halt_ = {Halt::Kind::kTrap, cause, pc_, tval};
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
    halt_ = {Halt::Kind::kTohost, static_cast<uint32_t>(payload >> 1), pc_, 0};
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
  halt_ = {Halt::Kind::kHtifError, static_cast<uint32_t>(cmd), pc_, static_cast<uint32_t>(cmd >> 32)};
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

template <bool kTrace, bool kTiming>
StopReason Hart::run_loop(uint64_t max_insns) {
  // Threaded dispatch: every handler ends in its own indirect jump to the next one, which
  // the host's branch predictor learns far better than one shared switch.
  static void* const kHandlers[] = {
      &&op_kIllegal,
#define INSN(id, ...) &&op_##id,
#include "tessera/emu/insns.def"
#undef INSN
  };
  static_assert(sizeof(kHandlers) / sizeof(kHandlers[0]) == static_cast<size_t>(Op::kCount));

  if (halt_.kind != Halt::Kind::kNone) return StopReason::kHalted;
  if (max_insns == 0) return StopReason::kBudget;
  uint64_t n = 0;
  const Decoded* dp = nullptr;
  uint32_t pc = 0, npc = 0, offset = 0;
  [[maybe_unused]] uint32_t rm_bits = 0;
  [[maybe_unused]] fp::Rm rm = fp::Rm::kRne;
  [[maybe_unused]] uint32_t flags_before = 0;
  // Halts happen only in slow paths (HTIF, the EXIT register, traps); those set this.
  bool stop_after_retire = false;

#include "hart_exec.inc"

#define FETCH_AND_DISPATCH()                                  \
  pc = pc_;                                                   \
  offset = pc - kSramBase;                                    \
  if (offset >= sram_bytes_) [[unlikely]] goto fetch_fault;   \
  dp = &fetch_decoded(offset);                                \
  npc = pc + 4;                                               \
  goto* kHandlers[static_cast<size_t>(dp->op)]
  // The cycle model (arch/latency.toml), when timing is on: an instruction issues when its sources are ready,
  // holds the issue slot for its class's issue cycles (plus the refetch penalty of a taken
  // branch or jump), and its result is ready `result` cycles after issue.
#define RETIRE_AND_NEXT()                                                                  \
  x_[0] = 0;                                                                               \
  pc_ = npc;                                                                               \
  ++instret_;                                                                              \
  if constexpr (kTiming) {                                                                 \
    const uint64_t issue_ = std::max({cycle_, ready_[dp->src[0]], ready_[dp->src[1]], ready_[dp->src[2]]}); \
    cycle_ = issue_ + dp->lat.issue + (npc != pc + 4 ? dp->lat.taken_penalty : 0);        \
    ready_[dp->dst] = issue_ + dp->lat.result;                                             \
    /* fflags: a CSR waits for every flag in flight, not only the youngest's */            \
    ready_[dp->dst2] = std::max(ready_[dp->dst2], issue_ + dp->lat.result);                \
  } else {                                                                                 \
    ++cycle_;                                                                              \
  }                                                                                        \
  if constexpr (kTrace) trace_retired(*dp, pc);                      \
  if (stop_after_retire || ++n == max_insns) [[unlikely]] goto leave; \
  FETCH_AND_DISPATCH()

  FETCH_AND_DISPATCH();

#define INSN(id, name, fmt, mask, match, klass, ...) \
  op_##id : {                                        \
    PROLOGUE_##fmt __VA_ARGS__ EPILOGUE_##fmt        \
  }                                                  \
  RETIRE_AND_NEXT();
#include "tessera/emu/insns.def"
#undef INSN

op_kIllegal:
  ILLEGAL();

fetch_fault:
  raise(kCauseFetchAccess, pc);
  dp = nullptr;
trapped:
  // A trap is decided when the instruction issues, then the fetch restarts at mtvec.
  if constexpr (kTiming) {
    const uint64_t issue = dp ? std::max({cycle_, ready_[dp->src[0]], ready_[dp->src[1]], ready_[dp->src[2]]}) : cycle_;
    cycle_ = issue + 1 + kTrapRefetch;
  } else {
    ++cycle_;
  }
  if (halt_.kind != Halt::Kind::kNone) [[unlikely]] stop_after_retire = true;
  if constexpr (kTrace) {
    const uint32_t raw = dp ? dp->raw : 0;
    if (halt_.kind == Halt::Kind::kTrap)
      std::fprintf(trace_, "0x%08x (0x%08x) trap %s, halted\n", pc, raw, cause_name(halt_.code));
    else
      std::fprintf(trace_, "0x%08x (0x%08x) trap %s (mtval 0x%08x)\n", pc, raw, cause_name(mcause_), mtval_);
  }
  if (stop_after_retire || ++n == max_insns) goto leave;
  FETCH_AND_DISPATCH();

leave:
  return halt_.kind != Halt::Kind::kNone ? StopReason::kHalted : StopReason::kBudget;
}

}  // namespace tessera::emu
