// Building the vertex graph: variables and their tile mapping, compute sets, vertices and
// their fields, streams and programs. Immediate checks are the ones that cannot change later
// (field names and kinds, tile ids); mapping-dependent ones are repeated in validate().
#include "tessera/graph/graph.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace tessera::graph {

Tensor Graph::add_variable(DType dtype, std::vector<uint32_t> shape, std::string name) {
  if (exe::dtype_bytes(dtype) != 4)
    throw GraphError("tensor '" + name + "': only 4-byte element types are supported (exchanges move words)");
  if (var_names_.count(name)) throw GraphError("tensor '" + name + "' defined twice");
  Variable v;
  v.name = std::move(name);
  v.dtype = dtype;
  v.shape = std::move(shape);
  const uint32_t n = element_count(v.shape);
  if (n == 0) throw GraphError("tensor '" + v.name + "' has no elements");
  v.elements = n;
  var_names_.insert(v.name);
  vars_.push_back(std::move(v));
  return tensor(static_cast<uint32_t>(vars_.size() - 1));
}

Tensor Graph::add_hidden_variable(DType dtype, std::vector<uint32_t> shape, std::string name) {
  Tensor t = add_variable(dtype, std::move(shape), std::move(name));
  vars_[t.var].hidden = true;
  return t;
}

Tensor Graph::tensor(uint32_t var) const {
  const Variable& v = vars_.at(var);
  return Tensor{{var, 0, v.size()}, v.shape};
}

Variable& Graph::var_of(const Tensor& t, const char* what) {
  if (!t.valid() || t.var >= vars_.size()) throw GraphError(std::string(what) + ": not a tensor of this graph");
  if (t.end > vars_[t.var].size() || t.begin >= t.end)
    throw GraphError(std::string(what) + ": view outside tensor '" + vars_[t.var].name + "'");
  return vars_[t.var];
}

void Graph::set_tile_mapping(const Tensor& t, uint32_t tile) {
  Variable& v = var_of(t, "set_tile_mapping");
  if (tile >= target_->tiles)
    throw GraphError("set_tile_mapping(" + describe(t) + "): tile " + std::to_string(tile) + " but target '" +
                     std::string(target_->name) + "' has " + std::to_string(target_->tiles));
  v.mapping.set(t.begin, t.end, tile);
}

void Graph::map_linearly(const Tensor& t, uint32_t grain) {
  if (grain == 0) throw GraphError("map_linearly(" + describe(t) + "): grain 0");
  const uint32_t tiles = target_->tiles;
  const uint32_t grains = (t.size() + grain - 1) / grain;
  const uint32_t per_tile = (grains + tiles - 1) / tiles * grain;
  for (uint32_t b = 0, tile = 0; b < t.size(); b += per_tile, ++tile)
    set_tile_mapping(t.slice(b, std::min(t.size(), b + per_tile)), tile);
}

uint32_t* Graph::initial_slot(const Tensor& t, size_t count) {
  Variable& v = var_of(t, "set_initial_value");
  if (count != t.size())
    throw GraphError("set_initial_value(" + describe(t) + "): " + std::to_string(count) + " values for " +
                     std::to_string(t.size()) + " elements");
  if (v.initial.empty()) v.initial.assign(v.size(), 0);
  return v.initial.data() + t.begin;
}

void Graph::set_initial_words(const Tensor& t, const std::vector<uint32_t>& words) {
  std::copy(words.begin(), words.end(), initial_slot(t, words.size()));
}

void Graph::set_initial_value(const Tensor& t, const std::vector<float>& values) {
  // The floats' bits as words (memcpy keeps every bit, NaNs' too), with no copy between.
  std::memcpy(initial_slot(t, values.size()), values.data(), values.size() * sizeof(float));
}

void Graph::set_initial_zeros(const Tensor& t) { std::fill_n(initial_slot(t, t.size()), t.size(), 0u); }

void Graph::set_blocking(const Tensor& t, uint32_t pr, uint32_t pc) {
  Variable& v = var_of(t, "set_blocking");
  const std::string what = "set_blocking(" + describe(t) + ", " + std::to_string(pr) + ", " + std::to_string(pc) + "): ";
  if (t.begin != 0 || t.end != v.size() || v.shape.size() != 2) throw GraphError(what + "needs a whole matrix");
  if (pr == 0 || pc == 0 || pr > v.shape[0] || pc > v.shape[1])
    throw GraphError(what + "the grid does not fit " + shape_string(v.shape));
  if (v.blocking.blocked()) throw GraphError(what + "already blocked");
  if (!v.mapping.none_mapped(0, v.size())) throw GraphError(what + "already mapped");
  v.blocking = Blocking{v.shape[0], v.shape[1], pr, pc};
  if (!v.blocking.blocked()) {
    v.blocking = Blocking{};
    return;
  }
  if (!v.initial.empty()) {
    std::vector<uint32_t> stored(v.initial.size());
    for (const Blocking::Run& r : v.blocking.logical_runs(0, v.size()))
      std::copy_n(v.initial.begin() + r.logical, r.count, stored.begin() + r.stored);
    v.initial = std::move(stored);
  }
}

