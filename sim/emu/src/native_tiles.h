// Native mode's tiles: the firmware built for the host (firmware/runtime/native.h), each
// tile a resumable state machine whose register accesses go to the emulated tile's
// register block, exactly as its RISC-V build's loads and stores do in ISS mode.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/native.h"
#include "tessera/emu/tile.h"

namespace tessera::emu {

class NativeTiles {
 public:
  // pass_idle: run_until_sync passes a tile's supersteps that do nothing in one turn
  // (MachineOptions::pass_idle_supersteps).
  NativeTiles(std::vector<std::unique_ptr<Tile>>& tiles, bool pass_idle);
  // Back to the start of the control program (after the firmware is loaded).
  void reset(uint32_t header);
  // Runs tile `t` to its next barrier or until it halts, or until `deadline_ns`
  // (steady_clock, 0: none) passes between two control-program ops. With pass_idle, a tile
  // whose next supersteps do nothing arrives at the first one's barrier and passes up to
  // kMostIdle - 1 more (its SyncState::idle_barriers).
  void run_until_sync(uint32_t t, int64_t deadline_ns);
  // Asks the cache for what run_until_sync(t) reads first: tile t's state, its register
  // block and its header (a hint: nothing is read, so it races with no thread running t).
  void prefetch(uint32_t t) const {
    __builtin_prefetch(&native_[t]);
    __builtin_prefetch(regs_[t].get());
    __builtin_prefetch(reinterpret_cast<const void*>(headers_[t]));
  }

 private:
  // The register block of one emulated tile, as the native firmware sees it.
  class Regs final : public fw::NativeRegs {
   public:
    explicit Regs(Tile& tile) : tile_(tile) {}
    void store(uint32_t offset, uint32_t value) override { (void)tile_.store(offset, value); }
    uint32_t load(uint32_t offset) override {
      uint32_t v = 0;
      (void)tile_.load(offset, v);  // native mode never issues a blocking read
      return v;
    }

   private:
    Tile& tile_;
  };

  static constexpr uint32_t kMostIdle = 1024;

  std::vector<std::unique_ptr<Tile>>& tiles_;
  bool pass_idle_;
  std::vector<std::unique_ptr<Regs>> regs_;
  // Each tile's state on cache lines of its own: the pool's threads take neighbouring tiles,
  // and state written by both on one line moved it between their cores at every tile.
  struct alignas(64) Slot {
    fw::NativeTile tile;
  };
  std::vector<Slot> native_;
  std::vector<uintptr_t> headers_;  // [tile]: the host address of its header in its SRAM
};

}  // namespace tessera::emu
