// The machine RTL as its kernel (rtl/top/tess_kernel.sv: tess_machine behind AXI4-Lite
// registers and AXI4-Stream host ports), verilated for one target (the model class is
// TESSERA_VLT_MACHINE_MODEL, Vtess_machine_<target>), behind the device contract
// (tessera/device/device.h, docs/device.md): the host runtime drives it exactly as it drives
// the emulator.
//
// The harness is the host side of the kernel, as a driver and its data movers would be:
// read_reg/write_reg are AXI4-Lite transactions on s_axi_control (the registers are RTL:
// rtl/host/tess_axil_regs.sv), dma_write sends write flits as AXI4-Stream beats into host node
// 0 and dma_read read requests (dma_read_nodes: through several host nodes at once) whose
// replies come back on the device-to-host stream, and
// wait_event steps the clock until an event or the timeout. docs/machine-rtl.md and
// docs/kernel.md describe it and what differs from the emulator.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "tessera/arch/targets.h"
#include "tessera/device/device.h"
#include "tessera/emu/machine.h"
#include "tessera/exe/elf.h"
#include "tessera/exe/firmware_layout.h"
#include "tessera/runtime/engine.h"
#include "tessera/vlt/kernel_sim.h"

class VerilatedContext;
class TESSERA_VLT_MACHINE_MODEL;