namespace {

GraphError unmapped(const Variable& v, uint32_t element) {
  return GraphError("tensor '" + v.name + "': element " + std::to_string(element) + " is not mapped to a tile");
}

}  // namespace

std::vector<Interval> Graph::intervals(const Region& t) const {
  const Variable& v = vars_.at(t.var);
  std::vector<Interval> out;
  // The runs are merged where adjacent on one tile, so each is one interval (clipped to t).
  for (uint32_t i = t.begin; i < t.end;) {
    const TileMap::Run* r = v.mapping.find(i);
    if (!r) throw unmapped(v, i);
    const uint32_t e = std::min(t.end, r->end);
    out.push_back({r->tile, i, e});
    i = e;
  }
  return out;
}

void Graph::check_mapped(const Region& r) const {
  const Variable& v = vars_.at(r.var);
  if (const uint32_t i = v.mapping.first_unmapped(r.begin, r.end); i < r.end) throw unmapped(v, i);
}

bool Graph::lies_on(const Region& r, uint32_t tile) const {
  const TileMap::Run* run = vars_.at(r.var).mapping.find(r.begin);
  return run && run->tile == tile && run->end >= r.end;
}

std::string Graph::describe(const Region& t) const {
  if (!t.valid() || t.var >= vars_.size()) return "<no tensor>";
  const Variable& v = vars_[t.var];
  if (t.begin == 0 && t.end == v.size()) return v.name;
  return v.name + "[" + std::to_string(t.begin) + ":" + std::to_string(t.end) + "]";
}

ComputeSet Graph::add_compute_set(std::string name) {
  compute_sets_.push_back({std::move(name), {}});
  return {static_cast<uint32_t>(compute_sets_.size() - 1)};
}

Vertex Graph::add_vertex(ComputeSet cs, const std::string& codelet, uint32_t tile) {
  if (cs.id >= compute_sets_.size()) throw GraphError("add_vertex: no compute set " + std::to_string(cs.id));
  const CodeletInfo& c = find_codelet(codelet);
  if (tile >= target_->tiles)
    throw GraphError("add_vertex(" + codelet + "): tile " + std::to_string(tile) + " out of range");
  VertexData v;
  v.compute_set = cs.id;
  v.codelet = c.index;
  v.tile = tile;
  v.fields.resize(c.fields.size());
  vertices_.push_back(std::move(v));
  const uint32_t id = static_cast<uint32_t>(vertices_.size() - 1);
  compute_sets_[cs.id].vertices.push_back(id);
  return {id};
}

std::string Graph::describe(Vertex v) const {
  const VertexData& d = vertices_.at(v.id);
  return "vertex " + std::to_string(v.id) + " (" + codelets()[d.codelet].name + " on tile " + std::to_string(d.tile) +
         ", compute set '" + compute_sets_[d.compute_set].name + "')";
}

FieldValue& Graph::field_of(Vertex v, const std::string& field, bool pointer) {
  if (v.id >= vertices_.size()) throw GraphError("no vertex " + std::to_string(v.id));
  VertexData& d = vertices_[v.id];
  const CodeletInfo& c = codelets()[d.codelet];
  const int i = c.field_index(field);
  if (i < 0) throw GraphError(describe(v) + ": codelet " + c.name + " has no field '" + field + "' (" + c.signature + ")");
  if (c.fields[i].is_pointer() != pointer)
    throw GraphError(describe(v) + ": field '" + field + "' is " + (pointer ? "a value" : "a pointer") + " (" +
                     c.signature + ")");
  return d.fields[i];
}

void Graph::connect(Vertex v, const std::string& field, const Tensor& region) {
  FieldValue& f = field_of(v, field, true);
  var_of(region, "connect");
  // Checked now if the region is already mapped (again at compile time in any case).
  const uint32_t tile = vertices_[v.id].tile;
  if (vars_[region.var].mapping.all_mapped(region.begin, region.end) && !lies_on(region, tile)) {
    throw GraphError(describe(v) + ": field '" + field + "': " + describe(region) +
                       " is not contiguous on tile " + std::to_string(tile));
  }
  f.set = true;
  f.region = region;
}

void Graph::set_field(Vertex v, const std::string& field, uint32_t value) {
  FieldValue& f = field_of(v, field, false);
  f.set = true;
  f.word = value;
}

void Graph::set_field_f32(Vertex v, const std::string& field, float value) {
  set_field(v, field, std::bit_cast<uint32_t>(value));
}

