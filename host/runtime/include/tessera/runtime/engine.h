// The host runtime's Engine, in the manner of Poplar's: it loads an executable onto a device,
// connects host buffers (or callbacks) to the executable's streams, runs its programs by name,
// reads and writes its tensors, and keeps a per-run report (with per-superstep cycles when
// the device can give them). It talks to the device only through the device contract
// (tessera/device/device.h), so the same code drives the emulator, the RTL and a card.
//
// docs/runtime.md describes the API and the protocol; docs/device.md the device side.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "tessera/device/device.h"
#include "tessera/exe/executable.h"

namespace tessera::runtime {

// Anything the Engine refuses or the device reports: unknown names, wrong buffer sizes, a
// device that does not fit the executable, a device error or a hang during a run.
class EngineError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One superstep's cost, when the device can measure it (the emulator's ISS mode).
struct SuperstepCycles {
  uint32_t superstep = 0;
  uint32_t kind = 0;  // 0 exchange or plain barrier, 1 host sync
  uint64_t compute_cycles = 0;
  uint64_t exchange_cycles = 0;
  uint64_t exchange_words = 0;
  std::vector<uint32_t> tile_cycles;  // each tile's compute cycles (empty if the device has none)
  uint64_t dram_wait_cycles = 0;      // of exchange_cycles: a host sync waiting for device memory reads
};

// What one run() did.
struct RunReport {
  std::string program;
  uint32_t supersteps = 0;  // the device's SUPERSTEP at the end
  uint32_t host_syncs = 0;
  uint64_t host_bytes = 0;           // moved between the host and the tiles, both ways
  uint64_t device_memory_bytes = 0;  // moved from device memory to the tiles (streamed weights)
  double wall_seconds = 0;
  bool ok = false;              // false: the run ended in an error or a hang
  std::string error;            // the EngineError's text when !ok
  std::vector<SuperstepCycles> profile;  // empty when the device gives no profile
};

struct EngineOptions {
  // Reads the device's per-superstep profile of the last run (registry::profile_source for
  // the emulator); unset: no profile. Kept as a function so that the runtime does not
  // depend on any backend.
  std::function<std::vector<SuperstepCycles>()> profile_source;
  // Progress of long work (loading, supersteps), one line each, for a CLI's stderr.
  std::function<void(const std::string&)> progress;
  // How often run() reports progress while the device computes.
  std::chrono::milliseconds progress_interval{1000};
};

class Engine {
 public:
  // Called once per transfer with that transfer's bytes: fill them (host to device) or
  // consume them (device to host).
  using StreamCallback = std::function<void(std::span<std::byte>)>;

  // Keeps references to both: they must outlive the Engine.
  Engine(device::Device& device, const exe::Executable& exe, EngineOptions options = {});

  // Checks the device (ID, TILE_COUNT, TARGET_HASH) against the executable before writing
  // anything, holds the cores in reset, and writes the firmware's loadable segments (bss
  // zero-filled) and every executable segment into the tiles: one scatter/gather DMA each.
  void load();
  bool loaded() const { return loaded_; }

  // A host buffer for stream `name`: a whole number of transfers (the stream's shape
  // product of elements each). Transfer i of a run uses slice i modulo the number of slices
  // (one slice: every transfer uses the whole buffer). The buffer must outlive the runs.
  template <typename T>
  void connect_stream(const std::string& name, std::span<T> buffer) {
    static_assert(std::is_trivially_copyable_v<T>, "stream buffers hold plain data");
    connect_bytes(name, std::as_writable_bytes(buffer), sizeof(T));
  }
  void connect_stream(const std::string& name, StreamCallback callback);
  void disconnect_stream(const std::string& name);

  // Runs program `name` (the executable's first program if empty) to its end, serving its
  // host syncs in the program's stream order. `timeout`: how long the device may go without
  // reaching a host sync or the end before it counts as hung. Throws EngineError with the
  // device's first error, or naming the tiles that did not arrive. The device stays loaded
  // (SRAM is kept), so run() can be called again, with this or another program.
  void run(const std::string& name = {}, std::chrono::milliseconds timeout = std::chrono::seconds(60));

  // A tensor's bytes (dtype_bytes * elements, flattened in offset order), and back. Writes
  // only between runs. read_tensor also reads a device parameter (a weight training keeps in
  // device memory, exe::DeviceParameter) from there, in its logical order.
  std::vector<std::byte> read_tensor(const std::string& name);
  void write_tensor(const std::string& name, std::span<const std::byte> data);
  template <typename T>
  std::vector<T> read_tensor_as(const std::string& name) {
    const std::vector<std::byte> b = read_tensor(name);
    if (b.size() % sizeof(T)) throw EngineError("read_tensor('" + name + "'): size is not a whole number of elements");
    std::vector<T> out(b.size() / sizeof(T));
    std::memcpy(out.data(), b.data(), b.size());
    return out;
  }
  template <typename T>
  void write_tensor(const std::string& name, std::span<const T> data) {
    write_tensor(name, std::as_bytes(data));
  }

  // Every run so far, the last one last; and all of them as JSON (docs/runtime.md).
  const std::vector<RunReport>& reports() const { return reports_; }
  std::string report_json() const;
  void write_report_json(const std::filesystem::path& path) const;

  const exe::Executable& executable() const { return exe_; }

 private:
  struct Connection {
    std::span<std::byte> buffer;  // when no callback
    StreamCallback callback;
    uint64_t transfers = 0;       // made in the current run
  };
  void connect_bytes(const std::string& name, std::span<std::byte> buffer, size_t element_bytes);
  const exe::Stream& stream(const std::string& name, const char* what) const;
  const exe::Tensor& tensor(const std::string& name, const char* what) const;
  void check_device();
  void point_headers_at(const exe::Program& p);
  void serve_host_sync(const exe::Program& p, RunReport& r);
  void run_loop(const exe::Program& p, std::chrono::milliseconds timeout, RunReport& r);
  std::string describe_error();
  std::string describe_not_arrived();

  device::Device& dev_;
  const exe::Executable& exe_;
  EngineOptions options_;
  bool loaded_ = false;
  bool running_ = false;
  std::map<std::string, Connection> connections_;
  std::vector<RunReport> reports_;
};

// Segments of tile memory for `intervals` of elements of `element_bytes` each, the host
// buffer laid out in element-offset order (offset 0 at host byte `base`). Throws EngineError
// naming `what` if an interval is not whole words.
std::vector<device::DmaSegment> interval_segments(const std::vector<exe::Interval>& intervals, uint32_t element_bytes,
                                                  const std::string& what, uint64_t base = 0);

}  // namespace tessera::runtime
