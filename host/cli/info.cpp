// `tessera info`: what an executable holds, for a person deciding where memory goes.
#include <algorithm>
#include <cstdio>
#include <set>
#include <utility>

#include "cli.h"
#include "tessera/exe/file.h"

namespace tessera::cli {

namespace {

std::string shape_text(exe::DType t, const std::vector<uint32_t>& shape) {
  std::string s = std::string(exe::dtype_name(t)) + "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

// "N intervals on M tiles"
std::string placement(const std::vector<exe::Interval>& iv) {
  std::set<uint32_t> tiles;
  for (const auto& i : iv) tiles.insert(i.tile);
  return std::to_string(iv.size()) + " intervals on " + std::to_string(tiles.size()) + " tiles";
}

}  // namespace

void print_memory(const std::vector<exe::TileMemory>& memory) {
  // Memory per tile by category: min / median / max over the tiles.
  using Field = uint32_t exe::TileMemory::*;
  const std::pair<const char*, Field> cats[] = {
      {"code", &exe::TileMemory::code},           {"stack", &exe::TileMemory::stack},
      {"control", &exe::TileMemory::control},     {"vertex state", &exe::TileMemory::vertex_state},
      {"send lists", &exe::TileMemory::send_lists}, {"landing", &exe::TileMemory::landing},
      {"tensors", &exe::TileMemory::tensors}};
  auto stats = [&](auto value) {
    std::vector<uint64_t> v;
    for (const exe::TileMemory& m : memory) v.push_back(value(m));
    std::sort(v.begin(), v.end());
    if (v.empty()) v.push_back(0);
    std::printf("%12llu %12llu %12llu\n", (unsigned long long)v.front(), (unsigned long long)v[v.size() / 2],
                (unsigned long long)v.back());
  };
  std::printf("\nmemory per tile (bytes)        min       median          max\n");
  for (const auto& [name, field] : cats) {
    std::printf("  %-14s", name);
    stats([&](const exe::TileMemory& m) { return uint64_t{m.*field}; });
  }
  std::printf("  %-14s", "total");
  stats([&](const exe::TileMemory& m) {
    uint64_t s = 0;
    for (const auto& c : cats) s += m.*(c.second);
    return s;
  });
}

exe::Executable compile_and_write(graph::Graph&& g, const passes::CompileOptions& o, const std::string& output) {
  // The graph's size, edges counted as Poplar counts them (a vertex's connections to tensor
  // regions), beside the graph the machine this project follows was shown with.
  uint64_t edges = 0;
  for (const graph::VertexData& v : g.vertices())
    for (const graph::FieldValue& f : v.fields) edges += f.set && f.region.valid();
  const std::string size = std::to_string(g.vertices().size()) + " vertices, " + std::to_string(edges) + " edges, " +
                           std::to_string(g.compute_sets().size()) + " compute sets";
  note("compiling " + size + " for " + std::string(g.target().name) + " (" + std::to_string(g.target().tiles) + " tiles)");
  exe::Executable e;
  try {
    e = passes::compile(std::move(g), o);
  } catch (const passes::CompileError& err) {
    print_memory(err.memory);
    throw;
  }
  print_memory(e.memory);
  std::printf("\ngraph: %s, %u supersteps, %llu exchange bytes (Poplar's AlexNet training graph for 1,216 tiles: "
              "18.7 M vertices, 115.8 M edges)\n",
              size.c_str(), e.supersteps, static_cast<unsigned long long>(e.exchange_bytes));
  exe::write_file(e, output);
  return e;
}

int info(const std::string& model) {
  const exe::Executable e = exe::read_file(model);
  std::printf("%s: target %s, %u tiles, firmware %zu bytes, %zu segments\n", model.c_str(), e.target.c_str(), e.tiles,
              e.firmware.size(), e.segments.size());
  if (e.device_memory_bytes()) {
    size_t from = 0, to = 0;
    for (const exe::Stream& s : e.streams) from += s.from_device_memory(), to += s.to_device_memory();
    const std::string zeros =
        e.device_memory_zeros ? " (" + std::to_string(e.device_memory.size()) + " stored, then zeros)" : "";
    std::printf("device memory: %llu bytes%s, loaded once; %zu streams read it (weights streamed to the tiles)%s\n",
                static_cast<unsigned long long>(e.device_memory_bytes()), zeros.c_str(), from,
                to ? (", " + std::to_string(to) + " write back to it (updated weights and velocities)").c_str() : "");
  }
  print_memory(e.memory);

  std::printf("\nsupersteps (first program, static estimate): %u\nexchange bytes: %llu\n", e.supersteps,
              (unsigned long long)e.exchange_bytes);
  std::printf("\nprograms:\n");
  for (const exe::Program& p : e.programs) {
    std::string streams;
    for (uint32_t i : p.streams) streams += (streams.empty() ? "" : ", ") + e.streams.at(i).name;
    std::printf("  %-20s %u words, host syncs: %s\n", p.name.c_str(), p.words, streams.empty() ? "none" : streams.c_str());
  }
  // Layers: the compute sets (named after the model's layers, e.g. an ONNX node's name, and
  // what the lowering made of it), in order, with their vertices.
  if (!e.layer_names.empty()) {
    std::vector<uint32_t> vertices(e.layer_names.size(), 0);
    std::vector<std::set<uint32_t>> tiles(e.layer_names.size());
    for (const exe::VertexOrigin& v : e.vertices)
      if (v.layer < e.layer_names.size()) ++vertices[v.layer], tiles[v.layer].insert(v.tile);
    std::printf("\nlayers (compute sets, in order):\n");
    for (size_t i = 0; i < e.layer_names.size(); ++i)
      std::printf("  %-40s %6u vertices on %u tiles\n", e.layer_names[i].c_str(), vertices[i],
                  static_cast<uint32_t>(tiles[i].size()));
  }
  std::printf("\ntensors:\n");
  for (const exe::Tensor& t : e.tensors)
    std::printf("  %-20s %-16s %s%s\n", t.name.c_str(), shape_text(t.dtype, t.shape).c_str(),
                placement(t.intervals).c_str(), t.persistent ? ", persistent" : "");
  std::printf("\nstreams:\n");
  for (const exe::Stream& s : e.streams)
    std::printf("  %-20s %-16s %s, host sync operand %u, %s\n", s.name.c_str(), shape_text(s.dtype, s.shape).c_str(),
                exe::direction_name(s.direction), s.index,
                placement(s.intervals).c_str());
  return 0;
}

}  // namespace tessera::cli
