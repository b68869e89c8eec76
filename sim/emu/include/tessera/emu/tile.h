// One Tessera tile in the emulator: SRAM, the core, and the tile register block.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <span>

#include "tessera/emu/hart.h"
#include "tessera/emu/sram_block.h"
#include "tessera/exe/elf.h"

namespace tessera::emu {

// The tile's side of a barrier and an exchange, as its register block latches them. The
// machine reads it when every tile has arrived and resets it on release.
struct SyncState {
  bool arrived = false;        // SYNC written; a SYNC read stalls until release
  uint32_t kind = 0;           // the value written to SYNC: 0 exchange/plain, 1 host sync
  uint64_t arrival_cycle = 0;  // the core's cycle counter when it arrived
  bool xchg_started = false;   // XCHG_START written for the coming barrier
  uint32_t xchg_list = 0, xchg_entries = 0;
  uint32_t xchg_sent = 0;      // words sent in the last exchange (XCHG_DONE)
  uint32_t recv_expect = 0, recv_count = 0;
  bool halted = false;         // the core has halted (Hart::halted, kept here by the hart)
  // Native mode: barriers after the next one that the tile has already passed, doing
  // nothing in their supersteps (fw::native_pass_idle_supersteps); the machine counts it
  // arrived at each, with no turn, as that superstep's first round starts.
  uint32_t idle_barriers = 0;
};

class Tile final : public TileBus {
 public:
  // A tile with SRAM of its own, zeroed.
  Tile(uint32_t id, uint32_t tile_count, uint32_t sram_bytes);
  // A tile whose SRAM is `sram` (zeroed; a machine's SramBlock) and whose barrier state is
  // `sync` (an element of the machine's array, which its per-superstep scans read in order),
  // both of which must outlive it.
  Tile(uint32_t id, uint32_t tile_count, std::span<uint8_t> sram, SyncState& sync);
  Tile(const Tile&) = delete;
  Tile& operator=(const Tile&) = delete;

  // Holds the core in reset (the reset state of docs/isa.md) with pc at `entry`. SRAM keeps
  // its contents, as on the hardware: a new tile's SRAM is zero.
  void reset(uint32_t entry);
  // Loads an executable: segments into SRAM, pc at its entry, HTIF at its tohost/fromhost
  // symbols if it has them. Throws ElfError if it does not fit.
  void load_elf(const exe::ElfImage& image);

  Hart& hart() { return hart_; }
  const Hart& hart() const { return hart_; }
  std::span<uint8_t> sram() { return sram_; }
  uint32_t id() const { return id_; }
  SyncState& sync() { return *sync_; }
  const SyncState& sync() const { return *sync_; }
  // Set by the machine; readable at SUPERSTEP.
  void set_superstep(uint32_t s) { hart_.superstep = s; }
  void set_console(std::FILE* out) { console_ = out; hart_.set_console(out); }

  // TileBus: the register block (arch/tile_map.toml).
  Access load(uint32_t offset, uint32_t& value) override;
  Access store(uint32_t offset, uint32_t value) override;

 private:
  uint32_t id_, tile_count_;
  std::unique_ptr<SramBlock> own_;  // the first constructor's SRAM
  std::span<uint8_t> sram_;
  Hart hart_;
  SyncState own_sync_;  // the first constructor's
  SyncState* sync_ = &own_sync_;
  std::FILE* console_ = stdout;
};

}  // namespace tessera::emu
