// The Engine: load, stream connections, tensors. The run loop is in run.cpp, the report in
// report.cpp.
#include "tessera/runtime/engine.h"

#include <algorithm>
#include <cstdio>

#include "tessera/arch/control.h"
#include "tessera/arch/device_regs.h"
#include "tessera/exe/elf.h"

namespace tessera::runtime {

namespace {

std::string hex(uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%08x", v);
  return b;
}

std::string shape_text(exe::DType t, const std::vector<uint32_t>& shape) {
  std::string s = std::string(exe::dtype_name(t)) + "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

uint64_t elements(const std::vector<uint32_t>& shape) {
  uint64_t n = 1;
  for (uint32_t d : shape) n *= d;
  return n;
}

// "a, b, c" of the names in `items`, for "unknown name" errors.
template <typename T>
std::string names_of(const std::vector<T>& items) {
  std::string s;
  for (const T& x : items) s += (s.empty() ? "" : ", ") + x.name;
  return s.empty() ? "none" : s;
}

// Rethrows a device's contract error as an EngineError with what the Engine was doing.
template <typename F>
void device_call(const std::string& what, F&& f) {
  try {
    f();
  } catch (const device::DeviceError& e) {
    throw EngineError(what + ": " + e.what());
  }
}

}  // namespace

std::vector<device::DmaSegment> interval_segments(const std::vector<exe::Interval>& intervals, uint32_t element_bytes,
                                                  const std::string& what, uint64_t base) {
  std::vector<device::DmaSegment> segs;
  segs.reserve(intervals.size());
  for (const exe::Interval& iv : intervals) {
    const uint64_t bytes = uint64_t{iv.count} * element_bytes;
    if ((iv.addr | bytes) & 3)
      throw EngineError(what + ": interval on tile " + std::to_string(iv.tile) + " at " + hex(iv.addr) + " (" +
                        std::to_string(bytes) + " bytes) is not whole words; the device moves words only");
    segs.push_back({iv.tile, iv.addr, static_cast<uint32_t>(bytes), base + uint64_t{iv.offset} * element_bytes});
  }
  return segs;
}

Engine::Engine(device::Device& device, const exe::Executable& exe, EngineOptions options)
    : dev_(device), exe_(exe), options_(std::move(options)) {}

// ---- load ---------------------------------------------------------------------------------

void Engine::check_device() {
  const uint32_t id = dev_.read_reg(arch::kDevRegId);
  if (id != arch::kDeviceIdMagic)
    throw EngineError("the device is not a Tessera device (ID register reads " + hex(id) + ", expected " +
                      hex(arch::kDeviceIdMagic) + ")");
  const uint32_t tiles = dev_.read_reg(arch::kDevRegTileCount);
  const uint32_t hash = dev_.read_reg(arch::kDevRegTargetHash);
  if (tiles != exe_.tiles || hash != exe_.target_hash)
    throw EngineError("the executable is for target '" + exe_.target + "' (" + std::to_string(exe_.tiles) +
                      " tiles, target hash " + hex(exe_.target_hash) + ") but the device has " + std::to_string(tiles) +
                      " tiles and target hash " + hex(hash) + ": compile for the device's target");
}

void Engine::load() {
  check_device();
  // The firmware, once in the host buffer; every tile's segment list points at that copy.
  const exe::ElfImage fw = [&] {
    try {
      return exe::parse_elf(exe_.firmware, exe_.target + " firmware");
    } catch (const exe::ElfError& e) {
      throw EngineError(std::string("load: ") + e.what());
    }
  }();
  if (const uint32_t h = fw.symbol("tessera_tile_header"); h != exe_.header_addr)
    throw EngineError("load: the executable's tile header is at " + hex(exe_.header_addr) +
                      " but its firmware's tessera_tile_header is at " + hex(h));
  std::vector<std::byte> fw_bytes;
  std::vector<device::DmaSegment> fw_segs;
  for (const exe::ElfSegment& s : fw.segments) {
    const uint32_t bytes = (s.mem_bytes + 3) & ~3u;  // bss zero-filled, whole words
    if (bytes == 0) continue;
    const uint64_t at = fw_bytes.size();
    fw_bytes.resize(at + bytes);  // zeroed
    std::memcpy(fw_bytes.data() + at, s.data.data(), std::min<size_t>(s.data.size(), bytes));
    for (uint32_t t = 0; t < exe_.tiles; ++t) fw_segs.push_back({t, s.addr, bytes, at});
  }
  uint64_t exe_total = 0;
  for (const exe::Segment& s : exe_.segments) exe_total += s.bytes.size();
  if (options_.progress)
    options_.progress("loading " + std::to_string(exe_.tiles) + " tiles: firmware " + std::to_string(fw_bytes.size()) +
                      " bytes per tile, executable " + std::to_string(exe_total) + " bytes in " +
                      std::to_string(exe_.segments.size()) + " segments" +
                      (exe_.device_memory_bytes() == 0
                           ? std::string()
                           : ", device memory " + std::to_string(exe_.device_memory.size()) + " bytes and " +
                                 std::to_string(exe_.device_memory_zeros) + " of zeros"));
  loaded_ = false;
  device_call("load", [&] {
    dev_.write_reg(arch::kDevRegControl, device::kControlReset);
    dev_.dma_write(fw_segs, fw_bytes);
    // The executable's segments, concatenated a batch of about 16 MB at a time into one
    // buffer (hundreds of MB at once would be as much fresh memory again, to copy once);
    // exe::verify placed every segment in the target's SRAM, which check_device matched.
    constexpr size_t kBatch = size_t{16} << 20;
    std::vector<std::byte> bytes;
    bytes.reserve(std::min<uint64_t>(exe_total, kBatch));
    std::vector<device::DmaSegment> segs;
    for (size_t i = 0; i < exe_.segments.size();) {
      bytes.clear();
      segs.clear();
      for (; i < exe_.segments.size() && (segs.empty() || bytes.size() + exe_.segments[i].bytes.size() <= kBatch); ++i) {
        const exe::Segment& s = exe_.segments[i];
        segs.push_back({s.tile, s.addr, static_cast<uint32_t>(s.bytes.size()), bytes.size()});
        const auto* p = reinterpret_cast<const std::byte*>(s.bytes.data());
        bytes.insert(bytes.end(), p, p + s.bytes.size());
      }
      dev_.dma_write(segs, bytes);
    }
    // Device memory (weights streamed to the tiles from the device's DRAM), once: runs
    // never send it again.
    for (size_t at = 0; at < exe_.device_memory.size(); at += kBatch) {
      const size_t n = std::min(kBatch, exe_.device_memory.size() - at);
      dev_.dram_write(at, std::as_bytes(std::span(exe_.device_memory).subspan(at, n)));
    }
    // Then its zeros (velocities): the device's memory may hold an earlier run's.
    if (exe_.device_memory_zeros) {
      const std::vector<std::byte> zeros(std::min<uint64_t>(kBatch, exe_.device_memory_zeros));
      for (uint64_t at = 0; at < exe_.device_memory_zeros; at += kBatch) {
        const size_t n = std::min<uint64_t>(kBatch, exe_.device_memory_zeros - at);
        dev_.dram_write(exe_.device_memory.size() + at, std::span(zeros).first(n));
      }
    }
  });
  loaded_ = true;
}

// ---- streams ------------------------------------------------------------------------------

const exe::Stream& Engine::stream(const std::string& name, const char* what) const {
  const exe::Stream* s = exe_.find_stream(name);
  if (!s) throw EngineError(std::string(what) + ": no stream '" + name + "' (streams: " + names_of(exe_.streams) + ")");
  return *s;
}

const exe::Tensor& Engine::tensor(const std::string& name, const char* what) const {
  const exe::Tensor* t = exe_.find_tensor(name);
  if (!t) throw EngineError(std::string(what) + ": no tensor '" + name + "' (tensors: " + names_of(exe_.tensors) + ")");
  return *t;
}

void Engine::connect_bytes(const std::string& name, std::span<std::byte> buffer, size_t element_bytes) {
  const exe::Stream& s = stream(name, "connect_stream");
  const uint64_t per_transfer = elements(s.shape) * exe::dtype_bytes(s.dtype);
  if (buffer.empty() || per_transfer == 0 || buffer.size() % per_transfer)
    throw EngineError("connect_stream: stream '" + name + "' is " + shape_text(s.dtype, s.shape) + " (" +
                      std::to_string(elements(s.shape)) + " elements, " + std::to_string(per_transfer) +
                      " bytes per transfer) but the buffer has " + std::to_string(buffer.size() / element_bytes) +
                      " elements of " + std::to_string(element_bytes) + " bytes (" + std::to_string(buffer.size()) +
                      " bytes), not a whole number of transfers");
  connections_[name] = Connection{buffer, {}, 0};
}

void Engine::connect_stream(const std::string& name, StreamCallback callback) {
  stream(name, "connect_stream");
  if (!callback) throw EngineError("connect_stream: stream '" + name + "': empty callback");
  connections_[name] = Connection{{}, std::move(callback), 0};
}

void Engine::disconnect_stream(const std::string& name) {
  stream(name, "disconnect_stream");
  connections_.erase(name);
}

// ---- tensors ------------------------------------------------------------------------------

std::vector<std::byte> Engine::read_tensor(const std::string& name) {
  if (const exe::DeviceParameter* p = exe_.find_tensor(name) ? nullptr : exe_.find_device_parameter(name)) {
    if (!loaded_) throw EngineError("read_tensor('" + name + "'): the executable is not loaded (call load() first)");
    const uint64_t eb = exe::dtype_bytes(p->dtype);
    // The span of device memory its runs lie in, in one read (a remote device pipelines it),
    // then each run to its place.
    uint64_t lo = UINT64_MAX, hi = 0;
    for (const exe::DeviceRun& r : p->runs) lo = std::min(lo, r.offset), hi = std::max(hi, r.offset + r.elements() * eb);
    std::vector<std::byte> span(hi > lo ? hi - lo : 0), out(elements(p->shape) * eb);
    device_call("read_tensor('" + name + "')", [&] { dev_.dram_read(lo, span); });
    for (const exe::DeviceRun& r : p->runs)
      for (uint32_t row = 0; row < r.repeat; ++row)
        std::memcpy(out.data() + (r.logical + uint64_t{row} * r.stride) * eb,
                    span.data() + (r.offset - lo) + uint64_t{row} * r.count * eb, r.count * eb);
    return out;
  }
  const exe::Tensor& t = tensor(name, "read_tensor");
  if (!loaded_) throw EngineError("read_tensor('" + name + "'): the executable is not loaded (call load() first)");
  const uint32_t eb = exe::dtype_bytes(t.dtype);
  std::vector<std::byte> out(elements(t.shape) * eb);
  const auto segs = interval_segments(t.intervals, eb, "tensor '" + name + "'");
  device_call("read_tensor('" + name + "')", [&] { dev_.dma_read(segs, out); });
  return out;
}

void Engine::write_tensor(const std::string& name, std::span<const std::byte> data) {
  const exe::Tensor& t = tensor(name, "write_tensor");
  if (!loaded_) throw EngineError("write_tensor('" + name + "'): the executable is not loaded (call load() first)");
  if (running_) throw EngineError("write_tensor('" + name + "'): not while a program runs (only between runs)");
  const uint32_t eb = exe::dtype_bytes(t.dtype);
  const uint64_t want = elements(t.shape) * eb;
  if (data.size() != want)
    throw EngineError("write_tensor('" + name + "'): tensor is " + shape_text(t.dtype, t.shape) + " (" +
                      std::to_string(want) + " bytes), data has " + std::to_string(data.size()) + " bytes");
  const auto segs = interval_segments(t.intervals, eb, "tensor '" + name + "'");
  // DMA is allowed while the cores are held in reset: after a run the device is halted.
  device_call("write_tensor('" + name + "')", [&] {
    dev_.write_reg(arch::kDevRegControl, device::kControlReset);
    dev_.dma_write(segs, data);
  });
}

}  // namespace tessera::runtime
