// A compiled Tessera program in memory: what the compiler produces, the executable file
// (.tsx, FlatBuffers, arch/executable.fbs) stores, and the host runtime loads onto a
// device. Knows nothing of devices or of the compiler's internals.
//
// Everything a tile needs is in `segments` (sparse memory images: tables, programs, vertex
// state, constant tensors), written while the cores are held in reset after the firmware.
// Named programs share one set of tensors; running one means pointing every tile's header
// at that program's copy of the control program (Program::tile_program).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::exe {

inline constexpr uint32_t kFormatVersion = 5;  // 2: live ranges, programs' steps; 3: device memory; 4: its zeros; 5: strided device runs

enum class DType : uint8_t { kF32 = 0, kI32 = 1, kU32 = 2, kU8 = 3 };
uint32_t dtype_bytes(DType t);
const char* dtype_name(DType t);

// One contiguous run of a tensor (or stream) on one tile: elements [offset, offset + count)
// of the flattened tensor live at tile address `addr`.
struct Interval {
  uint32_t tile = 0;
  uint32_t addr = 0;
  uint32_t offset = 0;  // in elements
  uint32_t count = 0;   // in elements
  bool operator==(const Interval&) const = default;
};

// The steps during which an interval's bytes are in use, in the memory planner's numbering:
// the Execute, Exchange and HostSync instructions of all programs (and each If, for its
// condition's broadcast) numbered in program order, then word order, a Repeat's body once.
// Intervals on one tile whose addresses overlap have disjoint live ranges.
struct LiveRange {
  uint32_t first = 0;
  uint32_t last = 0xFFFFFFFFu;  // kWholeRun: live for the whole run
  static constexpr uint32_t kWholeRun = 0xFFFFFFFFu;
  bool operator==(const LiveRange&) const = default;
};

struct Tensor {
  std::string name;
  DType dtype = DType::kF32;
  std::vector<uint32_t> shape;
  std::vector<Interval> intervals;  // cover the tensor exactly once, in offset order
  bool persistent = false;          // weights and other state kept between runs
  std::vector<LiveRange> live;      // one per interval; empty: each live for the whole run
  bool operator==(const Tensor&) const = default;
};

// kDeviceMemoryToDevice: the data comes from the device's own DRAM (Executable::device_memory,
// loaded once), not from the host; it lands by the next host sync (docs/weight-streaming.md).
// kDeviceToDeviceMemory: the tiles' data goes back into that DRAM, at the host sync (weights
// and velocities a training step updated).
enum class StreamDirection : uint8_t {
  kHostToDevice = 0,
  kDeviceToHost = 1,
  kDeviceMemoryToDevice = 2,
  kDeviceToDeviceMemory = 3
};

const char* direction_name(StreamDirection d);  // "host->device", ...

// A host stream: the data of one HostSync, moved by one scatter/gather DMA.
struct Stream {
  std::string name;
  uint32_t index = 0;  // the HostSync operand in the control program
  StreamDirection direction = StreamDirection::kHostToDevice;
  DType dtype = DType::kF32;
  std::vector<uint32_t> shape;      // of one transfer
  std::vector<Interval> intervals;  // where each element goes on the device
  uint64_t source_offset = 0;       // in device memory: byte offset of element 0 (image, then zeros)
  bool operator==(const Stream&) const = default;
  bool from_device_memory() const { return direction == StreamDirection::kDeviceMemoryToDevice; }
  bool to_device_memory() const { return direction == StreamDirection::kDeviceToDeviceMemory; }
  // Its data stays on the device (either direction): no host buffer is connected to it.
  bool in_device_memory() const { return from_device_memory() || to_device_memory(); }
};

// Bytes of one transfer of `s` (its shape's elements times its dtype's size).
uint64_t transfer_bytes(const Stream& s);

struct Program {
  std::string name;
  uint32_t words = 0;                   // length of the control program
  std::vector<uint32_t> tile_program;   // per tile: tile address of its copy
  std::vector<uint32_t> streams;        // indices into Executable::streams, in HostSync order
  uint32_t first_step = 0, steps = 0;   // its steps in the planner's numbering (LiveRange)
  bool operator==(const Program&) const = default;
};

