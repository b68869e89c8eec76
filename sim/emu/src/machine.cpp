// The machine's control: device registers, DMA, and the scheduler that runs tiles until
// they arrive at a barrier, then resolves it (exchange.cpp applies the exchange).
#include "tessera/emu/machine.h"

#include <algorithm>
#include <cstring>

#include "tessera/arch/control.h"
#include "tessera/arch/device_regs.h"
#include "tessera/arch/tile_map.h"
#include "tessera/emu/csr.h"
#include "tessera/emu/disasm.h"
#include "hex.h"
#include "native_tiles.h"
#include "thread_pool.h"

namespace tessera::emu {

using device::DeviceError;

Machine::Machine(const MachineOptions& options)
    : options_(options), target_(*options.target), pool_(std::make_unique<ThreadPool>(std::max(1u, options.threads))) {
  sram_ = std::make_unique<SramBlock>(target_.tiles, target_.sram_bytes);
  syncs_.resize(target_.tiles);  // never resized: each tile holds its element
  tiles_.reserve(target_.tiles);
  for (uint32_t i = 0; i < target_.tiles; ++i) {
    tiles_.push_back(std::make_unique<Tile>(i, target_.tiles, sram_->tile(i), syncs_[i]));
    tiles_.back()->set_console(options_.console);
  }
  if (options_.mode == Mode::kNative) native_ = std::make_unique<NativeTiles>(tiles_, options_.pass_idle_supersteps);
  reset();
}

Machine::~Machine() = default;

// Cores held in reset, device state cleared; SRAM (firmware, tensors, weights) is kept, so
// a program can run again, or another program over the same tensors.
void Machine::reset() {
  // On the pool: a program's start resets every core (1,472 for AlexNet), each its own.
  const uint32_t entry = firmware_loaded_ ? layout_.entry : arch::kSramBase;
  pool_->run(tiles_.size(), [this, entry](size_t t) { tiles_[t]->reset(entry); });
  if (native_ && firmware_loaded_) native_->reset(layout_.header);
  state_ = device::kStateReset;
  events_ = 0;
  break_superstep_ = 0;
  superstep_ = 0;
  superstep_start_cycle_ = 0;
  std::fill(std::begin(err_), std::end(err_), 0);
  error_detail_.clear();
  profile_.clear();
  dram_pending_.clear();
  dram_new_bytes_ = dram_ready_cycle_ = dram_wait_until_ = 0;
}

void Machine::load_firmware(const exe::ElfImage& firmware) {
  if (state_ != device::kStateReset) throw DeviceError("load_firmware: the cores must be held in reset");
  layout_ = exe::firmware_layout(firmware);
  for (auto& t : tiles_) t->load_elf(firmware);
  if (native_) native_->reset(layout_.header);
  firmware_loaded_ = true;
}

uint32_t Machine::read_reg(uint32_t offset) {
  using namespace arch;
  if (offset >= kDevRegArrivedBase && offset < kDeviceRegsBytes) {
    const uint32_t first = (offset - kDevRegArrivedBase) / 4 * 32;
    uint32_t bits = 0;
    for (uint32_t b = 0; b < 32 && first + b < tiles_.size(); ++b)
      if (syncs_[first + b].arrived || tile_halted(first + b)) bits |= 1u << b;
    return bits;
  }
  switch (offset) {
    case kDevRegId: return kDeviceIdMagic;
    case kDevRegVersion: return kDeviceVersion;
    case kDevRegTargetHash: return target_.hash;
    case kDevRegTileCount: return tile_count();
    case kDevRegState: return state_;
    case kDevRegSuperstep: return superstep_;
    case kDevRegEvents: return events_;
    case kDevRegEventMask: return event_mask_;
    case kDevRegErrTile: return err_[0];
    case kDevRegErrSuperstep: return err_[1];
    case kDevRegErrCause: return err_[2];
    case kDevRegErrPc: return err_[3];
    case kDevRegErrTval: return err_[4];
    case kDevRegErrDetail: return err_[5];
    case kDevRegBreakSuperstep: return break_superstep_;
    default: return 0;  // unmapped registers read zero, as on the card
  }
}

void Machine::write_reg(uint32_t offset, uint32_t value) {
  using namespace arch;
  switch (offset) {
    case kDevRegControl:
      if (value & device::kControlReset) reset();
      if (value & device::kControlAbort) {
        if (state_ == device::kStateRunning || state_ == device::kStateHostSync)
          fail_device(0, 0, 0, "aborted by the host at superstep " + std::to_string(superstep_));
      }
      if ((value & device::kControlStart) && state_ == device::kStateReset) {
        if (!firmware_loaded_) throw DeviceError("start: no firmware loaded");
        state_ = device::kStateRunning;
      }
      return;
    case kDevRegEvents: events_ &= ~value; return;
    case kDevRegEventMask: event_mask_ = value; return;
    case kDevRegBreakSuperstep: break_superstep_ = value; return;
    case kDevRegDoorbell:
      if (state_ != device::kStateHostSync) return;  // a stray doorbell is ignored
      check_receive_counts();
      if (state_ == device::kStateHostSync) release(0, 0, 1);
      return;
    default: return;  // read-only and unmapped registers ignore writes
  }
}

void Machine::check_segment(const device::DmaSegment& s, size_t host_bytes, const char* source) const {
  auto bad = [&](const std::string& why) {
    throw DeviceError("DMA segment (tile " + std::to_string(s.tile) + ", " + hex(s.addr) + ", " +
                      std::to_string(s.bytes) + " bytes): " + why);
  };
  if (s.tile >= tiles_.size()) bad("no such tile");
  if ((s.addr | s.bytes) & 3) bad("not word aligned");
  const uint64_t off = uint64_t{s.addr} - arch::kSramBase;
  if (s.addr < arch::kSramBase || off + s.bytes > target_.sram_bytes) bad("outside tile SRAM");
  if (s.host_offset + s.bytes > host_bytes) bad(std::string("runs past the end of the ") + source);
  if (state_ == device::kStateHostSync && s.addr < layout_.firmware_end)
    bad("writes firmware memory during a host sync");
}

void Machine::dma_write(std::span<const device::DmaSegment> segments, std::span<const std::byte> host) {
  if (state_ != device::kStateReset && state_ != device::kStateHostSync)
    throw DeviceError("dma_write: only while the cores are held in reset or wait in a host sync");
  for (const auto& s : segments) check_segment(s, host.size(), "host buffer");  // all or nothing
  for (const auto& s : segments) {
    Tile& t = *tiles_[s.tile];
    std::memcpy(t.sram().data() + (s.addr - arch::kSramBase), host.data() + s.host_offset, s.bytes);
    if (state_ == device::kStateHostSync) t.sync().recv_count += s.bytes / 4;
  }
}

void Machine::dma_read(std::span<const device::DmaSegment> segments, std::span<std::byte> host) {
  if (state_ == device::kStateRunning) throw DeviceError("dma_read: the tiles are running");
  for (const auto& s : segments) {
    if (s.tile >= tiles_.size() || ((s.addr | s.bytes) & 3) || s.addr < arch::kSramBase ||
        uint64_t{s.addr} - arch::kSramBase + s.bytes > target_.sram_bytes || s.host_offset + s.bytes > host.size())
      throw DeviceError("dma_read: segment (tile " + std::to_string(s.tile) + ", " + hex(s.addr) + ", " +
                        std::to_string(s.bytes) + " bytes) is out of range");
  }
  for (const auto& s : segments)
    std::memcpy(host.data() + s.host_offset, sram_->tile(s.tile).data() + (s.addr - arch::kSramBase), s.bytes);
}

void Machine::dram_write(uint64_t offset, std::span<const std::byte> data) {
  if (state_ != device::kStateReset) throw DeviceError("dram_write: only while the cores are held in reset");
  device::check_device_memory_range(target_.device_memory_mib, offset, data.size(), "dram_write");
  if (dram_.size() < offset + data.size()) dram_.resize(offset + data.size());
  std::memcpy(dram_.data() + offset, data.data(), data.size());
}

void Machine::dram_to_tiles(std::span<const device::DmaSegment> segments) {
  if (state_ != device::kStateHostSync) throw DeviceError("dram_to_tiles: only while the tiles wait in a host sync");
  for (const auto& s : segments) check_segment(s, dram_.size(), "device memory written");  // all or nothing
  for (const auto& s : segments) dram_new_bytes_ += s.bytes;
  dram_pending_.insert(dram_pending_.end(), segments.begin(), segments.end());
}

// Taken now (the tiles wait in the sync); in the cycle model the bytes use the host nodes'
// path to device memory as reads do, so a later read waits behind them.
void Machine::tiles_to_dram(std::span<const device::DmaSegment> segments) {
  if (state_ != device::kStateHostSync) throw DeviceError("tiles_to_dram: only while the tiles wait in a host sync");
  for (const auto& s : segments) {
    if (s.tile >= tiles_.size() || ((s.addr | s.bytes | s.host_offset) & 3) || s.addr < arch::kSramBase ||
        uint64_t{s.addr} - arch::kSramBase + s.bytes > target_.sram_bytes)
      throw DeviceError("tiles_to_dram: segment (tile " + std::to_string(s.tile) + ", " + hex(s.addr) + ", " +
                        std::to_string(s.bytes) + " bytes) is out of range");
    device::check_device_memory_range(target_.device_memory_mib, s.host_offset, s.bytes, "tiles_to_dram");
  }
  for (const auto& s : segments) {
    if (dram_.size() < s.host_offset + s.bytes) dram_.resize(s.host_offset + s.bytes);
    std::memcpy(dram_.data() + s.host_offset, sram_->tile(s.tile).data() + (s.addr - arch::kSramBase), s.bytes);
    dram_new_bytes_ += s.bytes;
  }
}

void Machine::dram_read(uint64_t offset, std::span<std::byte> out) {
  device::read_device_memory(dram_, target_.device_memory_mib, state_, offset, out);
}

// Reads still in flight when every tile halts land then, uncharged (the compiler follows each
// read with a host sync, so none is left in a finished program).

uint64_t Machine::land_dram_reads() {
  for (const auto& s : dram_pending_)
    std::memcpy(sram_->tile(s.tile).data() + (s.addr - arch::kSramBase), dram_.data() + s.host_offset, s.bytes);
  dram_pending_.clear();
  return dram_ready_cycle_;
}

uint32_t Machine::wait_event(uint32_t mask, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (events_ & mask) return events_ & mask;
    if (state_ != device::kStateRunning) return 0;  // nothing can change until the host acts
    run_round(deadline);
    // Resolve barriers one at a time, so that a break event stops the run where it is due.
    while (state_ == device::kStateRunning && !(events_ & mask) && try_resolve()) {
    }
    if (!(events_ & mask) && std::chrono::steady_clock::now() >= deadline) return 0;
  }
}

