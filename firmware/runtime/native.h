// Native mode: the tile firmware (this runtime and the codelets) built for the host, so
// that the emulator can run a tile's control program and codelets as host code instead
// of interpreting RISC-V. Library tessera_firmware_native (firmware/native.cmake).
//
// The machine owns each tile's SRAM and register block; it hands them to the firmware as a
// NativeTile and drives it superstep by superstep:
//
//   NativeTile t{sram, sram_bytes, &regs, header_addr};   // header_addr: see below
//   while (native_run_until_sync(t) == NativeStop::kSync) {
//     ... the tile has arrived (it wrote SYNC); wait for the barrier and apply exchanges ...
//   }
//   // halted: it wrote EXIT (0 at the end of the program; kExitTrap | cause, kExitBadProgram
//   // | offset, kExitBadHeader otherwise), also in t.exit_code
//
// The register writes are those of the RISC-V build, in the same order (interpreter.h
// lists them), through NativeRegs; the blocking SYNC read is the machine's job (it simply
// calls native_run_until_sync again after the release). Every address in tile memory is a
// tile address (SRAM at arch::kSramBase); tile code reaches memory only through tile_ptr
// (platform.h), which checks it against the SRAM: a bad address or alignment halts the
// tile with EXIT = kExitTrap | 4, 5, 6 or 7 (the RISC-V misaligned/access-fault causes of
// a load or store), so a bad program cannot touch host memory outside the tile's SRAM.
//
// The firmware's layout in SRAM is the one of the RISC-V ELF, tessera-firmware.elf
// (built by firmware/runtime): the machine loads that ELF into every tile (also in native
// mode, so that memory looks the same) and reads its symbols, named below. The tile
// header is at the symbol kSymTileHeader; the runtime's own code, data and stack are
// below kSymFirmwareEnd and native mode does not use them.
//
// Threads: each thread runs one tile at a time (the current tile is thread-local);
// different tiles may run on different threads at once.
#pragma once

#include <stdint.h>

#include <stdexcept>

#include "runtime/interpreter.h"
#include "runtime/platform.h"

namespace tessera::fw {

// Symbols of tessera-firmware.elf the machine and the compiler read.
inline constexpr const char* kSymTileHeader = "tessera_tile_header";  // TileHeader, 64-byte aligned
inline constexpr const char* kSymTextEnd = "__text_end";              // end of code + rodata
inline constexpr const char* kSymStackBottom = "__stack_bottom";      // 4 KiB stack ...
inline constexpr const char* kSymStackTop = "__stack_top";            // ... sp starts here
inline constexpr const char* kSymFirmwareEnd = "__firmware_end";      // 4 KiB aligned
inline constexpr const char* kSymCodeletTable = "tessera_codelet_table";  // codelets.h
inline constexpr const char* kSymCodeletCount = "tessera_codelet_count";

// A tile's register block as the firmware sees it: `offset` into the block
// (arch::kTileReg*), word accesses only.
class NativeRegs {
 public:
  virtual ~NativeRegs() = default;
  virtual void store(uint32_t offset, uint32_t value) = 0;
  virtual uint32_t load(uint32_t offset) = 0;
};

struct NativeTile {
  uint8_t* sram = nullptr;  // tile address arch::kSramBase + i is sram[i]
  uint32_t sram_bytes = 0;
  NativeRegs* regs = nullptr;  // its register block
  uint32_t header = 0;         // tile address of tessera_tile_header
  RunState state{};            // where it is in its control program (zero: at the start)
  bool halted = false;         // it wrote EXIT; native_run_until_sync does nothing more
  uint32_t exit_code = 0;      // the value it wrote to EXIT
  // The watchdog: steady_clock time (ns since its epoch) after which native_run_until_sync
  // returns kYield between two control-program ops; 0: no deadline.
  int64_t deadline_ns = 0;
};

// kYield: the deadline passed before the tile reached a barrier or halted; calling again
// carries on where it stopped.
enum class NativeStop { kSync, kHalted, kYield };

// Runs the tile's control program from where it stopped to the next barrier (kSync: it
// has written SYNC and the registers before it) or until it halts (kHalted: it has written
// EXIT; tile.halted and tile.exit_code say so), or until tile.deadline_ns passes (kYield).
// Returns kHalted at once if already halted.
NativeStop native_run_until_sync(NativeTile& tile);

// Passes up to `most` supersteps ahead in which the tile does nothing (runs no vertex, sends
// and receives nothing: interpreter.h, pass_idle_supersteps), from where it stopped after a
// barrier's release. Returns how many: 0 if none (or the tile is halted), nothing written;
// else the tile has arrived at the first one's barrier as native_run_until_sync would have
// (same register writes), and its position is after the last one's barrier: the machine
// counts it arrived at the rest without calling it. Never halts the tile.
uint32_t native_pass_idle_supersteps(NativeTile& tile, uint32_t most);

// Runs codelet `index` of the table (codelets/codelets.h) on the vertex state at
// `state_addr`, as one vertex of an Execute would (for tests and cost-model calibration).
// Returns kSync when the codelet returned (the tile stays runnable), kHalted when it
// halted (a bad address: kExitTrap | cause; an index out of range: kExitBadProgram).
NativeStop native_run_codelet(NativeTile& tile, uint32_t index, uint32_t state_addr);

// What tile code throws when the tile halts (after writing EXIT); native_run_* catch it.
// Only code that calls tile code under a NativeTileBinding of its own sees it.
class NativeHalt : public std::runtime_error {
 public:
  explicit NativeHalt(uint32_t code);
  uint32_t code;
};

// Makes `tile` the calling thread's current tile for as long as it lives, so that tile
// code (codelets, tile_ptr) can be called directly; restores the previous one after.
class NativeTileBinding {
 public:
  explicit NativeTileBinding(NativeTile& tile);
  ~NativeTileBinding();
  NativeTileBinding(const NativeTileBinding&) = delete;
  NativeTileBinding& operator=(const NativeTileBinding&) = delete;

 private:
  native_detail::Context context_;
  native_detail::Context* previous_;
};

}  // namespace tessera::fw
