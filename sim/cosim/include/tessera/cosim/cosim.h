// Lock-step co-simulation of the tile RTL against the emulator, in the manner of Ibex with
// Spike: the RTL runs; at every record of its retire port the emulator's hart executes one
// instruction and the two are compared: pc, instruction word, trap (cause, mtval), the
// register written (x or f) and its value, the memory access (store address, lanes and data;
// load address and the word read), the FP flags raised, the halt.
//
// Timing values (retire_timing_o: a read of mcycle/minstret/cycle/instret or of
// CYCLE_LO/CYCLE_HI) may differ between the backends by design: the RTL's value is copied
// into the emulator's register before the comparison.
//
// HTIF: the emulator's own tohost handling is off; the RTL harness acts on tohost and its
// writes into SRAM (tohost cleared, fromhost acknowledged) are applied to the emulator's
// memory at the same point of the instruction stream: an external write at clock edge j is
// seen by every core access made in E1 after it, that is by the records that retire at edge
// j + ext_skew or later (E1 -> W is 3 edges in the pipeline of docs/tile-rtl.md).
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "tessera/emu/tile.h"
#include "tessera/vlt/vlt_tile.h"

namespace tessera::cosim {

struct Options {
  unsigned ext_skew = 3;            // see above
  unsigned history = 10;            // retired instructions kept for the report
  uint64_t inject_divergence = 0;   // test hook: corrupt the emulator's result at retire >= N
};

struct Divergence {
  uint64_t retire = 0;   // 1-based number of the record
  uint32_t pc = 0, insn = 0;
  std::string field, rtl, emu;
};

class Cosim {
 public:
  Cosim(vlt::VltTile& rtl, emu::Tile& emu, const Options& opt);

  // Steps the emulator by one instruction for record `r` and compares. False at the first
  // divergence (then see divergence()).
  bool step(const vlt::RetireRecord& r);
  // At the end: both halted the same way (EXIT register or trap halt). False on a difference.
  bool check_halt();

  const Divergence& divergence() const { return div_; }
  // The report of the divergence: the record, the field, both values, the last records.
  std::string report() const;
  uint64_t retired() const { return n_; }
  uint64_t timing_copies() const { return timing_copies_; }
  // The cycle models side by side: at every record, RTL retire_cycle minus the cycle the
  // instruction left the issue slot in the emulator's model. Equal models keep it constant (the pipeline
  // depth); each change is listed (at most 20) with the record where it happened.
  int64_t timing_offset_first() const { return offset_first_; }
  uint64_t timing_offset_changes() const { return offset_changes_; }
  const std::vector<std::string>& timing_change_log() const { return offset_log_; }

 private:
  bool fail(const vlt::RetireRecord& r, const std::string& field, const std::string& rtl, const std::string& emu);
  bool fail(const vlt::RetireRecord& r, const std::string& field, uint32_t rtl, uint32_t emu);
  void apply_ext_writes(uint64_t tick);

  vlt::VltTile& rtl_;
  emu::Tile& emu_;
  Options opt_;
  uint64_t n_ = 0, timing_copies_ = 0;
  size_t ext_done_ = 0;
  bool injected_ = false;
  Divergence div_;
  std::deque<std::string> history_;
  bool have_offset_ = false;
  int64_t offset_first_ = 0, offset_last_ = 0;
  uint64_t offset_changes_ = 0;
  std::vector<std::string> offset_log_;
};

}  // namespace tessera::cosim