void Machine::run_round(std::chrono::steady_clock::time_point deadline) {
  // Nothing is allocated per round: the list is kept per thread, and each task captures
  // one reference (std::function keeps that inline).
  thread_local std::vector<uint32_t> runnable;
  runnable.clear();
  for (uint32_t t = 0; t < tiles_.size(); ++t) {
    SyncState& s = syncs_[t];
    if (s.arrived || s.halted) continue;
    if (s.idle_barriers) {  // passed in an earlier turn: it arrives as its turn would make it
      --s.idle_barriers;
      s.arrived = true;
      s.kind = 0;
      s.arrival_cycle = superstep_start_cycle_;
      continue;
    }
    runnable.push_back(t);
  }
  struct Round {
    Machine& m;
    const std::vector<uint32_t>& runnable;
    int64_t deadline_ns;
  };
  // A native tile runs to its barrier in one go (it has no instruction budget), or until
  // the host's deadline passes between two control-program ops: a tile that never arrives
  // then gives its thread back, and wait_event times out as in ISS mode.
  const Round r{*this, runnable,
                std::max<int64_t>(1, std::chrono::duration_cast<std::chrono::nanoseconds>(deadline.time_since_epoch()).count())};
  if (native_)
    pool_->run(runnable.size(), [&r](size_t i) {
      // The task this thread most likely runs after the next (each thread takes its range in
      // order): an idle tile's turn is a few cache misses, 1,472 tiles a superstep.
      if (i + 2 < r.runnable.size()) {
        const uint32_t ahead = r.runnable[i + 2];
        r.m.native_->prefetch(ahead);
        __builtin_prefetch(r.m.tiles_[ahead].get());
      }
      Tile& tile = *r.m.tiles_[r.runnable[i]];
      tile.hart().set_cycle(r.m.superstep_start_cycle_);  // release() leaves these to here
      tile.set_superstep(r.m.superstep_);
      r.m.native_->run_until_sync(r.runnable[i], r.deadline_ns);
    });
  else
    pool_->run(runnable.size(), [&r](size_t i) { r.m.tiles_[r.runnable[i]]->hart().run(r.m.options_.quantum); });
}