// A run of bytes to write into one tile's SRAM at load.
struct Segment {
  uint32_t tile = 0;
  uint32_t addr = 0;
  std::vector<uint8_t> bytes;  // a multiple of 4
  bool operator==(const Segment&) const = default;
};

// A parameter kept in device memory (training's streamed weights, docs/weight-streaming.md):
// `repeat` rows of `count` elements lie contiguously from byte `offset` there, row i being
// elements [logical + i * stride, + count) of the parameter (one block of a matrix). The
// runs cover the parameter's elements exactly once; the host reads it back after a run.
struct DeviceRun {
  uint64_t offset = 0;
  uint32_t logical = 0, count = 0;
  uint32_t repeat = 1, stride = 0;
  uint64_t elements() const { return uint64_t{count} * repeat; }
  bool operator==(const DeviceRun&) const = default;
};
struct DeviceParameter {
  std::string name;
  DType dtype = DType::kF32;
  std::vector<uint32_t> shape;
  std::vector<DeviceRun> runs;
  bool operator==(const DeviceParameter&) const = default;
};

// Where a vertex came from, for profiles and pictures (the debug map).
struct VertexOrigin {
  uint32_t tile = 0;
  uint32_t compute_set = 0;
  uint32_t op = 0;     // index into op_names
  uint32_t layer = 0;  // index into layer_names
  bool operator==(const VertexOrigin&) const = default;
};

// What the compiler planned per tile, by category, for `tessera info`.
struct TileMemory {
  uint32_t code = 0, stack = 0, control = 0, vertex_state = 0, send_lists = 0, landing = 0, tensors = 0;
  bool operator==(const TileMemory&) const = default;
};

struct Executable {
  std::string target;            // arch::Target::name
  uint32_t target_hash = 0;      // arch::Target::hash
  uint32_t arch_hash = 0;        // arch::kArchHash
  uint32_t tiles = 0;
  uint32_t header_addr = 0;      // tessera_tile_header in the firmware
  std::vector<uint8_t> firmware; // the firmware ELF, once
  uint32_t firmware_hash = 0;    // FNV-1a of `firmware`
  std::vector<Segment> segments;
  std::vector<Tensor> tensors;
  std::vector<Stream> streams;
  std::vector<Program> programs;
  std::vector<std::string> op_names, layer_names;
  std::vector<VertexOrigin> vertices;
  std::vector<TileMemory> memory;  // one per tile
  uint32_t supersteps = 0;         // static estimate per run of the first program
  uint64_t exchange_bytes = 0;
  // The device's DRAM image from address 0 (remote buffers: weights too big for the tiles),
  // then `device_memory_zeros` bytes of zeros (velocities: not stored), written once at load;
  // streams kDeviceMemoryToDevice read it.
  std::vector<uint8_t> device_memory;
  uint64_t device_memory_zeros = 0;
  uint64_t device_memory_bytes() const { return device_memory.size() + device_memory_zeros; }
  std::vector<DeviceParameter> device_parameters;
  bool operator==(const Executable&) const = default;

  const Tensor* find_tensor(const std::string& name) const;
  const Program* find_program(const std::string& name) const;
  const Stream* find_stream(const std::string& name) const;
  const DeviceParameter* find_device_parameter(const std::string& name) const;
};

// What one .tsx file holds of device memory (FlatBuffers offsets are 32-bit: the whole file
// stays under 2 GiB, and the writer keeps segments, firmware and device memory under 1 GiB).
inline constexpr uint64_t kMaxDeviceMemoryBytes = uint64_t{1} << 30;

// 32-bit FNV-1a, the firmware's hash. Chainable: pass the previous result as `h` to hash
// several pieces as one.
uint32_t fnv1a(const uint8_t* data, size_t size, uint32_t h = 2166136261u);

// The .tsx section and file checksum (format 5; docs/executable.md, "Checksums"): four
// 64-bit lanes, each `rotl(lane + word * odd, 31) * odd` over every fourth 8-byte word (the
// lanes run side by side, so it reads several bytes a cycle where FNV-1a reads one every
// few), the tail bytes one at a time into the last lane, the lanes and the length folded
// and mixed to 32 bits. Every step is a bijection of the lane and of the word, so a change
// in one word always changes the 64-bit state. Chainable like fnv1a.
uint32_t checksum(const uint8_t* data, size_t size, uint32_t h = 2166136261u);

}  // namespace tessera::exe
