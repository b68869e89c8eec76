// The card driver: a device::Device (docs/device.md) over any CardIo (card_io.h). It programs
// the kernel's registers and moves tile memory through the data movers: dma_write stages the
// words and one descriptor per segment in card memory, runs tess_h2d, and fences each tile
// written with a read of its last word (docs/kernel.md, "Delivery"), whose reply comes back
// through tess_d2h's ring; dma_read sends read requests the same way and matches the replies
// by tile and address. Writes are spread over the target's host nodes (each tile's words, and
// its fence, through one node: the mesh keeps their order); reads go through node 0 (the
// machine's read credits are shared by all nodes). The same code runs on card-sim and on a
// card through XRT.
//
// Device memory (streamed weights, docs/weight-streaming.md) is a buffer in card memory, in
// the bank of host node 0's tess_h2d data: dram_to_tiles points that mover at it (no byte
// crosses PCIe) with uncounted writes, which stream on after the sync's release while the
// tiles compute; a fence per tile once they reach the next host sync (land_dram).
// tiles_to_dram reads the tiles to the host and writes the buffer (two crossings; a mover
// that writes replies into card memory would drop them). At most 4 GiB: the descriptors'
// data offsets are 32-bit.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tessera/arch/targets.h"
#include "tessera/card/card_io.h"
#include "tessera/device/device.h"
#include "tessera/emu/machine.h"
#include "tessera/exe/elf.h"
#include "tessera/exe/firmware_layout.h"

namespace tessera::card {

struct CardOptions {
  uint32_t ring_records = 8192;  // tess_d2h's ring (128 KiB): at most ring_records - 1 replies in one launch
  std::chrono::milliseconds mover_timeout{60000};
};

// Bytes and kernel cycles the movers took (cycles where the CardIo counts them: card-sim).
struct CardTraffic {
  uint64_t h2d_bytes = 0, h2d_cycles = 0, d2h_bytes = 0, d2h_cycles = 0;
  // Device memory to the tiles (dram_to_tiles): bytes, cycles from each start until its words
  // had landed, and of those the cycles the host waited in a host sync for them to land.
  uint64_t dram_bytes = 0, dram_cycles = 0, dram_wait_cycles = 0;
};

class CardDevice final : public device::Device {
 public:
  // Checks the kernel's ID, TARGET_HASH and TILE_COUNT against `target`, resets it, and takes
  // the firmware's layout (entry, end) from `firmware` as emu::Machine::load_firmware does;
  // the loader (the Engine) DMAs the image. Throws device::DeviceError naming what differs.
  CardDevice(std::unique_ptr<CardIo> io, const arch::Target& target, const exe::ElfImage& firmware,
             const CardOptions& options = {});
  ~CardDevice() override;

  CardIo& io() { return *io_; }
  const CardTraffic& traffic() const { return traffic_; }

  uint32_t read_reg(uint32_t offset) override;
  void write_reg(uint32_t offset, uint32_t value) override;
  void dma_write(std::span<const device::DmaSegment> segments, std::span<const std::byte> host) override;
  void dma_read(std::span<const device::DmaSegment> segments, std::span<std::byte> host) override;
  void dram_write(uint64_t offset, std::span<const std::byte> data) override;
  void dram_to_tiles(std::span<const device::DmaSegment> segments) override;
  void tiles_to_dram(std::span<const device::DmaSegment> segments) override;
  void dram_read(uint64_t offset, std::span<std::byte> out) override;
  uint32_t wait_event(uint32_t mask, std::chrono::milliseconds timeout) override;
  std::string error_detail() const override;

 private:
  struct Request {  // a read whose reply (the reply's address: `tag`) goes to `dst`
    uint32_t tag;
    std::byte* dst;
  };
  // One host node's share of a transfer: descriptors (their data in `data`) for its tess_h2d,
  // and the read requests among them whose replies its tess_d2h collects.
  struct Job {
    std::vector<uint32_t> desc;
    std::vector<std::byte> data;
    std::vector<Request> reads;
    Buffer* from = nullptr;  // the descriptors' data already in card memory (device memory), not `data`
    uint32_t from_bytes = 0;  // of which the movers may read this many
  };
  // A host node's buffers in card memory and its ring's head and tail (the mover's next
  // record, the first the host has not drained).
  struct Node {
    std::unique_ptr<Buffer> desc, data, h2d_status, ring, d2h_status;
    uint32_t head = 0, tail = 0;
    uint32_t next_tag = 0;  // the next read request's tag (mod 2^kTagBits, tess_movers.h)
  };
  // A read descriptor of `words` words for host node `node`: its tags (the node's next ones),
  // and a Request for each word into `reads` (word i's reply to dst + 4 * i).
  void put_read(std::vector<uint32_t>& desc, std::vector<Request>& reads, unsigned node, uint32_t words,
                uint32_t addr, uint32_t tile, std::byte* dst);
  void check_segment(const device::DmaSegment& s, size_t host_bytes, uint32_t state) const;
  void ensure(std::unique_ptr<Buffer>& b, size_t bytes, Use use, unsigned node);
  // Runs job h on host node h, all nodes at once: each node's tess_d2h (when it expects
  // replies) and tess_h2d are started, then waited for, then the replies collected.
  void transfer(std::vector<Job>& jobs);
  void start(std::vector<Job>& jobs);  // transfer()'s first half: the movers started
  void collect(unsigned node, Job& job);
  void check_status(Buffer& status, const std::string& mover);
  // transfer() of writes with a fence behind them: a read of each tile's last word written
  // (`last`: tile -> address), in the job of its node (`jobs`: one per node, or one for all
  // through node 0). Returns the kernel cycles taken.
  uint64_t transfer_fenced(std::vector<Job>& jobs, const std::map<uint32_t, uint32_t>& last);
  unsigned node_of(uint32_t tile) const;
  // Checks [offset, offset + bytes) against the target's device memory and the movers' 4 GiB,
  // and grows the buffer (keeping what was written, zeros between) to hold it.
  void reserve_dram(uint64_t offset, uint64_t bytes, const std::string& what);
  // Waits for a dram_to_tiles still streaming and fences the tiles it wrote (nothing if none).
  void land_dram();

  std::unique_ptr<CardIo> io_;
  const arch::Target& target_;
  CardOptions options_;
  exe::FirmwareLayout layout_;
  std::vector<Node> nodes_;  // the host nodes whose movers the driver uses
  std::unique_ptr<Buffer> dram_;  // device memory
  uint64_t dram_bytes_ = 0;       // its bytes written from offset 0 (zeros in gaps)
  CardTraffic traffic_;
  // A dram_to_tiles still streaming: the last word it writes on each tile, its bytes, the cycle
  // it started.
  struct PendingDram {
    std::map<uint32_t, uint32_t> last;
    uint64_t bytes = 0, start = 0;
  };
  std::optional<PendingDram> pending_dram_;
};

}  // namespace tessera::card
