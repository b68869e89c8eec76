// The device contract: the one interface every backend implements (the emulator, the
// Verilated RTL, a remote device server, an Alveo card through XRT). The host runtime talks
// to hardware only through it, so every simulator run also tests the driver.
//
// Four things: 32-bit device registers (arch/device_regs.toml), scatter/gather DMA between a
// host buffer and tile memory, waiting for an event with a timeout, and reset (a CONTROL
// register write). docs/device.md describes the protocol a run follows.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include "tessera/arch/device_regs.h"

namespace tessera::device {

// One contiguous run of tile memory and where it sits in the host buffer.
struct DmaSegment {
  uint32_t tile = 0;
  uint32_t addr = 0;         // tile address, word aligned
  uint32_t bytes = 0;        // a multiple of 4
  uint64_t host_offset = 0;  // into the host buffer
};

// Event bits, as in the EVENTS register.
enum Event : uint32_t {
  kEventHostSync = 1u << 0,   // every tile waits in a host sync: move stream data, ring the doorbell
  kEventAllHalted = 1u << 1,  // every tile has finished its program
  kEventError = 1u << 2,      // ERR_* hold the first error
  kEventBreak = 1u << 3,      // SUPERSTEP reached BREAK_SUPERSTEP (debugging, co-simulation)
};

// Device STATE register values.
enum State : uint32_t {
  kStateReset = arch::kDevStateReset,
  kStateRunning = arch::kDevStateRunning,
  kStateHostSync = arch::kDevStateHostSync,
  kStateHalted = arch::kDevStateHalted,
  kStateError = arch::kDevStateError,
};

// CONTROL register bits.
enum Control : uint32_t { kControlReset = 1u << 0, kControlStart = 1u << 1, kControlAbort = 1u << 2 };

// Misuse of the contract (a DMA segment outside SRAM, DMA while tiles run): the device
// itself stays usable.
class DeviceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws DeviceError naming `what` unless bytes [offset, offset + bytes) lie within a device
// memory of `mib` MiB (no wrap-around): the backends' check of dram_write, dram_to_tiles,
// tiles_to_dram and dram_read.
inline void check_device_memory_range(uint32_t mib, uint64_t offset, uint64_t bytes, const std::string& what) {
  const uint64_t size = uint64_t{mib} << 20;
  if (offset > size || bytes > size - offset)
    throw DeviceError(what + ": bytes " + std::to_string(offset) + ".." + std::to_string(offset + bytes) +
                      " outside the device memory (" + std::to_string(mib) + " MiB)");
}

// dram_read's checks, for a backend whose device memory has `written` bytes written so far
// from offset 0: the state, the range, and bytes never written.
inline void check_dram_read(uint64_t written, uint32_t mib, uint32_t state, uint64_t offset, uint64_t bytes) {
  if (state == kStateRunning) throw DeviceError("dram_read: the tiles are running");
  check_device_memory_range(mib, offset, bytes, "dram_read");
  if (offset + bytes > written)
    throw DeviceError("dram_read: bytes " + std::to_string(offset) + ".." + std::to_string(offset + bytes) +
                      " were never written (" + std::to_string(written) + " bytes of device memory written)");
}

// dram_read for a backend that keeps its device memory in host memory (`written`): the
// checks, then the copy.
inline void read_device_memory(std::span<const std::byte> written, uint32_t mib, uint32_t state, uint64_t offset,
                               std::span<std::byte> out) {
  check_dram_read(written.size(), mib, state, offset, out.size());
  std::memcpy(out.data(), written.data() + offset, out.size());
}

// One register access of a batch: a read fills `value`, a write writes it.
struct RegOp {
  enum Kind : uint32_t { kRead = 0, kWrite = 1 };
  Kind kind = kRead;
  uint32_t offset = 0;
  uint32_t value = 0;
  static RegOp read(uint32_t offset) { return {kRead, offset, 0}; }
  static RegOp write(uint32_t offset, uint32_t value) { return {kWrite, offset, value}; }
};

class Device {
 public:
  virtual ~Device() = default;

