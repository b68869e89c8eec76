// The card driver over the card I/O layer: card_device.h; the movers' formats: tess_movers.h.
#include "tessera/card/card_device.h"

#include <cstring>
#include <map>
#include <thread>
#include <unordered_map>

#include "tess_movers.h"
#include "tessera/arch/device_regs.h"
#include "tessera/device/error_names.h"
#include "tessera/arch/tile_map.h"

namespace tessera::card {

using device::DeviceError;
namespace mv = tess_movers;
static_assert(mv::kSramBase == arch::kSramBase, "hls/movers/tess_movers.h: kSramBase differs from arch/");
static_assert(mv::kFlitAddrLsb == 32 && arch::kFlitAddrBits < 32,
              "the driver reads a record's address (its read request's tag) from its word 1");

namespace {

std::string hex(uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%08x", v);
  return b;
}


void put_desc(std::vector<uint32_t>& d, uint32_t words, uint32_t addr, uint32_t tile, uint32_t kind, uint32_t offset) {
  d.insert(d.end(), {words, addr, tile | kind << mv::kDescKindShift, offset});
}

}  // namespace

uint32_t CardIo::wait_event(uint32_t mask, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const uint32_t ev = read_reg(arch::kDevRegEvents) & mask;
    if (ev) return ev;
    if (std::chrono::steady_clock::now() >= deadline) return 0;
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

CardDevice::CardDevice(std::unique_ptr<CardIo> io, const arch::Target& target, const exe::ElfImage& firmware,
                       const CardOptions& options)
    : io_(std::move(io)), target_(target), options_(options) {
  const std::string who = io_->name();
  const uint32_t id = io_->read_reg(arch::kDevRegId);
  if (id != arch::kDeviceIdMagic)
    throw DeviceError(who + ": the kernel's ID register reads " + hex(id) + ", not " + hex(arch::kDeviceIdMagic) +
                      " (\"TSRA\"): the xclbin holds no Tessera kernel at its register space");
  const uint32_t hash = io_->read_reg(arch::kDevRegTargetHash);
  if (hash != target.hash)
    throw DeviceError(who + ": the kernel was built for another target (TARGET_HASH " + hex(hash) + "; target '" +
                      std::string(target.name) + "' has " + hex(target.hash) + ")");
  const uint32_t tiles = io_->read_reg(arch::kDevRegTileCount);
  if (tiles != target.tiles)
    throw DeviceError(who + ": the kernel has " + std::to_string(tiles) + " tiles, target '" + std::string(target.name) +
                      "' " + std::to_string(target.tiles));
  if (options_.ring_records < target.tiles + 1 || options_.ring_records < 2)
    throw DeviceError(who + ": a ring of " + std::to_string(options_.ring_records) + " records cannot hold a fence per tile");
  layout_ = exe::firmware_layout(firmware);
  if (layout_.entry != arch::kSramBase)
    throw DeviceError(who + ": the kernel boots at " + hex(arch::kSramBase) + "; the firmware's entry is " + hex(layout_.entry));
  io_->write_reg(arch::kDevRegControl, device::kControlReset);
  nodes_.resize(std::max(1u, std::min(io_->host_nodes(), target.host_nodes)));
  for (unsigned h = 0; h < nodes_.size(); ++h) {
    Node& n = nodes_[h];
    n.h2d_status = io_->alloc(64, Use::kH2dStatus, h);
    n.d2h_status = io_->alloc(64, Use::kD2hStatus, h);
    n.ring = io_->alloc(size_t{options_.ring_records} * mv::kRecordBytes, Use::kD2hRing, h);
    ensure(n.desc, 64 * 1024, Use::kH2dDesc, h);
    ensure(n.data, 1 << 20, Use::kH2dData, h);
  }
}

CardDevice::~CardDevice() {
  try {
    land_dram();
  } catch (const std::exception&) {  // the card is being let go: nothing waits for those words
  }
}

void CardDevice::ensure(std::unique_ptr<Buffer>& b, size_t bytes, Use use, unsigned node) {
  if (b && b->size() >= bytes) return;
  size_t n = b ? b->size() : 4096;
  while (n < bytes) n *= 2;
  b.reset();
  b = io_->alloc(n, use, node);
}

uint32_t CardDevice::read_reg(uint32_t offset) { return io_->read_reg(offset); }
// A reset or abort waits for device memory's words first; the doorbell (the release) does not:
// they stream on while the tiles compute.
void CardDevice::write_reg(uint32_t offset, uint32_t value) {
  if (offset == arch::kDevRegControl) land_dram();
  io_->write_reg(offset, value);
}

// Once the tiles reach their next host sync (or stop), device memory's words land before the
// host does anything else: they may read them after the release that follows.
uint32_t CardDevice::wait_event(uint32_t mask, std::chrono::milliseconds timeout) {
  const uint32_t ev = io_->wait_event(mask, timeout);
  if (ev & (device::kEventHostSync | device::kEventAllHalted | device::kEventError)) land_dram();
  return ev;
}

void CardDevice::check_segment(const device::DmaSegment& s, size_t host_bytes, uint32_t state) const {
  auto bad = [&](const std::string& why) {
    throw DeviceError("DMA segment (tile " + std::to_string(s.tile) + ", " + hex(s.addr) + ", " + std::to_string(s.bytes) +
                      " bytes): " + why);
  };
  if (s.tile >= target_.tiles) bad("no such tile");
  if ((s.addr | s.bytes) & 3) bad("not word aligned");
  const uint64_t off = uint64_t{s.addr} - arch::kSramBase;
  if (s.addr < arch::kSramBase || off + s.bytes > target_.sram_bytes) bad("outside tile SRAM");
  if (s.host_offset + s.bytes > host_bytes) bad("runs past the end of the host buffer");
  if (state == device::kStateHostSync && s.addr < layout_.firmware_end) bad("writes firmware memory during a host sync");
}

void CardDevice::check_status(Buffer& status, const std::string& mover) {
  uint32_t st[mv::kStatusWords];
  status.read(0, std::as_writable_bytes(std::span(st)));
  if (st[0] != mv::kOk)
    throw DeviceError(io_->name() + ": " + mover + " stopped: " + mv::status_name(st[0]) + " (status " +
                      std::to_string(st[0]) + (mover.starts_with("tess_h2d") ? ", descriptor " + std::to_string(st[1]) : "") +
                      ")");
}

void CardDevice::transfer(std::vector<Job>& jobs) {
  land_dram();  // its mover is node 0's, and its descriptors stay in node 0's buffer until it is done
  start(jobs);
  for (unsigned h = 0; h < jobs.size(); ++h) {
    if (jobs[h].desc.empty()) continue;
    io_->wait_h2d(h, options_.mover_timeout);
    check_status(*nodes_[h].h2d_status, "tess_h2d of host node " + std::to_string(h));
  }
  for (unsigned h = 0; h < jobs.size(); ++h)
    if (!jobs[h].reads.empty()) collect(h, jobs[h]);
}

void CardDevice::start(std::vector<Job>& jobs) {
  for (const Job& j : jobs)
    if (j.reads.size() > options_.ring_records - 1) throw DeviceError("card driver: more replies than a ring holds");
  for (unsigned h = 0; h < jobs.size(); ++h) {
    Job& j = jobs[h];
    if (j.desc.empty()) continue;
    Node& n = nodes_[h];
    ensure(n.desc, j.desc.size() * 4, Use::kH2dDesc, h);
    n.desc->write(0, std::as_bytes(std::span(j.desc)));
    Buffer* data = j.from;
    if (!data) {
      ensure(n.data, std::max<size_t>(j.data.size(), 64), Use::kH2dData, h);
      if (!j.data.empty()) n.data->write(0, j.data);
      data = n.data.get();
    }
    const uint32_t data_bytes = j.from ? j.from_bytes : static_cast<uint32_t>(j.data.size());
    if (!j.reads.empty())
      io_->start_d2h(h, {n.ring.get(), n.d2h_status.get(), options_.ring_records, n.head, n.tail,
                         static_cast<uint32_t>(j.reads.size())});
    io_->start_h2d(h, {n.desc.get(), data, n.h2d_status.get(), static_cast<uint32_t>(j.desc.size() / 4), data_bytes,
                       target_.tiles + h, target_.tiles, target_.sram_bytes});
  }
}

void CardDevice::put_read(std::vector<uint32_t>& desc, std::vector<Request>& reads, unsigned node, uint32_t words,
                          uint32_t addr, uint32_t tile, std::byte* dst) {
  uint32_t& tag = nodes_[node].next_tag;
  put_desc(desc, words, addr, tile, mv::kKindRead, tag);
  for (uint32_t i = 0; i < words; ++i) {
    reads.push_back({tag, dst + 4 * i});
    tag = (tag + 1) & mv::kTagMask;
  }
}

// The replies of `job`'s reads from host node `node`'s ring, matched by their tags (a read
// reply's address: the node's running count of requests, so replies from an earlier transfer
// match none). Replies that match no request (left by a reset: docs/kernel.md) take a slot
// each; tess_d2h runs again for the ones still missing.
void CardDevice::collect(unsigned node, Job& job) {
  Node& nd = nodes_[node];
  std::unordered_map<uint32_t, std::vector<std::byte*>> want;  // tag -> where, in order asked
  std::unordered_map<uint32_t, size_t> next;
  for (const Request& r : job.reads) want[r.tag].push_back(r.dst);
  uint32_t missing = static_cast<uint32_t>(job.reads.size());
  const std::string who = "tess_d2h of host node " + std::to_string(node);
  for (int launch = 0; missing; ++launch) {
    if (launch) io_->start_d2h(node, {nd.ring.get(), nd.d2h_status.get(), options_.ring_records, nd.head, nd.tail, missing});
    io_->wait_d2h(node, options_.mover_timeout);
    check_status(*nd.d2h_status, who);
    uint32_t st[mv::kStatusWords];
    nd.d2h_status->read(0, std::as_writable_bytes(std::span(st)));
    const uint32_t new_head = st[1], n = st[2];
    std::vector<uint32_t> rec(size_t{n} * 4);
    const uint32_t first = std::min(n, options_.ring_records - nd.head);
    nd.ring->read(size_t{nd.head} * mv::kRecordBytes, std::as_writable_bytes(std::span(rec).first(size_t{first} * 4)));
    if (first < n) nd.ring->read(0, std::as_writable_bytes(std::span(rec).subspan(size_t{first} * 4)));
    nd.head = nd.tail = new_head;  // drained
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t* r = &rec[size_t{i} * 4];
      // The flit (arch/flit.toml): data in word 0, the address (the tag) at the bottom of word 1.
      const uint32_t tag = r[1] & mv::kTagMask;
      auto it = want.find(tag);
      if (it == want.end() || next[it->first] >= it->second.size()) continue;  // stale
      std::memcpy(it->second[next[it->first]++], &r[0], 4);
      --missing;
    }
    if (missing && launch >= 4) throw DeviceError(io_->name() + ": " + std::to_string(missing) + " read replies never came back");
  }
}

void CardDevice::dma_write(std::span<const device::DmaSegment> segments, std::span<const std::byte> host) {
  const uint32_t state = read_reg(arch::kDevRegState);
  if (state != device::kStateReset && state != device::kStateHostSync)
    throw DeviceError("dma_write: only while the cores are held in reset or wait in a host sync");
  for (const auto& s : segments) check_segment(s, host.size(), state);  // all or nothing
  std::vector<Job> jobs(nodes_.size());
  std::map<uint32_t, uint32_t> last;  // tile -> the last address written
  uint64_t bytes = 0;
  for (const auto& s : segments) {
    if (s.bytes == 0) continue;
    Job& j = jobs[node_of(s.tile)];
    const uint32_t off = static_cast<uint32_t>(j.data.size());
    j.data.insert(j.data.end(), host.begin() + static_cast<ptrdiff_t>(s.host_offset),
                  host.begin() + static_cast<ptrdiff_t>(s.host_offset + s.bytes));
    put_desc(j.desc, s.bytes / 4, s.addr, s.tile, mv::kKindWrite, off);
    last[s.tile] = s.addr + s.bytes - 4;
    bytes += s.bytes;
  }
  traffic_.h2d_cycles += transfer_fenced(jobs, last);
  traffic_.h2d_bytes += bytes;
}

// Each tile's words go through one host node, the rows of the mesh split among the nodes in
// bands (host node h sits west of row h: docs/network.md).
unsigned CardDevice::node_of(uint32_t tile) const {
  return static_cast<unsigned>((tile / target_.mesh_cols) * nodes_.size() / target_.mesh_rows);
}

// The fences: a read of each tile's last word, behind its writes through the same node
// (docs/kernel.md, "Delivery").
uint64_t CardDevice::transfer_fenced(std::vector<Job>& jobs, const std::map<uint32_t, uint32_t>& last) {
  std::vector<uint32_t> sink(last.size());
  size_t k = 0;
  for (const auto& [tile, addr] : last) {
    const unsigned node = jobs.size() == 1 ? 0 : node_of(tile);
    Job& j = jobs[node];
    put_read(j.desc, j.reads, node, 1, addr, tile, reinterpret_cast<std::byte*>(&sink[k++]));
  }
  const uint64_t c0 = io_->cycles();
  transfer(jobs);
  return io_->cycles() - c0;
}

// ---- device memory ------------------------------------------------------------------------

void CardDevice::reserve_dram(uint64_t offset, uint64_t bytes, const std::string& what) {
  device::check_device_memory_range(target_.device_memory_mib, offset, bytes, what);
  land_dram();  // a mover still reading the buffer that may move
  const uint64_t end = offset + bytes;
  if (end > UINT32_MAX)
    throw DeviceError(what + ": bytes " + std::to_string(offset) + ".." + std::to_string(end) + " of device memory: " +
                      io_->name() + "'s movers address its first 4 GiB");
  if (!dram_ || dram_->size() < end) {
    size_t n = dram_ ? dram_->size() : 1 << 20;
    while (n < end) n = std::min<size_t>(2 * n, UINT32_MAX);
    std::unique_ptr<Buffer> grown = io_->alloc(n, Use::kH2dData, 0);
    std::vector<std::byte> kept(dram_bytes_);
    if (dram_bytes_) dram_->read(0, kept), grown->write(0, kept);
    dram_ = std::move(grown);
  }
  if (offset > dram_bytes_) {  // the gap reads as zeros, as on the emulator
    const std::vector<std::byte> zeros(offset - dram_bytes_);
    dram_->write(dram_bytes_, zeros);
  }
  dram_bytes_ = std::max(dram_bytes_, end);
}

void CardDevice::dram_write(uint64_t offset, std::span<const std::byte> data) {
  if (read_reg(arch::kDevRegState) != device::kStateReset)
    throw DeviceError("dram_write: only while the cores are held in reset");
  reserve_dram(offset, data.size(), "dram_write");
  dram_->write(offset, data);
}

// Started here and left streaming while the tiles compute after the release (as the
// emulator's land by the next host sync); land_dram waits for them and fences each tile when
// the tiles reach that sync, or before the movers or the kernel's control are used again.
void CardDevice::dram_to_tiles(std::span<const device::DmaSegment> segments) {
  const uint32_t state = read_reg(arch::kDevRegState);
  if (state != device::kStateHostSync) throw DeviceError("dram_to_tiles: only while the tiles wait in a host sync");
  for (const auto& s : segments) check_segment(s, dram_bytes_, state);  // all or nothing
  land_dram();
  std::vector<Job> jobs(1);
  jobs[0].from = dram_.get();
  jobs[0].from_bytes = static_cast<uint32_t>(dram_bytes_);  // at most 4 GiB - 1 (reserve_dram)
  PendingDram p;
  for (const auto& s : segments) {
    if (s.bytes == 0) continue;
    put_desc(jobs[0].desc, s.bytes / 4, s.addr, s.tile, mv::kKindDebugWrite, static_cast<uint32_t>(s.host_offset));
    p.last[s.tile] = s.addr + s.bytes - 4;
    p.bytes += s.bytes;
  }
  if (p.bytes == 0) return;
  p.start = io_->cycles();
  start(jobs);
  pending_dram_ = std::move(p);
}

void CardDevice::land_dram() {
  if (!pending_dram_) return;
  const PendingDram p = std::move(*pending_dram_);
  pending_dram_.reset();
  const uint64_t c0 = io_->cycles();
  io_->wait_h2d(0, options_.mover_timeout);
  check_status(*nodes_[0].h2d_status, "tess_h2d of host node 0 (device memory)");
  std::vector<Job> fence(1);
  transfer_fenced(fence, p.last);
  traffic_.dram_wait_cycles += io_->cycles() - c0;
  traffic_.dram_cycles += io_->cycles() - p.start;
  traffic_.dram_bytes += p.bytes;
}

void CardDevice::tiles_to_dram(std::span<const device::DmaSegment> segments) {
  if (read_reg(arch::kDevRegState) != device::kStateHostSync)
    throw DeviceError("tiles_to_dram: only while the tiles wait in a host sync");
  uint64_t end = 0;
  for (const auto& s : segments) {
    device::check_device_memory_range(target_.device_memory_mib, s.host_offset, s.bytes, "tiles_to_dram");
    end = std::max(end, s.host_offset + s.bytes);
  }
  // Through the host: the tiles read into one host copy of the span, then each segment written.
  uint64_t lo = end;
  for (const auto& s : segments) lo = std::min(lo, s.host_offset);
  if (lo >= end) return;
  std::vector<device::DmaSegment> local(segments.begin(), segments.end());
  for (auto& s : local) s.host_offset -= lo;
  std::vector<std::byte> span(end - lo);
  dma_read(local, span);
  reserve_dram(lo, span.size(), "tiles_to_dram");
  for (const auto& s : local) dram_->write(lo + s.host_offset, std::span(span).subspan(s.host_offset, s.bytes));
}

void CardDevice::dram_read(uint64_t offset, std::span<std::byte> out) {
  device::check_dram_read(dram_bytes_, target_.device_memory_mib, read_reg(arch::kDevRegState), offset, out.size());
  if (!out.empty()) dram_->read(offset, out);
}

void CardDevice::dma_read(std::span<const device::DmaSegment> segments, std::span<std::byte> host) {
  if (read_reg(arch::kDevRegState) == device::kStateRunning) throw DeviceError("dma_read: the tiles are running");
  for (const auto& s : segments) {
    if (s.tile >= target_.tiles || ((s.addr | s.bytes) & 3) || s.addr < arch::kSramBase ||
        uint64_t{s.addr} - arch::kSramBase + s.bytes > target_.sram_bytes || s.host_offset + s.bytes > host.size())
      throw DeviceError("dma_read: segment (tile " + std::to_string(s.tile) + ", " + hex(s.addr) + ", " +
                        std::to_string(s.bytes) + " bytes) is out of range");
  }
  // At most ring_records - 1 words a transfer: one descriptor per piece of a segment.
  const uint32_t cap = options_.ring_records - 1;
  std::vector<uint32_t> desc;
  std::vector<Request> reads;
  const uint64_t c0 = io_->cycles();
  uint64_t bytes = 0;
  auto flush = [&] {
    std::vector<Job> jobs(1);
    jobs[0].desc.swap(desc);
    jobs[0].reads.swap(reads);
    transfer(jobs);
  };
  for (const auto& s : segments) {
    uint32_t done = 0;
    while (done < s.bytes) {
      const uint32_t words = std::min((s.bytes - done) / 4, cap - static_cast<uint32_t>(reads.size()));
      put_read(desc, reads, 0, words, s.addr + done, s.tile, host.data() + s.host_offset + done);
      done += 4 * words;
      bytes += 4ull * words;
      if (reads.size() == cap) flush();
    }
  }
  flush();
  traffic_.d2h_bytes += bytes;
  traffic_.d2h_cycles += io_->cycles() - c0;
}

std::string CardDevice::error_detail() const {
  // Register reads; nothing the device holds changes.
  return device::describe_error_registers(const_cast<CardDevice&>(*this), io_->name());
}

}  // namespace tessera::card