// Whether tile t halted in a way that is an error (a halting trap, an HTIF error, an exit
// with a trap or another nonzero code); if so, its error recorded when `record`.
bool Machine::bad_halt(uint32_t t, bool record) {
  const Halt& h = tiles_[t]->hart().halt_info();
  const TrapLatch& l = tiles_[t]->hart().trap_latch();
  if (h.kind == Halt::Kind::kTrap) {
    if (record)
      fail(t, h.code, h.pc, h.tval, 0,
           "tile " + std::to_string(t) + " halted on " + cause_name(h.code) + " at pc " + hex(h.pc) + " (mtval " +
               hex(h.tval) + ") in superstep " + std::to_string(l.superstep));
    return true;
  }
  if (h.kind == Halt::Kind::kHtifError) {
    if (record)
      fail_device(t, arch::kDevErrExitError, h.code,
                  "tile " + std::to_string(t) + " wrote an unsupported HTIF command in superstep " +
                      std::to_string(superstep_));
    return true;
  }
  if (h.code & arch::kExitTrap) {
    const uint32_t cause = h.code & ~arch::kExitTrap;
    if (record)
      fail(t, cause, l.pc, l.tval, 0,
           "tile " + std::to_string(t) + " trapped: " + cause_name(cause) + " at pc " + hex(l.pc) + " (mtval " +
               hex(l.tval) + ") in superstep " + std::to_string(l.superstep));
    return true;
  }
  if (h.code != 0) {
    std::string why = "exited with code " + hex(h.code);
    if (h.code == arch::kExitBadHeader) why = "found no valid tile header (magic or version)";
    else if (h.code & arch::kExitBadProgram)
      why = "stopped on an invalid control program at word " + std::to_string(h.code & ~arch::kExitBadProgram);
    if (record)
      fail_device(t, arch::kDevErrExitError, h.code,
                  "tile " + std::to_string(t) + " " + why + " in superstep " + std::to_string(superstep_));
    return true;
  }
  return false;
}

