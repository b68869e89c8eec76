// The graph as readable text: what the golden tests compare and what a user reads to see
// where tensors went.
#include <bit>
#include <sstream>

#include "tessera/graph/graph.h"

namespace tessera::graph {
namespace {

std::string pad(int indent) { return std::string(2 * indent, ' '); }

std::string intervals_text(const Graph& g, const Tensor& t) {
  std::string s;
  for (const Interval& i : g.intervals(t))
    s += " [" + std::to_string(i.begin) + ":" + std::to_string(i.end) + ")@" + std::to_string(i.tile);
  return s;
}

}  // namespace

std::string dump(const Graph& g, const Program& p, int indent) {
  using K = Program::Kind;
  std::string s = pad(indent);
  switch (p.kind) {
    case K::kSequence:
      s += "Sequence\n";
      for (const Program& c : p.body) s += dump(g, c, indent + 1);
      return s;
    case K::kExecute: return s + "Execute '" + g.compute_sets().at(p.compute_set).name + "'\n";
    case K::kCopy: return s + "Copy " + g.describe(p.src) + " -> " + g.describe(p.dst) + "\n";
    case K::kRepeat: return s + "Repeat " + std::to_string(p.count) + "\n" + dump(g, p.body[0], indent + 1);
    case K::kIf:
      return s + "If " + g.describe(p.src) + "\n" + dump(g, p.body[0], indent + 1) + pad(indent) + "Else\n" +
             dump(g, p.else_body[0], indent + 1);
    case K::kHostWrite: return s + "HostWrite '" + g.streams().at(p.stream).name + "' -> " + g.describe(p.dst) + "\n";
    case K::kHostRead: return s + "HostRead " + g.describe(p.src) + " -> '" + g.streams().at(p.stream).name + "'\n";
  }
  return s;
}

std::string dump(const Graph& g) {
  std::ostringstream o;
  o << "graph target=" << g.target().name << " tiles=" << g.target().tiles << "\n";
  for (uint32_t i = 0; i < g.variables().size(); ++i) {
    const Variable& v = g.variables()[i];
    o << "tensor " << v.name << " " << exe::dtype_name(v.dtype) << shape_string(v.shape)
      << (v.initial.empty() ? "" : " initial") << (v.hidden ? " hidden" : "");
    if (v.blocking.blocked()) o << " blocks=" << v.blocking.pr << "x" << v.blocking.pc;
    o << ":";
    const bool mapped = v.mapping.all_mapped(0, v.size());
    o << (mapped ? intervals_text(g, g.tensor(i)) : " unmapped") << "\n";
  }
  for (const StreamData& s : g.streams())
    o << "stream " << s.name << " " << exe::dtype_name(s.dtype) << shape_string(s.shape) << "\n";
  for (uint32_t c = 0; c < g.compute_sets().size(); ++c) {
    o << "compute set " << c << " '" << g.compute_sets()[c].name << "'\n";
    for (uint32_t id : g.compute_sets()[c].vertices) {
      const VertexData& d = g.vertices()[id];
      const CodeletInfo& info = codelets()[d.codelet];
      o << "  vertex " << id << " " << info.name << " @" << d.tile << ":";
      for (size_t f = 0; f < info.fields.size(); ++f) {
        const FieldValue& v = d.fields[f];
        o << " " << info.fields[f].name << "=";
        if (!v.set) o << "?";
        else if (info.fields[f].is_pointer()) o << g.describe(v.region);
        else if (info.fields[f].type == FieldType::kF32) o << std::bit_cast<float>(v.word);
        else o << v.word;
      }
      o << "\n";
    }
  }
  for (const auto& [name, p] : g.programs()) o << "program '" << name << "'\n" << dump(g, p, 1);
  return o.str();
}

}  // namespace tessera::graph
