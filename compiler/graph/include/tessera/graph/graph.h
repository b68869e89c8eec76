// The vertex graph (Poplar's level), the public Graph API of the compiler.
//
//   graph::Graph g(*arch::find_target("small"));
//   Tensor a = g.add_variable(DType::kF32, {4, 16}, "a");
//   g.map_linearly(a, 16);                                    // 16 elements per tile
//   ComputeSet cs = g.add_compute_set("relu");
//   Vertex v = g.add_vertex(cs, "relu", 0);
//   g.connect(v, "dst", a.slice(0, 16)); g.connect(v, "src", a.slice(0, 16));
//   g.set_field(v, "n", 16);
//   g.add_program("main", Sequence({Execute(cs)}));
//
// Tensors live on tiles as intervals, each contiguous on one tile. A vertex runs one codelet
// on one tile; its fields follow the codelet's signature (firmware/codelets/codelets.h):
// pointer fields take a tensor region that must lie contiguously on the vertex's tile,
// u32/f32 fields take values. Mapping and fields are checked again when compiling
// (validate()), so an error names the tensor, vertex and field.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "tessera/arch/targets.h"
#include "tessera/graph/blocking.h"
#include "tessera/graph/codelets.h"
#include "tessera/graph/program.h"
#include "tessera/graph/tensor.h"
#include "tessera/graph/tile_map.h"

namespace tessera::graph {

struct Vertex { uint32_t id = 0; };

// A run of a variable's elements [begin, end) on one tile.
struct Interval {
  uint32_t tile = 0, begin = 0, end = 0;
  bool operator==(const Interval&) const = default;
};

struct Variable {
  std::string name;
  DType dtype = DType::kF32;
  std::vector<uint32_t> shape;
  uint32_t elements = 0;
  TileMap mapping;                // runs of elements on tiles; elements in none are unmapped
  std::vector<uint32_t> initial;  // words; empty unless set_initial_value was called
  bool hidden = false;            // made by the compiler (e.g. broadcast conditions)
  Blocking blocking;              // how its elements are stored (blocking.h); row-major by default
  uint32_t size() const { return elements; }
};

// A vertex field's value: a tensor region (pointer fields) or a word (u32, f32 bits).
struct FieldValue {
  bool set = false;
  Tensor region;  // valid() for pointer fields
  uint32_t word = 0;
};

struct VertexData {
  uint32_t compute_set = 0, codelet = 0, tile = 0;
  std::vector<FieldValue> fields;  // one per codelet field
};

struct ComputeSetData {
  std::string name;
  std::vector<uint32_t> vertices;  // in the order they run on their tiles
};

struct StreamData {
  std::string name;
  DType dtype = DType::kF32;
  std::vector<uint32_t> shape;
  bool from_device_memory = false;  // add_device_memory_stream: its data is in device memory
  bool zeroed = false;              // add_zeroed_device_memory_stream: in the zeros after the image
  uint64_t source_offset = 0;       // in device_memory(), or among the zeros: Graph::device_memory_offset
};

// A parameter kept in device memory (exe::DeviceParameter): `repeat` rows of `count`
// elements, contiguous from element `stored` of device memory stream `stream`; row i is
// elements [logical + i * stride, + count) of the parameter.
struct DeviceParameterData {
  struct Run {
    uint32_t stream = 0, stored = 0, logical = 0, count = 0, repeat = 1, stride = 0;
  };
  std::string name;
  DType dtype = DType::kF32;
  std::vector<uint32_t> shape;
  std::vector<Run> runs;  // covering every element once (exe::verify checks each load)
};

class Graph {
 public:
  explicit Graph(const arch::Target& target) : target_(&target) {}

  const arch::Target& target() const { return *target_; }

  // ---- tensors
  Tensor add_variable(DType dtype, std::vector<uint32_t> shape, std::string name);
  // Maps every element of `t` (a variable or a slice of one) to `tile`.
  void set_tile_mapping(const Tensor& t, uint32_t tile);
  // Spreads `t` over the tiles in chunks of `grain` elements: tiles 0, 1, ... each take
  // ceil(size / tiles) rounded up to the grain (the last ones may get less or nothing).
  void map_linearly(const Tensor& t, uint32_t grain = 1);
  // Initial values in stored order (blocking.h): for a blocked variable, permuted.
  void set_initial_value(const Tensor& t, const std::vector<float>& values);
  void set_initial_words(const Tensor& t, const std::vector<uint32_t>& words);
  // The same as set_initial_value with t.size() zeros (+0.0f), without building them.
  void set_initial_zeros(const Tensor& t);
  // Stores the matrix variable `t` (whole, 2-D, not yet mapped) block by block on a pr x pc
  // grid (blocking.h); an initial value already set is permuted into the stored order.
  void set_blocking(const Tensor& t, uint32_t pr, uint32_t pc);
  // The view of the whole variable; the variable's intervals (runs on one tile), in order.
  Tensor tensor(uint32_t var) const;
  std::vector<Interval> intervals(const Region& t) const;
  std::string describe(const Region& t) const;  // "a[16:32]", or "a" for the whole
  // Throws the error intervals() would if an element of `r` is not mapped.
  void check_mapped(const Region& r) const;
  // Whether every element of `r` is mapped, to `tile` (one run: no interval list is built).
  bool lies_on(const Region& r, uint32_t tile) const;

