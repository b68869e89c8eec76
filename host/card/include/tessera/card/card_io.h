// The card I/O layer: what the card driver (card_device.h) needs from an Alveo card, and the
// only code that differs between the card and its simulation. Three things: the kernel's
// register space (an xrt::ip on a card), buffers in card memory (xrt::bo), and launches of
// the data movers tess_h2d / tess_d2h (xrt::kernel runs; hls/movers/tess_movers.h has their
// formats). Two implementations: card-sim (card_sim.h: the Verilated kernel, the movers' C++
// on its streams, a model of card memory) and XRT (xrt_card.h).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace tessera::card {

// What a buffer is for: on a card, the memory bank it must sit in is the one its mover's
// argument is connected to (v++ --connectivity.sp).
enum class Use { kH2dDesc, kH2dData, kH2dStatus, kD2hRing, kD2hStatus };

// A buffer in card memory.
class Buffer {
 public:
  virtual ~Buffer() = default;
  virtual size_t size() const = 0;
  // Host -> card memory (written and synced to the device), and back.
  virtual void write(size_t offset, std::span<const std::byte> src) = 0;
  virtual void read(size_t offset, std::span<std::byte> dst) = 0;
};

// tess_h2d's arguments (its stream is connected at link time, not here).
struct H2dArgs {
  Buffer* desc = nullptr;
  Buffer* data = nullptr;
  Buffer* status = nullptr;
  uint32_t ndesc = 0, data_bytes = 0, src_node = 0, tiles = 0, sram_bytes = 0;
};
// tess_d2h's arguments.
struct D2hArgs {
  Buffer* ring = nullptr;
  Buffer* status = nullptr;
  uint32_t ring_records = 0, head = 0, tail = 0, count = 0;
};

class CardIo {
 public:
  virtual ~CardIo() = default;
  // For messages: "card-sim (small)", "xrt:0 (<the card's name>)".
  virtual std::string name() const = 0;
  // Host nodes whose movers this card has (node 0 .. host_nodes() - 1).
  virtual unsigned host_nodes() const = 0;
  // The kernel's registers (arch/device_regs.toml).
  virtual uint32_t read_reg(uint32_t offset) = 0;
  virtual void write_reg(uint32_t offset, uint32_t value) = 0;
  // A buffer of `bytes` for `use` by host node `node`'s mover.
  virtual std::unique_ptr<Buffer> alloc(size_t bytes, Use use, unsigned node) = 0;
  // Launch a mover of host node `node`, and wait for it to finish (throws
  // device::DeviceError when it does not finish in `timeout`). Both movers of a node may run
  // at once; the driver starts tess_d2h before tess_h2d when it expects replies.
  virtual void start_h2d(unsigned node, const H2dArgs& args) = 0;
  virtual void start_d2h(unsigned node, const D2hArgs& args) = 0;
  virtual void wait_h2d(unsigned node, std::chrono::milliseconds timeout) = 0;
  virtual void wait_d2h(unsigned node, std::chrono::milliseconds timeout) = 0;
  // As device::Device::wait_event. The default polls EVENTS.
  virtual uint32_t wait_event(uint32_t mask, std::chrono::milliseconds timeout);
  // The kernel's clock cycles so far, where the backend counts them (card-sim); 0 otherwise.
  virtual uint64_t cycles() const { return 0; }
};

}  // namespace tessera::card
