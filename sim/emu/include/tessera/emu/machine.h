// The whole machine in the emulator: the target's tiles, the exchange, the barrier and the
// host port, behind the device contract. ISS mode runs the firmware on each tile's core;
// native mode (firmware built for the host) comes in through the same register blocks.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tessera/arch/targets.h"
#include "tessera/device/device.h"
#include "tessera/emu/tile.h"
#include "tessera/exe/elf.h"
#include "tessera/exe/firmware_layout.h"

namespace tessera::emu {

class ThreadPool;
class NativeTiles;

// Cycles of one superstep, for profiles.
struct SuperstepProfile {
  uint32_t superstep = 0;
  uint32_t kind = 0;                 // 0 exchange/plain barrier, 1 host sync
  uint64_t compute_cycles = 0;       // slowest tile, release to arrival
  uint64_t exchange_cycles = 0;      // modelled exchange and barrier time
  uint64_t exchange_words = 0;
  uint64_t dram_wait_cycles = 0;     // of exchange_cycles: the barrier waiting for device memory
  std::vector<uint32_t> tile_cycles;  // each tile's compute cycles, release to arrival
};

// ISS: each tile's core runs the RISC-V firmware, with the cycle model. Native: the same
// firmware built for the host runs as host code (bit-identical results on the memory the
// executable owns; no cycles).
enum class Mode { kIss, kNative };

struct MachineOptions {
  const arch::Target* target = nullptr;
  Mode mode = Mode::kIss;
  unsigned threads = 1;             // host threads for compute phases
  uint64_t quantum = 1u << 16;      // instructions a tile runs before the scheduler looks again
  // The send-list entries (all tiles' together) from which an exchange runs on the pool: a
  // smaller one runs on the driving thread alone, as the pool's four trips would cost more
  // than they save (LeNet-5 at 2 threads: 0, 1,000 and 4,096 gave 0.270, 0.249 and 0.248 s).
  uint64_t pooled_exchange_entries = 4096;
  // The bytes (all tiles' lists together, each entry counted 64 more) from which a smaller
  // exchange's copies still run on the pool: few entries that move much (ResNet-18's with
  // `--plan host`: 0.0538 -> 0.0497 s an image at 2 threads).
  uint64_t pooled_exchange_bytes = 256 << 10;
  // Native mode: a tile whose next supersteps do nothing (no vertex, no send, no receive)
  // passes them in one turn and is counted arrived at their barriers without a turn
  // (AlexNet's compute sets run on 7 to 256 of `ipu-mk2`'s 1,472 tiles). Off: a turn for
  // every tile in every superstep, as the RISC-V firmware in ISS mode takes (to measure
  // what passing saves; the Errors tests hold native mode to ISS mode's results).
  bool pass_idle_supersteps = true;
  std::FILE* console = stdout;      // where the tiles' CONSOLE output goes
};

class Machine final : public device::Device {
 public:
  explicit Machine(const MachineOptions& options);
  ~Machine() override;

  // Loads the firmware into every tile (cores must be held in reset) and records its
  // layout. Throws exe::ElfError if it lacks a symbol the machine needs or does not fit.
  void load_firmware(const exe::ElfImage& firmware);
  const exe::FirmwareLayout& firmware() const { return layout_; }

  uint32_t tile_count() const { return static_cast<uint32_t>(tiles_.size()); }
  Tile& tile(uint32_t i) { return *tiles_.at(i); }
  const std::vector<SuperstepProfile>& profile() const { return profile_; }
  uint32_t superstep() const { return superstep_; }
  Mode mode() const { return options_.mode; }

  // device::Device
  uint32_t read_reg(uint32_t offset) override;
  void write_reg(uint32_t offset, uint32_t value) override;
  void dma_write(std::span<const device::DmaSegment> segments, std::span<const std::byte> host) override;
  void dma_read(std::span<const device::DmaSegment> segments, std::span<std::byte> host) override;
  void dram_write(uint64_t offset, std::span<const std::byte> data) override;
  void dram_to_tiles(std::span<const device::DmaSegment> segments) override;
  void tiles_to_dram(std::span<const device::DmaSegment> segments) override;
  void dram_read(uint64_t offset, std::span<std::byte> out) override;
  uint32_t wait_event(uint32_t mask, std::chrono::milliseconds timeout) override;
  std::string error_detail() const override { return error_detail_; }

 private:
  struct ExchangeCost {
    uint64_t cycles = 0, words = 0;
  };
  void reset();
  // One scheduling round: every running tile that has not arrived runs up to a quantum.
  void run_round(std::chrono::steady_clock::time_point deadline);
  // Acts on a barrier every tile has reached (or on halts); false if nothing to do yet.
  bool try_resolve();
  // Whether the tile halted in error (a halting trap, an HTIF error, a nonzero exit); if so
  // and `record`, that error is the machine's.
  bool bad_halt(uint32_t tile, bool record);
  void resolve_barrier(uint32_t kind);
  // Applies every started send list after checking them all; sets an error instead if
  // any write would go twice to one address, into a source, or into firmware memory.
  ExchangeCost apply_exchange();
  void release(uint64_t exchange_cycles, uint64_t words, uint32_t kind);
  void check_receive_counts();
  // Records the first error: ERR_* registers, state, event, and a readable account.
  void fail(uint32_t tile, uint32_t cause, uint32_t pc, uint32_t tval, uint32_t detail, std::string text);
  void fail_device(uint32_t tile, uint32_t code, uint32_t detail, std::string text);
  bool tile_halted(uint32_t t) const { return syncs_[t].halted; }
  // `source`: what host_offset indexes (the host buffer, device memory), for the message.
  void check_segment(const device::DmaSegment& s, size_t host_bytes, const char* source) const;
  // Writes the device memory reads started so far into tile memory (at a host sync's
  // barrier, or when every tile has halted); returns the cycle by which they have landed.
  uint64_t land_dram_reads();

  MachineOptions options_;
  const arch::Target& target_;
  std::unique_ptr<SramBlock> sram_;  // the tiles' SRAM
  // The tiles' barrier state, in one array (each tile writes its own): the scans of every
  // superstep (arrivals, exchange lists, release) read it in order, where through the tiles
  // each took a cache miss a tile (AlexNet's 1,472 tiles, 22 supersteps an image).
  std::vector<SyncState> syncs_;
  std::vector<std::unique_ptr<Tile>> tiles_;
  std::unique_ptr<ThreadPool> pool_;
  std::unique_ptr<NativeTiles> native_;  // native mode only
  exe::FirmwareLayout layout_;
  bool firmware_loaded_ = false;

  uint32_t state_ = device::kStateReset;
  uint32_t events_ = 0, event_mask_ = 0, break_superstep_ = 0;
  uint32_t superstep_ = 0;
  uint64_t superstep_start_cycle_ = 0;
  uint32_t err_[6] = {};  // tile, superstep, cause, pc, tval, detail
  std::string error_detail_;
  std::vector<SuperstepProfile> profile_;
  // Device memory: grown as written, up to the target's device_memory_mib; kept by reset.
  std::vector<std::byte> dram_;
  std::vector<device::DmaSegment> dram_pending_;  // started reads, landing at the next host sync
  uint64_t dram_new_bytes_ = 0;    // of those, started in the host sync being served
  uint64_t dram_ready_cycle_ = 0;  // when the started reads have all landed (cycle model)
  uint64_t dram_wait_until_ = 0;   // the barrier being resolved waits for device memory until then
};

}  // namespace tessera::emu