Stream Graph::add_stream(std::string name, DType dtype, std::vector<uint32_t> shape) {
  for (const StreamData& s : streams_)
    if (s.name == name) throw GraphError("stream '" + name + "' defined twice");
  element_count(shape);
  streams_.push_back({std::move(name), dtype, std::move(shape)});
  return {static_cast<uint32_t>(streams_.size() - 1)};
}

Stream Graph::add_device_memory_stream(std::string name, DType dtype, std::vector<uint32_t> shape,
                                       std::span<const uint32_t> words) {
  if (words.size() != element_count(shape) || exe::dtype_bytes(dtype) != 4)
    throw GraphError("device memory stream '" + name + "': " + std::to_string(words.size()) + " words for " +
                     shape_string(shape) + " " + exe::dtype_name(dtype));
  const uint64_t at = aligned_image();  // each stream's data 64-byte aligned
  check_device_memory(name, at, words.size_bytes(), zeros_);
  const Stream s = add_stream(std::move(name), dtype, std::move(shape));
  if (device_memory_.use_count() > 1) device_memory_ = std::make_shared<std::vector<uint8_t>>(*device_memory_);
  device_memory_->resize(at + words.size_bytes());
  std::memcpy(device_memory_->data() + at, words.data(), words.size_bytes());
  streams_.back().from_device_memory = true;
  streams_.back().source_offset = at;
  return s;
}

Stream Graph::add_zeroed_device_memory_stream(std::string name, DType dtype, std::vector<uint32_t> shape) {
  const uint64_t bytes = element_count(shape) * uint64_t{exe::dtype_bytes(dtype)};
  if (exe::dtype_bytes(dtype) != 4)
    throw GraphError("device memory stream '" + name + "': " + shape_string(shape) + " " + exe::dtype_name(dtype));
  check_device_memory(name, aligned_image() + zeros_, bytes, 0);
  const Stream s = add_stream(std::move(name), dtype, std::move(shape));
  streams_.back().from_device_memory = streams_.back().zeroed = true;
  streams_.back().source_offset = zeros_;
  zeros_ += (bytes + 63) / 64 * 64;
  return s;
}

void Graph::check_device_memory(const std::string& name, uint64_t at, uint64_t bytes, uint64_t others) const {
  const uint64_t limit = std::min(uint64_t{target_->device_memory_mib} << 20, exe::kMaxDeviceMemoryBytes);
  if (at + bytes + others > limit)
    throw GraphError("device memory stream '" + name + "': " + std::to_string(at + bytes + others) +
                     " bytes of device memory, more than the " + std::to_string(limit) + " that target '" +
                     std::string(target_->name) + "' and one executable file hold");
}

Stream Graph::move_initial_value_to_device_memory(const Tensor& t, std::string name) {
  Variable& v = var_of(t, "move_initial_value_to_device_memory");
  if (t.begin != 0 || t.end != v.size() || v.initial.empty())
    throw GraphError("move_initial_value_to_device_memory: " + describe(t) + " is not a whole variable with an initial value");
  const Stream s = add_device_memory_stream(std::move(name), v.dtype, v.shape, v.initial);
  vars_[t.var].initial = {};
  return s;
}

void Graph::add_device_parameter(DeviceParameterData p) {
  // Bounds and the count here; that no element is covered twice, exe::verify (on every load).
  uint64_t sum = 0;
  for (const DeviceParameterData::Run& r : p.runs) {
    const uint64_t n = uint64_t{r.count} * r.repeat;
    if (r.stream >= streams_.size() || !streams_[r.stream].from_device_memory || n == 0 ||
        (r.repeat > 1 && r.stride < r.count) || r.stored + n > element_count(streams_[r.stream].shape) ||
        r.logical + uint64_t{r.repeat - 1} * r.stride + r.count > element_count(p.shape))
      throw GraphError("device parameter '" + p.name + "': the run of elements from " + std::to_string(r.logical) +
                       " is empty, overlaps itself, or is not in the parameter or its device memory stream");
    sum += n;
  }
  if (sum != element_count(p.shape))
    throw GraphError("device parameter '" + p.name + "': runs cover " + std::to_string(sum) + " of " +
                     shape_string(p.shape) + "'s elements");
  for (const DeviceParameterData& q : device_parameters_)
    if (q.name == p.name) throw GraphError("device parameter '" + p.name + "' defined twice");
  device_parameters_.push_back(std::move(p));
}

void Graph::add_program(std::string name, Program program) {
  for (const auto& p : *programs_)
    if (p.first == name) throw GraphError("program '" + name + "' defined twice");
  if (programs_.use_count() > 1) programs_ = std::make_shared<std::vector<std::pair<std::string, Program>>>(*programs_);
  programs_->emplace_back(std::move(name), std::move(program));
}

}  // namespace tessera::graph
