// One RV32IMF + Zicsr + Zifencei hart in machine mode: the core of a Tessera tile.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <vector>

#include "tessera/emu/block.h"
#include "tessera/emu/decode.h"

namespace tessera::emu {

// Everything on the tile's bus beyond SRAM: the register block at arch::kRegsBase.
// A load may stall (a blocking wait): the hart then returns kStalled without retiring the
// load and re-executes it when run again.
class TileBus {
 public:
  enum class Access { kOk, kStall, kFault };
  virtual ~TileBus() = default;
  virtual Access load(uint32_t offset, uint32_t& value) = 0;   // offset into the block
  virtual Access store(uint32_t offset, uint32_t value) = 0;
};

enum class StopReason { kBudget, kHalted, kStalled };

// Why a halted hart halted.
struct Halt {
  enum class Kind { kNone, kTohost, kExit, kTrap, kHtifError } kind = Kind::kNone;
  uint32_t code = 0;              // tohost/EXIT status, or the halting trap's cause
  uint32_t pc = 0, tval = 0;      // of the halting trap
};

// The sticky first-trap latch (also readable through the tile register block).
struct TrapLatch {
  bool valid = false;
  uint32_t cause = 0, pc = 0, tval = 0, superstep = 0;
};

class Hart {
 public:
  // `sram` (of `sram_bytes`, at arch::kSramBase) and `bus` must outlive the hart.
  Hart(uint8_t* sram, uint32_t sram_bytes, TileBus* bus);

  // Reset state (docs/isa.md): x, f, fcsr, CSRs zero except mstatus.MPP = M; pc = `pc`.
  void reset(uint32_t pc);

  // Runs at most `max_insns` instructions.
  StopReason run(uint64_t max_insns);

  // HTIF: stores to the 8-byte `tohost` word exit or print, as riscv-tests and QEMU's
  // spike machine do. Off (0) by default.
  void set_tohost(uint32_t tohost_addr, uint32_t fromhost_addr);
  void set_console(std::FILE* out) { console_ = out; }
  // Timing on: mcycle follows the cycle model of arch/latency.toml (the default). Off:
  // one cycle per instruction, and the ISS runs faster.
  void set_timing(bool on) { timing_ = on; }
  // Prints every retired instruction (pc, word, disassembly, register written).
  void set_trace(std::FILE* out) { trace_ = out; }

  // Halting from outside (the EXIT register).
  void halt(Halt h) { set_halt(h); }
  // Where the hart also keeps whether it is halted (the machine's barrier state, which it
  // scans every superstep), or null.
  void mirror_halt(bool* to) { halt_mirror_ = to; }
  bool halted() const { return halt_.kind != Halt::Kind::kNone; }
  const Halt& halt_info() const { return halt_; }
  const TrapLatch& trap_latch() const { return latch_; }

  uint32_t pc() const { return pc_; }
  uint32_t x(unsigned i) const { return x_[i & 31]; }
  uint32_t f(unsigned i) const { return f_[i & 31]; }
  void set_x(unsigned i, uint32_t v) { if (i & 31) x_[i & 31] = v; }
  uint64_t instret() const { return instret_; }
  uint64_t cycle() const { return cycle_; }
  // The machine advances time across barriers; results in flight are ready by then.
  // latest_ready_ bounds every ready cycle, so with nothing ready after `c` (always in
  // native mode) no ready cycle changes.
  void set_cycle(uint64_t c) {
    cycle_ = c;
    if (latest_ready_ <= c) return;
    for (uint64_t& r : ready_) r = std::min(r, c);
    latest_ready_ = c;
  }
  uint32_t superstep = 0;  // maintained by the tile; recorded in the trap latch

  // CSR access as an instruction sees it; false if the CSR does not exist.
  bool csr_read(uint32_t num, uint32_t& value) const;
  bool csr_write(uint32_t num, uint32_t value);

