// The checks a graph must pass before the passes run, with messages that name the tensor,
// vertex, field or program at fault.
#include <sstream>

#include "tessera/graph/graph.h"

namespace tessera::graph {
namespace {

// Evaluates a length rule ("rows*cols", "1") over the vertex's u32 fields.
uint64_t rule_length(const CodeletInfo& c, const VertexData& d, const std::string& rule) {
  uint64_t n = 1;
  std::stringstream ss(rule);
  for (std::string term; std::getline(ss, term, '*');) {
    const int i = c.field_index(term);
    n *= i >= 0 ? d.fields[i].word : std::stoul(term);
  }
  return n;
}

void check_vertex(const Graph& g, uint32_t id) {
  const VertexData& d = g.vertices()[id];
  const CodeletInfo& c = codelets()[d.codelet];
  auto who = [&] { return g.describe(Vertex{id}); };  // only for a message
  for (size_t i = 0; i < c.fields.size(); ++i)
    if (!d.fields[i].set) throw GraphError(who() + ": field '" + c.fields[i].name + "' is not set (" + c.signature + ")");
  for (size_t i = 0; i < c.fields.size(); ++i) {
    const CodeletField& f = c.fields[i];
    const FieldValue& v = d.fields[i];
    if (!f.is_pointer()) continue;
    if (!g.lies_on(v.region, d.tile)) {
      g.check_mapped(v.region);  // an unmapped element is named first
      throw GraphError(who() + ": field '" + f.name + "': " + g.describe(v.region) + " is not contiguous on tile " +
                       std::to_string(d.tile));
    }
    if (f.type == FieldType::kF32Ptr && g.variables()[v.region.var].dtype != DType::kF32)
      throw GraphError(who() + ": field '" + f.name + "' wants f32, " + g.describe(v.region) + " is " +
                       exe::dtype_name(g.variables()[v.region.var].dtype));
    if (!f.length.empty() && rule_length(c, d, f.length) != v.region.size())
      throw GraphError(who() + ": field '" + f.name + "': " + g.describe(v.region) + " has " +
                       std::to_string(v.region.size()) + " elements, the codelet reads " + f.length + " = " +
                       std::to_string(rule_length(c, d, f.length)));
  }
}

void check_program(const Graph& g, const Program& p, const std::string& where) {
  using K = Program::Kind;
  switch (p.kind) {
    case K::kExecute:
      if (p.compute_set >= g.compute_sets().size())
        throw GraphError(where + ": Execute of compute set " + std::to_string(p.compute_set) + ", graph has " +
                         std::to_string(g.compute_sets().size()));
      break;
    case K::kCopy:
      g.check_mapped(p.src), g.check_mapped(p.dst);
      if (g.variables()[p.src.var].dtype != g.variables()[p.dst.var].dtype)
        throw GraphError(where + ": Copy " + g.describe(p.src) + " -> " + g.describe(p.dst) + " changes dtype");
      break;
    case K::kHostWrite:
    case K::kHostRead: {
      const Region& t = p.kind == K::kHostWrite ? p.dst : p.src;
      if (p.stream >= g.streams().size()) throw GraphError(where + ": no stream " + std::to_string(p.stream));
      const StreamData& s = g.streams()[p.stream];
      g.check_mapped(t);
      // Streams move elements in stored order: the host's data would be permuted (a device
      // memory stream's data is made in that order: Graph::add_device_memory_stream).
      if (g.variables()[t.var].blocking.blocked() && !s.from_device_memory)
        throw GraphError(where + ": stream '" + s.name + "' of " + g.describe(t) + ", which is stored block by block");
      if (element_count(s.shape) != t.size() || s.dtype != g.variables()[t.var].dtype)
        throw GraphError(where + ": stream '" + s.name + "' (" + exe::dtype_name(s.dtype) + shape_string(s.shape) +
                         ") does not match " + g.describe(t) + " (" + std::to_string(t.size()) + " elements)");
      break;
    }
    case K::kIf: g.check_mapped(p.src); break;
    default: break;
  }
  for (const Program& c : p.body) check_program(g, c, where);
  for (const Program& c : p.else_body) check_program(g, c, where);
}

}  // namespace

void validate(const Graph& g) {
  for (uint32_t i = 0; i < g.variables().size(); ++i) {
    const Variable& v = g.variables()[i];
    if (const uint32_t e = v.mapping.first_unmapped(0, v.size()); e < v.size())
        throw GraphError("tensor '" + v.name + "' is not mapped to tiles (element " + std::to_string(e) +
                         " of " + std::to_string(v.size()) + ")");
  }
  for (uint32_t id = 0; id < g.vertices().size(); ++id) check_vertex(g, id);
  if (g.programs().empty()) throw GraphError("the graph has no programs");
  for (const auto& [name, p] : g.programs()) check_program(g, p, "program '" + name + "'");
}

}  // namespace tessera::graph
