// One RV32IMF + Zicsr + Zifencei hart in machine mode: the core of a Tessera tile.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <vector>

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
  void halt(Halt h) { halt_ = h; }
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
  void set_cycle(uint64_t c) {
    cycle_ = c;
    for (uint64_t& r : ready_) r = std::min(r, c);
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
  const Decoded& fetch_decoded(uint32_t offset);
  Decoded* alloc_page(uint32_t offset);
  void redecode(Decoded& d, uint32_t raw);

  uint32_t x_[32] = {};
  uint32_t f_[32] = {};
  uint32_t pc_ = 0;
  // CSR state.
  uint32_t mstatus_ = 0, mtvec_ = 0, mepc_ = 0, mcause_ = 0, mtval_ = 0, mscratch_ = 0, mie_ = 0;
  uint32_t fflags_ = 0, frm_ = 0;
  uint64_t cycle_ = 0, instret_ = 0;
  uint64_t ready_[kSlotCount] = {};  // cycle model: when each register's value is ready

  uint8_t* sram_;
  uint32_t sram_bytes_;
  TileBus* bus_;
  uint32_t tohost_ = 0, fromhost_ = 0;
  std::FILE* console_ = stdout;
  std::FILE* trace_ = nullptr;
  bool timing_ = true;
  Halt halt_;
  TrapLatch latch_;
  // Decode cache, one page per 4 KiB of SRAM, allocated when code is first fetched there.
  static constexpr uint32_t kPageShift = 12;
  static constexpr uint32_t kPageInsns = 1u << (kPageShift - 2);
  std::vector<std::unique_ptr<Decoded[]>> icache_;
};

}  // namespace tessera::emu