 private:
  enum class Mem { kOk, kTrap, kStall };
  template <bool kTrace, bool kTiming>
  StopReason run_loop(uint64_t max_insns);
  template <typename T>
  Mem load_slow(uint32_t addr, T& out);
  template <typename T>
  Mem store_slow(uint32_t addr, uint32_t value);
  void raise(uint32_t cause, uint32_t tval);
  void htif_command();
  void trace_retired(const Decoded& d, uint32_t pc);
  Block& block_at(uint32_t offset, const void* const* table);
  Block& block_slow(uint32_t offset, const void* const* table);
  Block& step_block(const Block& b);
  void rebuild(Block& b, uint32_t offset);
  // The cycle model, one instruction at a time (`taken`: it jumped).
  void time_insn(const Decoded& d, bool taken) {
    const uint64_t issue = std::max({cycle_, ready_[d.src[0]], ready_[d.src[1]], ready_[d.src[2]]});
    cycle_ = issue + d.lat.issue + (taken ? d.lat.taken_penalty : 0);
    ready_[d.dst] = issue + d.lat.result;
    // fflags: a CSR waits for every flag in flight, not only the youngest's.
    ready_[d.dst2] = std::max(ready_[d.dst2], issue + d.lat.result);
    latest_ready_ = std::max(latest_ready_, issue + d.lat.result);
  }
  // Whether `b`'s schedule holds when it is entered at cycle `entry`.
  [[gnu::always_inline]] bool schedule_holds(const Block& b, uint64_t entry) {
    if (latest_ready_ <= entry) return true;  // nothing in flight
    flush_results();
    bool late = false;
    for (uint32_t i = 0; i < Block::kFixed; ++i) late |= ready_[b.live_slot[i]] > entry + b.live_cycle[i];
    if (!b.live_in_rest.empty()) [[unlikely]]
      for (const SlotTime& s : b.live_in_rest) late |= ready_[s.slot] > entry + s.cycle;
    return !late;
  }
  // A scheduled block ran to its end from cycle `entry`: apply its schedule. If nothing is
  // in flight after it (latest_ready_ <= cycle_, the usual case), no ready cycle matters
  // any more: every use takes the max with a cycle at least cycle_ (the cycle never goes
  // back; set_cycle only lowers ready cycles), so its results' ready cycles are not
  // written at all, nor those of a block deferred before it. Otherwise they are written
  // when another block ends or something reads them: a loop of one block writes them once,
  // when it is left (each pass overwrites the same slots).
  [[gnu::always_inline]] void finish_block(const Block& b, uint64_t entry, bool taken) {
    cycle_ = entry + b.cycles + (taken ? b.taken_penalty : 0);
    latest_ready_ = std::max(latest_ready_, entry + b.last_ready);
    if (latest_ready_ <= cycle_) [[likely]] {
      deferred_ = nullptr;
      return;
    }
    if (&b != deferred_) [[unlikely]] {
      flush_results();
      deferred_ = &b;
    }
    deferred_entry_ = entry;
  }
  // `k` passes of a loop of one block (Block::self_loop and loop_settles) ran from cycle_,
  // the first entered with nothing in flight: apply them at once.
  void apply_passes(const Block& b, uint64_t k) {
    cycle_ += k * b.loop_cycles;
    latest_ready_ = std::max(latest_ready_, cycle_ - b.loop_cycles + b.last_ready);
    deferred_ = nullptr;  // nothing in flight (loop_settles): see finish_block
  }
  void write_results(const Block& b, uint64_t entry) {
    // Unrolled by the number of results: one well-predicted jump rather than a loop.
#define TESSERA_RESULT(i) \
  case i + 1: ready_[b.result_slot[i]] = entry + b.result_cycle[i]; [[fallthrough]];
    static_assert(Block::kFixed == 8);
    switch (b.fixed_results) {
      TESSERA_RESULT(7) TESSERA_RESULT(6) TESSERA_RESULT(5) TESSERA_RESULT(4)
      TESSERA_RESULT(3) TESSERA_RESULT(2) TESSERA_RESULT(1) TESSERA_RESULT(0)
      default: break;
    }
#undef TESSERA_RESULT
    if (b.more_results) [[unlikely]] {
      for (const SlotTime& s : b.results_rest) ready_[s.slot] = entry + s.cycle;
      if (b.writes_fflags) ready_[kSlotFflags] = std::max(ready_[kSlotFflags], entry + b.fflags_ready);
    }
  }
  // Writes the deferred results: before anything reads ready_ or the block changes.
  void flush_results() {
    if (deferred_) {
      write_results(*deferred_, deferred_entry_);
      deferred_ = nullptr;
    }
  }
  // Times instructions [from, to) of `b` one by one from the current cycle (the last of
  // them jumped if `taken`).
  void settle(const Block& b, uint32_t from, uint32_t to, bool taken) {
    flush_results();
    for (uint32_t i = from; i < to; ++i) time_insn(b.insns[i], taken && i + 1 == to);
  }

  // x0..x31, then room for the scoreboard's other slots: an instruction writes its x result
  // to x_[dst], its scoreboard slot, which is the sink for x0, so x0 stays 0 unwritten.
  uint32_t x_[kSlotCount] = {};
  uint32_t f_[32] = {};
  uint32_t pc_ = 0;
  // CSR state.
  uint32_t mstatus_ = 0, mtvec_ = 0, mepc_ = 0, mcause_ = 0, mtval_ = 0, mscratch_ = 0, mie_ = 0;
  uint32_t fflags_ = 0, frm_ = 0;
  uint64_t cycle_ = 0, instret_ = 0;
  uint64_t ready_[kSlotCount] = {};  // cycle model: when each register's value is ready
  uint64_t latest_ready_ = 0;        // at least every ready_ value (nothing in flight if <= cycle_)
  const Block* deferred_ = nullptr;  // the last scheduled block, its results not yet in ready_
  uint64_t deferred_entry_ = 0;      // the cycle it was entered

  uint8_t* sram_;
  uint32_t sram_bytes_;
  TileBus* bus_;
  uint32_t tohost_ = 0, fromhost_ = 0;
  std::FILE* console_ = stdout;
  std::FILE* trace_ = nullptr;
  bool timing_ = true;
  Halt halt_;
  bool* halt_mirror_ = nullptr;
  void set_halt(const Halt& h) {
    halt_ = h;
    if (halt_mirror_) *halt_mirror_ = h.kind != Halt::Kind::kNone;
  }
  TrapLatch latch_;
  // Decoded blocks, one slot per word of SRAM in pages of 4 KiB, a page allocated when
  // code is first fetched there. A block's words are checked against SRAM once per code
  // epoch: a new epoch starts with every run (the machine and the host write SRAM between
  // runs), at reset, and when the hart stores into a line that holds code or touches the
  // register block; such a store also ends the block it is in, so the next instruction is
  // fetched anew.
  static constexpr uint32_t kPageShift = 12;
  static constexpr uint32_t kPageInsns = 1u << (kPageShift - 2);
  static constexpr uint32_t kCodeLineShift = 6;
  std::vector<std::unique_ptr<std::unique_ptr<Block>[]>> blocks_;
  std::vector<uint8_t> code_lines_;  // non-zero: some block holds a word of this 64-byte line
  uint64_t epoch_ = 1;
  Block step_;  // one instruction of a block, run alone when the budget ends inside it
};

}  // namespace tessera::emu
