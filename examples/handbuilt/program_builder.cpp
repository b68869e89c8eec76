#include "program_builder.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "tessera/arch/device_regs.h"

namespace tessera::handbuilt {

namespace {

template <typename T>
std::vector<uint32_t> as_words(const std::vector<T>& v) {
  std::vector<uint32_t> w(v.size() * sizeof(T) / 4);
  if (!v.empty()) std::memcpy(w.data(), v.data(), w.size() * 4);
  return w;
}

}  // namespace

ProgramBuilder::ProgramBuilder(uint32_t tiles, const Layout& layout) : layout_(layout), tiles_(tiles) {
  for (auto& t : tiles_) t.next = layout.firmware.firmware_end;
}

uint32_t ProgramBuilder::alloc(uint32_t tile, uint32_t words) {
  Tile& t = tiles_.at(tile);
  const uint32_t addr = t.next;
  if (uint64_t{addr} + uint64_t{words} * 4 > layout_.sram_end)
    throw std::runtime_error("tile " + std::to_string(tile) + ": out of SRAM allocating " + std::to_string(words) + " words");
  t.next += words * 4;
  return addr;
}

uint32_t ProgramBuilder::put(uint32_t tile, const std::vector<uint32_t>& words) {
  const uint32_t addr = alloc(tile, static_cast<uint32_t>(words.size()));
  write(tile, addr, words);
  return addr;
}

void ProgramBuilder::write(uint32_t tile, uint32_t addr, const std::vector<uint32_t>& words) {
  tiles_.at(tile).data.emplace_back(addr, words);
}

void ProgramBuilder::add_vertex(uint32_t tile, uint32_t cs, uint32_t codelet, const std::vector<uint32_t>& state) {
  at(tiles_.at(tile).compute_sets, cs).push_back({codelet, put(tile, state)});
}

void ProgramBuilder::add_send(uint32_t tile, uint32_t x, uint32_t src, uint32_t bytes, uint32_t dst, uint32_t dst_addr) {
  at(tiles_.at(tile).exchanges, x).push_back({src, bytes, dst, dst_addr});
}

void ProgramBuilder::add_send(uint32_t tile, uint32_t x, uint32_t src, uint32_t bytes, uint32_t dst, uint32_t dst_addr,
                              const arch::SendRepeat& repeat) {
  auto& list = at(tiles_.at(tile).exchanges, x);
  list.push_back({src, bytes, dst | arch::kSendRepeat, dst_addr});
  list.push_back({repeat.count, repeat.src_stride, repeat.dst_stride, repeat.reserved});  // the slot as it is
}

void ProgramBuilder::expect(uint32_t tile, uint32_t x, uint32_t words) { at(tiles_.at(tile).recv, x) += words; }
void ProgramBuilder::expect_host(uint32_t tile, uint32_t s, uint32_t words) { at(tiles_.at(tile).stream_recv, s) += words; }
void ProgramBuilder::set_condition(uint32_t tile, uint32_t c, uint32_t addr) { at(tiles_.at(tile).conditions, c) = addr; }
void ProgramBuilder::patch_program(uint32_t tile, uint32_t i, uint32_t v) { tiles_.at(tile).program_patches.push_back({i, v}); }

void ProgramBuilder::lay_out() {
  if (laid_out_) return;
  laid_out_ = true;
  // Every tile's tables have the same number of entries.
  size_t n_cs = 0, n_x = 0, n_s = 0, n_c = 0;
  for (const Tile& t : tiles_) {
    n_cs = std::max(n_cs, t.compute_sets.size());
    n_x = std::max({n_x, t.exchanges.size(), t.recv.size()});
    n_s = std::max(n_s, t.stream_recv.size());
    n_c = std::max(n_c, t.conditions.size());
  }
  for (uint32_t id = 0; id < tiles_.size(); ++id) {
    Tile& t = tiles_[id];
    t.compute_sets.resize(n_cs);
    t.exchanges.resize(n_x);
    t.recv.resize(n_x);
    t.stream_recv.resize(n_s);
    t.conditions.resize(n_c);

    std::vector<uint32_t> program = program_;
    for (auto [i, v] : t.program_patches) program.at(i) = v;
    arch::TileHeader h{};
    h.magic = arch::kTileHeaderMagic;
    h.version = arch::kTileHeaderVersion;
    h.program = t.program_addr = put(id, program);
    h.program_words = static_cast<uint32_t>(program.size());
    std::vector<arch::ComputeSetEntry> cs;
    for (const auto& vertices : t.compute_sets)
      cs.push_back({vertices.empty() ? 0 : put(id, as_words(vertices)), static_cast<uint32_t>(vertices.size())});
    h.compute_sets = put(id, as_words(cs));
    h.num_compute_sets = static_cast<uint32_t>(cs.size());
    std::vector<arch::ExchangeEntry> xs;
    for (size_t x = 0; x < n_x; ++x)
      xs.push_back({t.exchanges[x].empty() ? 0 : put(id, as_words(t.exchanges[x])),
                    static_cast<uint32_t>(t.exchanges[x].size()), t.recv[x]});
    h.exchanges = put(id, as_words(xs));
    h.num_exchanges = static_cast<uint32_t>(xs.size());
    std::vector<arch::StreamEntry> ss;
    for (uint32_t w : t.stream_recv) ss.push_back({w});
    h.streams = put(id, as_words(ss));
    h.num_streams = static_cast<uint32_t>(ss.size());
    h.conditions = put(id, t.conditions);
    h.num_conditions = static_cast<uint32_t>(t.conditions.size());
    write(id, layout_.firmware.header, as_words(std::vector<arch::TileHeader>{h}));
  }
}

std::vector<ProgramBuilder::Run> ProgramBuilder::image() {
  lay_out();
  std::vector<Run> runs;
  for (uint32_t id = 0; id < tiles_.size(); ++id)
    for (const auto& [addr, words] : tiles_[id].data)
      if (!words.empty()) runs.push_back({id, addr, words});
  return runs;
}

void ProgramBuilder::load(device::Device& dev) {
  for (const Run& r : image()) write_words(dev, r.tile, r.addr, r.words);
}

std::vector<uint32_t> read_words(device::Device& dev, uint32_t tile, uint32_t addr, uint32_t words) {
  std::vector<uint32_t> out(words);
  const device::DmaSegment seg{tile, addr, words * 4, 0};
  dev.dma_read({&seg, 1}, std::as_writable_bytes(std::span(out)));
  return out;
}

void write_words(device::Device& dev, uint32_t tile, uint32_t addr, const std::vector<uint32_t>& words) {
  if (words.empty()) return;
  const device::DmaSegment seg{tile, addr, static_cast<uint32_t>(words.size() * 4), 0};
  dev.dma_write({&seg, 1}, std::as_bytes(std::span(words)));
}

std::string describe_not_arrived(device::Device& dev) {
  const uint32_t tiles = dev.read_reg(arch::kDevRegTileCount);
  std::string missing;
  uint32_t count = 0;
  for (uint32_t t = 0; t < tiles; ++t) {
    if (dev.read_reg(arch::kDevRegArrivedBase + t / 32 * 4) >> (t % 32) & 1) continue;
    if (++count <= 16) missing += (missing.empty() ? "" : ", ") + std::to_string(t);
  }
  if (count > 16) missing += " and " + std::to_string(count - 16) + " more";
  return (count == 1 ? "tile " : "tiles ") + missing + " did not arrive at the barrier of superstep " +
         std::to_string(dev.read_reg(arch::kDevRegSuperstep));
}

std::string describe_error(device::Device& dev) {
  const uint32_t cause = dev.read_reg(arch::kDevRegErrCause);
  std::string s = "device error on tile " + std::to_string(dev.read_reg(arch::kDevRegErrTile)) + " in superstep " +
                  std::to_string(dev.read_reg(arch::kDevRegErrSuperstep)) + ": ";
  if (cause & arch::kDeviceErrorBit) s += arch::device_error_name(cause & ~arch::kDeviceErrorBit);
  else s += "trap, mcause " + std::to_string(cause);
  if (std::string d = dev.error_detail(); !d.empty()) s += " (" + d + ")";
  return s;
}

}  // namespace tessera::handbuilt
