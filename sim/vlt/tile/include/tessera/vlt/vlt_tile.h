// One Tessera tile in RTL (rtl/tile, verilated as part of the unit-bench model tess_units,
// sim/vlt/units, whose unprefixed ports are the tile's): the harness around the model.
//
// It drives the ports of tess_tile (docs/tile-rtl.md) the way a device does for one tile:
// reset, load an ELF through the external SRAM port while run_i = 0, run, and it collects
// what the tile reports: retire records, console bytes, barrier arrivals (a one-tile
// barrier: released the cycle after the arrival), the halt. HTIF (the tohost convention of
// docs/isa.md) is done the way tessera-emu does it, from the retire port: a store to
// tohost + 4 makes the harness read the 64-bit tohost word back through the external port.
#pragma once

#include <cstdint>
#include <cstdio>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "tessera/exe/elf.h"

class VerilatedContext;
class VerilatedFstC;
class Vtess_units;

namespace tessera::vlt {

// One record of the retire port.
struct RetireRecord {
  uint64_t tick = 0;  // harness clock edge after which the record was on the port
  uint32_t pc = 0, insn = 0;
  bool trap = false;
  uint32_t cause = 0, tval = 0;
  bool halt = false;
  bool rd_we = false, rd_fp = false;
  uint32_t rd = 0, rd_wdata = 0;
  bool timing = false;
  bool mem_re = false, mem_we = false;
  uint32_t mem_addr = 0, mem_be = 0, mem_wdata = 0, mem_rdata = 0;
  uint32_t flags = 0;
  uint64_t cycle = 0;  // retire_cycle_o
};

// One line in the format of tessera-emu --trace: pc, word, disassembly, register written
// (or the trap), plus the memory access.
std::string describe(const RetireRecord& r);

// A write the harness made into SRAM through the external port while the core ran (HTIF
// acknowledgements). Co-simulation applies the same writes to the emulator's memory, in
// the same order relative to the core's own accesses.
struct ExtWrite {
  uint64_t tick = 0;  // the clock edge that performed it
  uint32_t addr = 0, be = 0, data = 0;
};

// Why the tile stopped.
struct VltHalt {
  enum class Kind { kNone, kTohost, kExit, kTrap, kHtifError } kind = Kind::kNone;
  uint32_t code = 0;          // tohost/EXIT status, or the halting trap's mcause
  uint32_t pc = 0, tval = 0;  // of the halting trap (or of the HTIF store)
  uint32_t insn = 0;          // the halting trap's instruction word
};

class VltTile {
 public:
  struct Options {
    std::vector<std::string> args;  // handed to the Verilated context (+verilator+... plusargs)
    std::string fst_path;           // non-empty: dump an FST waveform there
    std::FILE* console = stdout;    // CONSOLE register and HTIF console bytes
  };
  explicit VltTile(const Options& opt);
  ~VltTile();
  VltTile(const VltTile&) = delete;
  VltTile& operator=(const VltTile&) = delete;

  static constexpr uint32_t kSramBytes = TESSERA_VLT_TILE_SRAM_BYTES;
  // The random-reset mode and seed the context uses (+verilator+rand+reset+N, +seed+N).
  int rand_reset() const;
  uint64_t rand_seed() const;

  // rst_ni low for `cycles` cycles with run_i = 0, then high (the core still held).
  void reset(uint32_t boot_pc, unsigned cycles = 8);
  // Zeroes the SRAM and writes the ELF's segments through the external port (run_i = 0),
  // sets the boot pc to its entry and HTIF to its tohost/fromhost symbols. Throws ElfError.
  void load_elf(const exe::ElfImage& image);
  // run_i = 1.
  void start();
  // All three for one program: reset, load_elf, start. Throws ElfError.
  void boot(const exe::ElfImage& image);
  // "+verilator+rand+reset+2 +verilator+seed+N" when the model starts from random state,
  // else "": the plusargs that reproduce this run's initial state.
  std::string rand_reset_args() const;

  // One clock cycle; collects what the tile reported.
  void tick();
  // Runs to the next retire record. False if the tile halted with no record left, or
  // `max_tick` was reached first.
  bool next_retire(RetireRecord& r, uint64_t max_tick = UINT64_MAX);

  // HTIF: call with every retire record, in order. Returns true if it was the store to
  // tohost + 4, which the harness then acted on (an exit or HTIF error sets halt()).
  bool htif(const RetireRecord& r);
  uint32_t tohost() const { return tohost_; }
  uint32_t fromhost() const { return fromhost_; }

  // SRAM through the external port (word aligned tile addresses).
  uint32_t read_word(uint32_t addr);
  void write_word(uint32_t addr, uint32_t data, uint32_t be = 0xf);
  std::vector<ExtWrite>& ext_writes() { return ext_writes_; }

  // The tile halted (halted_o, or an HTIF exit/error): what and where.
  bool halted() const { return halt_.kind != VltHalt::Kind::kNone; }
  const VltHalt& halt() const { return halt_; }
  // The first trap record seen (cause 0xffffffff if none).
  const RetireRecord& first_trap() const { return first_trap_; }
  bool any_trap() const { return any_trap_; }

  uint64_t ticks() const { return ticks_; }
  uint64_t retired() const { return retired_; }
  uint64_t last_retire_cycle() const { return last_cycle_; }
  uint64_t sync_count() const { return syncs_; }

 private:
  void sample();
  void set_ext_idle();

  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Vtess_units> top_;  // the tile of the unit-bench model (sim/vlt/units)
  std::unique_ptr<VerilatedFstC> fst_;
  std::FILE* console_;
  std::deque<RetireRecord> retired_q_;
  std::vector<ExtWrite> ext_writes_;
  uint64_t ticks_ = 0, retired_ = 0, last_cycle_ = 0, syncs_ = 0;
  bool running_ = false, release_next_ = false, any_trap_ = false;
  uint32_t tohost_ = 0, fromhost_ = 0;
  VltHalt halt_;
  RetireRecord last_halt_rec_, first_trap_;
  bool have_halt_rec_ = false;
  uint64_t halted_tick_ = 0;
};

}  // namespace tessera::vlt