  // ---- compute
  ComputeSet add_compute_set(std::string name);
  Vertex add_vertex(ComputeSet cs, const std::string& codelet, uint32_t tile);
  void connect(Vertex v, const std::string& field, const Tensor& region);
  void set_field(Vertex v, const std::string& field, uint32_t value);
  void set_field_f32(Vertex v, const std::string& field, float value);
  std::string describe(Vertex v) const;  // "vertex 3 (matvec on tile 2, compute set 'partials')"

  // ---- streams and programs
  Stream add_stream(std::string name, DType dtype, std::vector<uint32_t> shape);
  // A stream whose data stays on the device: `words` (one transfer, in the order of the
  // stored elements of the tensor a HostWrite writes) are added to the device memory image,
  // loaded once into the device's DRAM; each HostWrite of it moves them to the tiles
  // (docs/weight-streaming.md); a HostRead of it writes a tensor back into those bytes (in
  // stored order too), for later HostWrites (and runs) to read. At most the target's device
  // memory and exe::kMaxDeviceMemoryBytes (what one executable file holds).
  Stream add_device_memory_stream(std::string name, DType dtype, std::vector<uint32_t> shape,
                                  std::span<const uint32_t> words);
  // The whole variable `t`'s initial value moved into device memory as such a stream (the
  // variable then has none): a constant loaded by the program rather than before it.
  Stream move_initial_value_to_device_memory(const Tensor& t, std::string name);
  // The same for data that starts as zeros (a velocity): it takes no bytes of the image
  // (nor of the executable file), only device memory after it, zeroed at load.
  Stream add_zeroed_device_memory_stream(std::string name, DType dtype, std::vector<uint32_t> shape);
  // The device memory image (from address 0) and the zero bytes after it.
  const std::vector<uint8_t>& device_memory() const { return *device_memory_; }
  uint64_t device_memory_zeros() const { return zeros_ ? aligned_image() - device_memory_->size() + zeros_ : 0; }
  // Where a device memory stream's data starts in the device's memory.
  uint64_t device_memory_offset(const StreamData& s) const {
    return s.zeroed ? aligned_image() + s.source_offset : s.source_offset;
  }
  void add_program(std::string name, Program program);
  // A parameter whose values live in device memory streams (training's streamed weights),
  // for the host to read back after a run (exe::DeviceParameter).
  void add_device_parameter(DeviceParameterData p);
  const std::vector<DeviceParameterData>& device_parameters() const { return device_parameters_; }

  // ---- read access for the passes
  const std::vector<Variable>& variables() const { return vars_; }
  const std::vector<ComputeSetData>& compute_sets() const { return compute_sets_; }
  const std::vector<VertexData>& vertices() const { return vertices_; }
  const std::vector<StreamData>& streams() const { return streams_; }
  const std::vector<std::pair<std::string, Program>>& programs() const { return *programs_; }
  // For passes that add hidden tensors (the copy of the graph they own).
  Tensor add_hidden_variable(DType dtype, std::vector<uint32_t> shape, std::string name);

 private:
  Variable& var_of(const Tensor& t, const char* what);
  // Where t's `count` initial words go (checked: one per element), the variable's initial
  // value made zeros first if it had none.
  uint32_t* initial_slot(const Tensor& t, size_t count);
  // The image's size rounded up to the 64-byte alignment of every stream's data.
  uint64_t aligned_image() const { return (device_memory_->size() + 63) / 64 * 64; }
  // Throws unless `bytes` more at `at` leave the image and zeros within the device memory.
  void check_device_memory(const std::string& name, uint64_t at, uint64_t bytes, uint64_t others) const;
  FieldValue& field_of(Vertex v, const std::string& field, bool pointer);

  const arch::Target* target_;
  std::vector<Variable> vars_;
  std::vector<ComputeSetData> compute_sets_;
  std::vector<VertexData> vertices_;
  std::vector<StreamData> streams_;
  // Shared by copies of the graph, copied on the next add (hundreds of MB for a big model).
  std::shared_ptr<std::vector<uint8_t>> device_memory_ = std::make_shared<std::vector<uint8_t>>();
  uint64_t zeros_ = 0;  // the zeroed streams' bytes, each 64-byte aligned
  std::vector<DeviceParameterData> device_parameters_;
  // Shared by copies of the graph (a compile's working copy), copied on the next add: a
  // program tree may hold millions of steps.
  std::shared_ptr<std::vector<std::pair<std::string, Program>>> programs_ =
      std::make_shared<std::vector<std::pair<std::string, Program>>>();
  std::unordered_set<std::string> var_names_;  // for the duplicate check without a scan
};

// Checks that the graph can compile: every tensor mapped, every vertex field set, regions
// contiguous on their vertex's tile with lengths matching the counts, programs referring to
// existing compute sets and streams with matching sizes. Throws GraphError naming them.
void validate(const Graph& g);

// A readable text dump: tensors with their intervals, streams, compute sets with their
// vertices and fields, programs as indented trees. Used by the golden tests.
std::string dump(const Graph& g);
std::string dump(const Graph& g, const Program& p, int indent = 0);

}  // namespace tessera::graph
