// Engine::run: point every tile at the program, start, serve host syncs in the program's
// stream order until every tile halts; report the device's first error or a hang.
#include <cstdio>

#include "tessera/arch/control.h"
#include "tessera/arch/device_regs.h"
#include "tessera/runtime/engine.h"

namespace tessera::runtime {

namespace {

using Clock = std::chrono::steady_clock;

std::string hex(uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%08x", v);
  return b;
}

uint64_t elements(const std::vector<uint32_t>& shape) {
  uint64_t n = 1;
  for (uint32_t d : shape) n *= d;
  return n;
}

}  // namespace

std::string Engine::describe_error() {
  using device::RegOp;
  RegOp err[] = {RegOp::read(arch::kDevRegErrTile), RegOp::read(arch::kDevRegErrSuperstep),
                 RegOp::read(arch::kDevRegErrCause), RegOp::read(arch::kDevRegErrDetail),
                 RegOp::read(arch::kDevRegErrPc),   RegOp::read(arch::kDevRegErrTval)};
  dev_.reg_batch(err);  // one round trip to a remote device
  const uint32_t cause = err[2].value;
  std::string s = "device error on tile " + std::to_string(err[0].value) + " in superstep " +
                  std::to_string(err[1].value) + ": ";
  if (cause & arch::kDeviceErrorBit)
    s += std::string(arch::device_error_name(cause & ~arch::kDeviceErrorBit)) + " (ERR_DETAIL " + hex(err[3].value) + ")";
  else
    s += "trap, mcause " + std::to_string(cause) + " at pc " + hex(err[4].value) + " (mtval " + hex(err[5].value) + ")";
  if (std::string d = dev_.error_detail(); !d.empty()) s += ": " + d;
  return s;
}

std::string Engine::describe_not_arrived() {
  std::string missing;
  uint32_t count = 0;
  std::vector<device::RegOp> arrived;  // one batch: a word per 32 tiles
  for (uint32_t w = 0; w < (exe_.tiles + 31) / 32; ++w) arrived.push_back(device::RegOp::read(arch::kDevRegArrivedBase + w * 4));
  dev_.reg_batch(arrived);
  for (uint32_t t = 0; t < exe_.tiles; ++t) {
    if (arrived[t / 32].value >> (t % 32) & 1) continue;
    if (++count <= 16) missing += (missing.empty() ? "" : ", ") + std::to_string(t);
  }
  if (count > 16) missing += " and " + std::to_string(count - 16) + " more";
  if (count == 0) return "every tile arrived but the barrier was not released";
  return (count == 1 ? "tile " : "tiles ") + missing + " did not arrive at the barrier of superstep " +
         std::to_string(dev_.read_reg(arch::kDevRegSuperstep));
}

// Every tile's TileHeader.program and .program_words, in one DMA (cores held in reset).
void Engine::point_headers_at(const exe::Program& p) {
  std::vector<uint32_t> words;
  std::vector<device::DmaSegment> segs;
  const uint32_t at = exe_.header_addr + offsetof(arch::TileHeader, program);
  static_assert(offsetof(arch::TileHeader, program_words) == offsetof(arch::TileHeader, program) + 4);
  for (uint32_t t = 0; t < exe_.tiles; ++t) {
    segs.push_back({t, at, 8, words.size() * 4});
    words.push_back(p.tile_program.at(t));
    words.push_back(p.words);
  }
  dev_.dma_write(segs, std::as_bytes(std::span(words)));
}

// Host sync number `sync` of program `p`: one scatter/gather DMA along its stream.
void Engine::serve_host_sync(const exe::Program& p, RunReport& r) {
  const uint32_t sync = r.host_syncs++;
  if (sync >= p.streams.size())
    throw EngineError("program '" + p.name + "' reached host sync " + std::to_string(sync + 1) + " but lists only " +
                      std::to_string(p.streams.size()) + " stream transfers");
  const exe::Stream& s = exe_.streams.at(p.streams[sync]);
  const uint32_t eb = exe::dtype_bytes(s.dtype);
  const uint64_t bytes = elements(s.shape) * eb;
  const std::string what = "stream '" + s.name + "'";
  auto segs = interval_segments(s.intervals, eb, what);
  if (s.in_device_memory()) {  // to or from the device's DRAM: nothing crosses to the host
    for (device::DmaSegment& g : segs) g.host_offset += s.source_offset;
    try {
      if (s.from_device_memory())
        dev_.dram_to_tiles(segs);
      else
        dev_.tiles_to_dram(segs);
      r.device_memory_bytes += bytes;
    } catch (const device::DeviceError& e) {
      throw EngineError("host sync " + std::to_string(sync) + " (" + what + "): " + e.what());
    }
    return;
  }
  Connection& c = connections_.at(s.name);  // run() checked every stream is connected

  std::vector<std::byte> scratch;  // for callbacks
  std::span<std::byte> data;
  if (c.callback) {
    scratch.resize(bytes);
    data = scratch;
  } else {
    const uint64_t slices = c.buffer.size() / bytes;
    data = c.buffer.subspan((c.transfers % slices) * bytes, bytes);
  }
  ++c.transfers;
  r.host_bytes += bytes;
  try {
    if (s.direction == exe::StreamDirection::kHostToDevice) {
      if (c.callback) c.callback(data);
      dev_.dma_write(segs, data);
    } else {
      dev_.dma_read(segs, data);
      if (c.callback) c.callback(data);
    }
  } catch (const device::DeviceError& e) {
    throw EngineError("host sync " + std::to_string(sync) + " (" + what + "): " + e.what());
  }
}

void Engine::run_loop(const exe::Program& p, std::chrono::milliseconds timeout, RunReport& r) {
  using namespace device;
  dev_.write_reg(arch::kDevRegControl, kControlReset);  // SRAM kept: the executable stays loaded
  point_headers_at(p);
  dev_.write_reg(arch::kDevRegControl, kControlStart);
  const uint32_t mask = kEventHostSync | kEventAllHalted | kEventError;
  auto last_event = Clock::now();
  auto last_progress = last_event;
  for (;;) {
    // Wait in slices, so that long runs show progress; hung = no event within `timeout`.
    const auto left = timeout - std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - last_event);
    const uint32_t ev = dev_.wait_event(mask, std::max(std::chrono::milliseconds(1), std::min(left, options_.progress_interval)));
    if (ev & kEventError) throw EngineError("program '" + p.name + "': " + describe_error());
    if (ev & kEventHostSync) {
      serve_host_sync(p, r);
      // Clear the event and ring the doorbell as one batch (one round trip to a remote device).
      RegOp release[] = {RegOp::write(arch::kDevRegEvents, kEventHostSync), RegOp::write(arch::kDevRegDoorbell, 1)};
      dev_.reg_batch(release);
      last_event = Clock::now();
      continue;
    }
    if (ev & kEventAllHalted) return;
    const auto now = Clock::now();
    if (now - last_event >= timeout) {
      const std::string who = describe_not_arrived();
      dev_.write_reg(arch::kDevRegControl, kControlReset);  // stop the hung tiles; SRAM kept
      throw EngineError("program '" + p.name + "' timed out after " + std::to_string(timeout.count()) +
                        " ms without progress: " + who);
    }
    if (options_.progress && now - last_progress >= options_.progress_interval) {
      options_.progress("program '" + p.name + "': superstep " + std::to_string(dev_.read_reg(arch::kDevRegSuperstep)) +
                        ", " + std::to_string(r.host_syncs) + " host syncs");
      last_progress = now;
    }
  }
}