bool Machine::try_resolve() {
  uint32_t running = 0, arrived = 0, halted = 0, first_halted = 0;
  // The error of the first bad halt in time, the lowest index among those of one cycle, as
  // the machine's bad-halt tree takes it. With the cycle model (ISS mode) each hart's cycle
  // counts from the superstep's common start, and a tile still running at an earlier cycle
  // could halt first: the error waits until none is. Native mode has no cycles: the lowest
  // index.
  constexpr uint32_t kNone = UINT32_MAX;
  uint32_t bad = kNone;
  uint64_t bad_cycle = 0, first_running_cycle = UINT64_MAX;
  for (uint32_t t = 0; t < tiles_.size(); ++t) {
    if (tile_halted(t)) {
      if (bad_halt(t, false)) {
        const uint64_t c = native_ ? 0 : tiles_[t]->hart().cycle();
        if (bad == kNone || c < bad_cycle) bad = t, bad_cycle = c;
        continue;
      }
      if (halted++ == 0) first_halted = t;
    } else if (syncs_[t].arrived) {
      ++arrived;
    } else {
      ++running;
      if (!native_) first_running_cycle = std::min(first_running_cycle, tiles_[t]->hart().cycle());
    }
  }
  if (bad != kNone) {
    if (first_running_cycle < bad_cycle) return false;
    bad_halt(bad, true);
    return false;
  }
  if (running) return false;
  if (!arrived) {
    land_dram_reads();
    state_ = device::kStateHalted;
    events_ |= device::kEventAllHalted;
    return false;
  }
  if (halted) {
    fail_device(first_halted, arch::kDevErrHaltedAtBarrier, 0,
                "tile " + std::to_string(first_halted) + " finished its program while " + std::to_string(arrived) +
                    " tiles wait at the barrier of superstep " + std::to_string(superstep_));
    return false;
  }
  const uint32_t kind = syncs_[0].kind;
  for (uint32_t t = 0; t < tiles_.size(); ++t) {
    if (syncs_[t].kind > 1) {
      fail_device(t, arch::kDevErrSyncMismatch, syncs_[t].kind,
                  "tile " + std::to_string(t) + " arrived at the barrier of superstep " + std::to_string(superstep_) +
                      " with kind " + std::to_string(syncs_[t].kind) + " (0 exchange, 1 host sync)");
      return false;
    }
  }
  for (uint32_t t = 1; t < tiles_.size(); ++t) {
    if (syncs_[t].kind != kind) {
      fail_device(t, arch::kDevErrSyncMismatch, syncs_[t].kind,
                  "tiles disagree on the barrier of superstep " + std::to_string(superstep_) + ": tile 0 arrived for " +
                      (kind ? "a host sync" : "an exchange") + ", tile " + std::to_string(t) + " for " +
                      (syncs_[t].kind ? "a host sync" : "an exchange"));
      return false;
    }
  }
  if (kind == 1) {  // host sync: the host moves the data, then rings the doorbell
    dram_wait_until_ = land_dram_reads();  // streams from device memory land by a host sync
    state_ = device::kStateHostSync;
    events_ |= device::kEventHostSync;
    return false;
  }
  resolve_barrier(kind);
  return state_ == device::kStateRunning;
}