namespace tessera::vlt {
// Each target's model and harness live in an inline namespace of their own
// (TESSERA_VLT_MACHINE_NS, e.g. machine_tiny), so that one program can link several
// (sim/vlt/devices); code that links one writes tessera::vlt::VltMachine as before.
inline namespace TESSERA_VLT_MACHINE_NS {

struct VltMachineOptions {
  std::vector<std::string> args;  // handed to the Verilated context (+verilator+... plusargs)
  std::FILE* console = stdout;    // the tiles' CONSOLE bytes
  // When set, the host streams are this one's (card-sim's data movers): the harness's own
  // DMA (dma_write, dma_read, poke_word, queue_read) is refused.
  HostStreams* streams = nullptr;
};

// VltMachine::axil_write/axil_read: delays are cycles before AWVALID, WVALID and
// BREADY/RREADY rise; results carry the response (0 = OKAY) and the cycle, counted from the
// call, of each handshake (the first edge is 1).
struct AxilTiming {
  unsigned aw_delay = 0, w_delay = 0, resp_delay = 0;
};
struct AxilWrite {
  uint32_t resp = 0;
  uint64_t aw_at = 0, w_at = 0, b_at = 0;
};
struct AxilRead {
  uint32_t data = 0, resp = 0;
  uint64_t ar_at = 0, r_at = 0;
};

class VltMachine final : public device::Device {
 public:
  // The target the model was built for (TESSERA_VLT_MACHINE_TARGET, `tiny` by default).
  static const arch::Target& target();

  explicit VltMachine(const VltMachineOptions& options = {});
  ~VltMachine() override;
  VltMachine(const VltMachine&) = delete;
  VltMachine& operator=(const VltMachine&) = delete;

  // As emu::Machine::load_firmware: records the layout (entry, firmware end) and writes the
  // ELF's segments (bss zeroed) into every tile through DMA. The cores must be held in reset.
  void load_firmware(const exe::ElfImage& firmware);
  const exe::FirmwareLayout& firmware() const { return layout_; }
  uint32_t tile_count() const;

  // Debug backdoor: writes one word of tile SRAM with an uncounted debug flit (kind 2) from
  // the host node, whatever the state (tests corrupt memory with it between supersteps).
  void poke_word(uint32_t tile, uint32_t addr, uint32_t value);

  uint64_t cycles() const { return cycles_; }
  // Backdoor, for co-simulation (cosim.h): tile `tile`'s SRAM as the model holds it right
  // now, word i at byte address kSramBase + 4i. Reading it moves no clock.
  std::span<const uint32_t> sram_words(uint32_t tile) const;

  // One superstep as the RTL ran it, in harness cycles: `start` is the cycle the cores were
  // started (superstep 0) or the barrier's release pulse before it; `all_arrived` the cycle
  // every tile's arrival was seen by its NI (all arrived_o high, none halted), 0 while not
  // yet; `release` the release pulse that ended it, 0 while not yet. `arrived[t]`: the cycle
  // tile t's NI saw its arrival (its arrived_o bit rose; 0 while not yet). `kind`: 1 when the
  // barrier was a host sync (the register block's STATE was host sync), else 0. `words`: the
  // write flits the tiles' NIs injected towards tiles (the exchange engines' words; read
  // replies go to host nodes and are not counted).
  struct Phase {
    uint64_t start = 0, all_arrived = 0, release = 0;
    std::vector<uint64_t> arrived;
    uint32_t kind = 0;
    uint64_t words = 0;
  };
  const std::vector<Phase>& phases() const { return phases_; }
  // The released supersteps of the last run as the profile the runtime reads
  // (EngineOptions::profile_source, as emu::Machine::profile() gives the emulator's):
  // compute = release (or start) to the last arrival, tile_cycles[t] = to tile t's arrival,
  // exchange = the last arrival to the release, all measured on the RTL. Arrivals are seen
  // when the SYNC store retires, kArrivalPipelineCycles (cosim.h) after the cycle the ISS
  // counts; a host sync's barrier includes the host's DMA and the doorbell.
  std::vector<runtime::SuperstepCycles> superstep_cycles() const;

  // Waveform: dumps every signal of the model into an FST file from now on (needs a model
  // verilated with -DTESSERA_VLT_MACHINE_TRACE=ON; throws DeviceError otherwise). `depth`
  // limits the hierarchy levels (0 = all). The file is complete after trace_close() or the
  // destructor.
  static bool trace_available();
  void trace_fst(const std::string& path, int depth = 0);
  void trace_close();
  // For each barrier released so far: cycles from the moment every tile's arrival was seen
  // by its NI (all arrived_o bits high) to the release pulse.
  const std::vector<uint64_t>& barrier_cycles() const { return barrier_cycles_; }

  // device::Device
  uint32_t read_reg(uint32_t offset) override;
  void write_reg(uint32_t offset, uint32_t value) override;
  void dma_write(std::span<const device::DmaSegment> segments, std::span<const std::byte> host) override;
  void dma_read(std::span<const device::DmaSegment> segments, std::span<std::byte> host) override;
  uint32_t wait_event(uint32_t mask, std::chrono::milliseconds timeout) override;
  std::string error_detail() const override;
  // Device memory (docs/weight-streaming.md) held by the harness, as the card's DDR beside the
  // kernel: dram_write in reset; dram_to_tiles in a host sync sends each word from a host
  // node (tile t's from node t mod host nodes) as an uncounted write (flit kind 2, as the
  // debug write) and returns once they are delivered, so the data lands before the sync's
  // release (the contract allows any time up to the next host sync).
  void dram_write(uint64_t offset, std::span<const std::byte> data) override;
  void dram_to_tiles(std::span<const device::DmaSegment> segments) override;
  // In a host sync: the words read from the tiles by the host nodes (as dma_read) into the
  // harness's device memory.
  void tiles_to_dram(std::span<const device::DmaSegment> segments) override;
  void dram_read(uint64_t offset, std::span<std::byte> out) override;

  // The kernel's AXI4-Lite port driven directly (read_reg/write_reg use these; the protocol
  // tests rtl.machine.axil_* too): AxilTiming, AxilWrite, AxilRead above.
  using AxilTiming = vlt::AxilTiming;
  using AxilWrite = vlt::AxilWrite;
  using AxilRead = vlt::AxilRead;
  AxilWrite axil_write(uint32_t offset, uint32_t value, uint32_t strb = 0xf, AxilTiming timing = {});
  // Reads `offsets` back to back: ARVALID stays high, the next address after each AR handshake.
  std::vector<AxilRead> axil_read(std::span<const uint32_t> offsets, unsigned r_delay = 0);
  // Test hook: AWVALID/AWADDR, WVALID (data 0, all strobes) and BREADY held as given for the
  // next `cycles` edges, whatever the handshakes (the protocol tests break the AXI4-Lite rules
  // with it: the kernel's assertions must stop the model).
  void axil_drive(bool awvalid, uint32_t awaddr, bool wvalid, bool bready, unsigned cycles);
  // The kernel's interrupt output (|(EVENTS & EVENT_MASK)).
  bool interrupt() const;
  // Steps the clock (nothing driven).
  void step(unsigned cycles) {
    for (unsigned i = 0; i < cycles; ++i) tick();
  }

  // The host nodes of the model (the target's host_nodes): nodes T .. T + host_nodes() - 1.
  static uint32_t host_nodes();
  // dma_read with each segment read through a host node of its own (`nodes[i]` for
  // segments[i], 0-based): the read requests of all nodes go out at once, each node's as fast
  // as its stream takes them; returns when every reply is in `host`. Same checks as dma_read.
  void dma_read_nodes(std::span<const device::DmaSegment> segments, std::span<const uint32_t> nodes,
                      std::span<std::byte> host);
  // Test hooks. queue_read sends one read request (tile, byte address) through host node
  // `node` without waiting, whatever the state; the reply's word lands in *dst when it comes
  // back (step() moves the clock). reads_pending() counts the replies not yet back.
  void queue_read(uint32_t node, uint32_t tile, uint32_t addr, uint32_t* dst);
  size_t reads_pending() const { return pending_count_; }
  // TREADY of m_axis_d2h, bit h for host node h (the harness keeps it all ones by default).
  void set_d2h_ready(uint32_t mask);
  // Port contracts the harness watches every cycle (docs/machine-rtl.md, "Checks"):
  //   ni_inject_unstable: a tile NI's injection flit (valid, flit) changed while valid and not ready;
  //   d2h_dropped: m_axis_d2h TVALID fell, or TDATA changed, while TVALID was high and TREADY low;
  //   idle_with_reply: net_idle_o high while some NI held a read reply it had not injected, in
  //   the cycle the count behind net_idle_o describes (the machine's sync_depth cycles ago).
  struct Checks {
    uint64_t ni_inject_unstable = 0, d2h_dropped = 0, idle_with_reply = 0;
  };
  const Checks& checks() const { return checks_; }

 private:
  struct Flit {
    uint32_t kind = 0, dst = 0, addr = 0, data = 0;  // addr: byte address; a read's data: expect_reply's
  };
  // A read request's data: its reply comes to host node `node` with the node's next tag as
  // its address, and its word goes to `dst`.
  uint32_t expect_reply(uint32_t node, std::byte* dst);
  void tick();
  Phase new_phase(uint64_t start) const;  // no arrivals yet, for every tile
  void hard_reset();
  uint32_t state() const;  // the register block's STATE this cycle, read out of the model
  // Ticks until every queued host flit is injected and every expected reply (dma_read's, and
  // dma_write's delivery fences) has come back. Throws DeviceError if that takes implausibly long.
  void drain(const char* what);
  // Each segment's words from `src` (at its host_offset) to its tile as flits of `kind`, from
  // host node 0 or, with `spread`, from node tile mod host nodes; returns once they are
  // delivered (a read of each tile's last word behind them answered). `what` names a failure.
  void write_words(std::span<const device::DmaSegment> segments, std::span<const std::byte> src, uint32_t kind,
                   bool spread, const char* what);
  // `source`: what host_offset indexes ("the host buffer", "the device memory written").
  void check_segment(const device::DmaSegment& s, size_t host_bytes, const char* source = "the host buffer") const;

  VltMachineOptions options_;
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<TESSERA_VLT_MACHINE_MODEL> top_;
  exe::FirmwareLayout layout_;
  bool firmware_loaded_ = false;
  uint64_t cycles_ = 0;
  uint64_t all_arrived_at_ = 0;
  bool all_arrived_ = false;
  std::vector<uint64_t> barrier_cycles_;
  std::vector<Phase> phases_;
  bool last_run_ = false;
  struct Trace;
  std::unique_ptr<Trace> trace_;
  std::vector<std::deque<Flit>> to_send_;  // per host node
  bool sending() const;
  void clear_host_queues();
  Checks checks_;
  std::vector<uint8_t> d2h_stalled_;
  std::vector<uint64_t> d2h_prev_;
  std::vector<uint8_t> ni_stalled_;
  uint64_t reply_hist_ = 0;  // bit k: some NI held a read reply k cycles ago
  std::vector<uint64_t> ni_prev_;
  // dma_read, dma_write's fences: (host node << 32 | tag) -> where each reply goes. A read
  // request names its reply's address, which no host node has: the harness gives each request
  // the node's next tag (mod 2^18) there.
  std::unordered_map<uint64_t, std::deque<std::byte*>> pending_reads_;
  std::vector<uint32_t> next_tag_;  // per host node
  size_t pending_count_ = 0;
  uint64_t progress_ = 0;  // host beats taken and replies back (drain's deadlock watchdog)
  uint32_t fence_word_ = 0;
  std::vector<std::byte> dram_;  // the device memory written so far (dram_write), from offset 0
  // AXI4-Lite handshakes of the last edge (tick()), and the response signals then.
  static constexpr uint32_t kAxilAw = 1, kAxilW = 2, kAxilB = 4, kAxilAr = 8, kAxilR = 16;
  uint32_t axil_fire_ = 0, axil_bresp_ = 0, axil_rresp_ = 0, axil_rdata_ = 0;
};

}  // namespace TESSERA_VLT_MACHINE_NS
}  // namespace tessera::vlt