void Engine::run(const std::string& name, std::chrono::milliseconds timeout) {
  if (exe_.programs.empty()) throw EngineError("run: the executable has no programs");
  const exe::Program* p = name.empty() ? &exe_.programs.front() : exe_.find_program(name);
  if (!p) {
    std::string known;
    for (const exe::Program& q : exe_.programs) known += (known.empty() ? "" : ", ") + q.name;
    throw EngineError("run: no program '" + name + "' (programs: " + known + ")");
  }
  if (!loaded_) throw EngineError("run('" + p->name + "'): the executable is not loaded (call load() first)");
  // Every stream the program uses must be connected before the device is touched.
  for (uint32_t i : p->streams) {
    const std::string& s = exe_.streams.at(i).name;
    if (!exe_.streams[i].in_device_memory() && !connections_.count(s))
      throw EngineError("run('" + p->name + "'): stream '" + s + "' is not connected (connect_stream)");
  }
  for (auto& [n, c] : connections_) c.transfers = 0;

  RunReport r;
  r.program = p->name;
  const auto start = Clock::now();
  running_ = true;
  try {
    try {
      run_loop(*p, timeout, r);
    } catch (const device::DeviceError& e) {
      throw EngineError("program '" + p->name + "': " + e.what());
    }
  } catch (const std::exception& e) {
    running_ = false;
    r.error = e.what();
    r.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
    r.supersteps = dev_.read_reg(arch::kDevRegSuperstep);
    reports_.push_back(std::move(r));
    // Tiles left waiting on the host are put back in reset (SRAM kept); a device error stays
    // in the ERR_* registers for inspection until the next run or load resets it.
    if (dev_.read_reg(arch::kDevRegState) == device::kStateHostSync)
      dev_.write_reg(arch::kDevRegControl, device::kControlReset);
    // A callback's own exception (not EngineError) passes through unchanged after the report.
    throw;
  }
  running_ = false;
  r.ok = true;
  r.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  r.supersteps = dev_.read_reg(arch::kDevRegSuperstep);
  if (options_.profile_source) r.profile = options_.profile_source();
  reports_.push_back(std::move(r));
}

}  // namespace tessera::runtime