void Machine::resolve_barrier(uint32_t kind) {
  const ExchangeCost cost = apply_exchange();
  if (state_ != device::kStateRunning) return;
  check_receive_counts();
  if (state_ != device::kStateRunning) return;
  release(cost.cycles, cost.words, kind);
}

void Machine::check_receive_counts() {
  for (uint32_t t = 0; t < tiles_.size(); ++t) {
    const SyncState& s = syncs_[t];
    if (s.recv_count == s.recv_expect) continue;
    const bool lost = s.recv_count < s.recv_expect;
    fail_device(t, lost ? arch::kDevErrRecvLost : arch::kDevErrRecvDuplicated, s.recv_count,
                "tile " + std::to_string(t) + " expected " + std::to_string(s.recv_expect) + " words at the barrier of superstep " +
                    std::to_string(superstep_) + " but received " + std::to_string(s.recv_count) +
                    (lost ? " (words lost)" : " (words duplicated)"));
    return;
  }
}

void Machine::release(uint64_t exchange_cycles, uint64_t words, uint32_t kind) {
  uint64_t last_arrival = superstep_start_cycle_;
  for (const SyncState& s : syncs_) last_arrival = std::max(last_arrival, s.arrival_cycle);
  // A host sync waits for the device memory reads landing at it.
  const uint64_t dram_wait = kind == 1 && dram_wait_until_ > last_arrival ? dram_wait_until_ - last_arrival : 0;
  exchange_cycles += dram_wait;
  dram_wait_until_ = 0;
  uint32_t levels = 0;
  while ((1u << levels) < tiles_.size()) ++levels;
  const uint64_t sync_cycles = arch::kFabricLatency.sync_base + arch::kFabricLatency.sync_per_level * levels;
  SuperstepProfile p{superstep_, kind, last_arrival - superstep_start_cycle_, exchange_cycles + sync_cycles, words,
                     dram_wait, {}};
  p.tile_cycles.reserve(tiles_.size());
  for (const SyncState& s : syncs_)
    p.tile_cycles.push_back(static_cast<uint32_t>(std::max(s.arrival_cycle, superstep_start_cycle_) - superstep_start_cycle_));
  profile_.push_back(std::move(p));
  superstep_start_cycle_ = last_arrival + exchange_cycles + sync_cycles;
  // Device memory reads started in this host sync: the host nodes carry one word a cycle
  // each, after the memory's latency, one read after another.
  if (dram_new_bytes_) {
    const uint64_t words_per_cycle = std::max<uint32_t>(1, target_.host_nodes);
    dram_ready_cycle_ = std::max(dram_ready_cycle_, superstep_start_cycle_) + arch::kFabricLatency.device_memory_latency +
                        (dram_new_bytes_ / 4 + words_per_cycle - 1) / words_per_cycle;
    dram_new_bytes_ = 0;
  }
  ++superstep_;
  for (SyncState& s : syncs_) {
    s.arrived = false;
    s.xchg_started = false;
    s.recv_expect = 0;
    s.recv_count = 0;
  }
  // The cores' cycle counters and superstep registers. Native tiles take theirs in run_round,
  // on the thread that runs each next (their cores' cycles do not advance): this loop over
  // every tile was the longest part of a barrier after the exchange.
  if (!native_) {
    for (auto& t : tiles_) {
      t->hart().set_cycle(superstep_start_cycle_);
      t->set_superstep(superstep_);
    }
  }
  state_ = device::kStateRunning;
  if (break_superstep_ && superstep_ == break_superstep_) events_ |= device::kEventBreak;
}

void Machine::fail(uint32_t tile, uint32_t cause, uint32_t pc, uint32_t tval, uint32_t detail, std::string text) {
  if (state_ == device::kStateError) return;  // the first error wins
  err_[0] = tile;
  err_[1] = superstep_;
  err_[2] = cause;
  err_[3] = pc;
  err_[4] = tval;
  err_[5] = detail;
  error_detail_ = std::move(text);
  state_ = device::kStateError;
  events_ |= device::kEventError;
}

void Machine::fail_device(uint32_t tile, uint32_t code, uint32_t detail, std::string text) {
  fail(tile, arch::kDeviceErrorBit | code, 0, 0, detail, std::move(text));
}

}  // namespace tessera::emu