  // Makes the device a machine of `target` (a name in arch/targets) running `firmware` (the
  // executable's firmware ELF), the cores held in reset. Devices opened from a URI
  // (tessera/registry) are configured here, once or again; a backend built for one target
  // and firmware (emu::Machine, the Verilated machines) is configured when it is built and
  // refuses.
  virtual void configure(std::string_view target, std::span<const std::byte> firmware) {
    (void)firmware;
    throw DeviceError("configure('" + std::string(target) +
                      "'): this device was configured when it was built (open it from a URI to configure it)");
  }

  virtual uint32_t read_reg(uint32_t offset) = 0;
  virtual void write_reg(uint32_t offset, uint32_t value) = 0;

  // Register accesses in order, as one operation: a remote backend makes it one round trip.
  // The first failing access throws; the ones before it have happened.
  virtual void reg_batch(std::span<RegOp> ops) {
    for (RegOp& op : ops) {
      if (op.kind == RegOp::kWrite)
        write_reg(op.offset, op.value);
      else
        op.value = read_reg(op.offset);
    }
  }

  // Host buffer -> tile memory, and back. Allowed while the cores are held in reset or
  // while the device waits in a host sync; words written in a host sync count towards the
  // receiving tiles' RECV_EXPECT.
  virtual void dma_write(std::span<const DmaSegment> segments, std::span<const std::byte> host) = 0;
  virtual void dma_read(std::span<const DmaSegment> segments, std::span<std::byte> host) = 0;

  // The device's own memory (DRAM; docs/weight-streaming.md): data that stays on the device,
  // such as weights too big for the tiles, written once and streamed to the tiles by the
  // program. dram_write: `data` to device memory at `offset`, while the cores are held in
  // reset. dram_to_tiles, in a host sync: each segment's bytes from device memory at its
  // host_offset to its tile; the move starts when the barrier is released and lands by the
  // next host sync (it overlaps the supersteps between, whose tiles must not touch the
  // destinations), and its words do not count towards RECV_EXPECT. A backend without
  // device memory refuses both.
  virtual void dram_write(uint64_t offset, std::span<const std::byte> data) {
    (void)offset, (void)data;
    throw DeviceError("dram_write: this device has no device memory (DRAM) for streamed weights");
  }
  virtual void dram_to_tiles(std::span<const DmaSegment> segments) {
    (void)segments;
    throw DeviceError("dram_to_tiles: this device has no device memory (DRAM) for streamed weights");
  }
  // tiles_to_dram, in a host sync: each segment's bytes from its tile to device memory at
  // its host_offset, taken before the sync's release (the tiles may then reuse the bytes);
  // a read of the same bytes started earlier must have landed (the compiler's programs never
  // overlap them).
  virtual void tiles_to_dram(std::span<const DmaSegment> segments) {
    (void)segments;
    throw DeviceError("tiles_to_dram: this device has no device memory (DRAM) for streamed weights");
  }
  // dram_read: `out.size()` bytes of device memory from `offset` to the host, while the
  // tiles do not run (in reset, halted, or waiting in a host sync): what a training run
  // wrote back there (weights kept in device memory), for the host to save.
  virtual void dram_read(uint64_t offset, std::span<std::byte> out) {
    (void)offset, (void)out;
    throw DeviceError("dram_read: this device has no device memory (DRAM) for streamed weights");
  }

  // Blocks until an event in `mask` is pending (returns the pending events) or `timeout`
  // passes (returns 0). Events stay pending until written back to EVENTS.
  virtual uint32_t wait_event(uint32_t mask, std::chrono::milliseconds timeout) = 0;

  // A human-readable account of the first error (which tiles, addresses, superstep), if the
  // backend can give more than the ERR_* registers; empty otherwise.
  virtual std::string error_detail() const { return {}; }
};

}  // namespace tessera::device
