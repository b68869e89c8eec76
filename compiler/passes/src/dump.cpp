// Text dumps of each pass's output: stable, line-oriented, addresses in hex. The golden
// tests compare them; they are also the quickest way to see what the compiler did.
#include <cstdio>
#include <sstream>

#include "tessera/passes/passes.h"

namespace tessera::passes {
namespace {

std::string hex(uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%08x", v);
  return b;
}

// The bytecode as an indented listing.
void program_text(std::ostream& o, const std::vector<uint32_t>& w, size_t begin, size_t end, int indent) {
  const std::string pad(2 * indent, ' ');
  for (size_t i = begin; i < end;) {
    switch (w[i]) {
      case arch::kCtlEnd: o << pad << "End\n"; i += 1; break;
      case arch::kCtlExecute: o << pad << "Execute " << w[i + 1] << "\n"; i += 2; break;
      case arch::kCtlExchange: o << pad << "Exchange " << w[i + 1] << "\n"; i += 2; break;
      case arch::kCtlSync: o << pad << "Sync\n"; i += 1; break;
      case arch::kCtlHostSync: o << pad << "HostSync " << w[i + 1] << "\n"; i += 2; break;
      case arch::kCtlRepeat:
        o << pad << "Repeat " << w[i + 1] << " (" << w[i + 2] << " words)\n";
        program_text(o, w, i + 3, i + 3 + w[i + 2], indent + 1);
        i += 3 + w[i + 2];
        break;
      case arch::kCtlIf:
        o << pad << "If " << w[i + 1] << " (" << w[i + 2] << "+" << w[i + 3] << " words)\n";
        program_text(o, w, i + 4, i + 4 + w[i + 2], indent + 1);
        o << pad << "Else\n";
        program_text(o, w, i + 4 + w[i + 2], i + 4 + w[i + 2] + w[i + 3], indent + 1);
        i += 4 + w[i + 2] + w[i + 3];
        break;
      default: o << pad << "?" << w[i] << "\n"; i = end; break;
    }
  }
}

std::string usage_text(const exe::TileMemory& u) {
  return "code=" + std::to_string(u.code) + " stack=" + std::to_string(u.stack) + " control=" +
         std::to_string(u.control) + " vertex_state=" + std::to_string(u.vertex_state) + " send_lists=" +
         std::to_string(u.send_lists) + " landing=" + std::to_string(u.landing) + " tensors=" +
         std::to_string(u.tensors);
}

}  // namespace

std::string dump(const graph::Graph& g, const Lowered& l) {
  std::ostringstream o;
  for (const Lowered::Program& p : l.programs) {
    o << "program '" << p.name << "' (" << p.words.size() << " words)\n";
    program_text(o, p.words, 0, p.words.size(), 1);
  }
  for (size_t x = 0; x < l.exchanges.size(); ++x) {
    o << "exchange " << x << ":";
    for (const auto& [src, dst] : l.exchanges[x].copies) o << " " << g.describe(src) << "->" << g.describe(dst);
    o << "\n";
  }
  for (size_t s = 0; s < l.host_syncs.size(); ++s)
    o << "host sync " << s << " '" << l.host_syncs[s].name << "' "
      << (l.host_syncs[s].direction == exe::StreamDirection::kHostToDevice ||
                  l.host_syncs[s].direction == exe::StreamDirection::kDeviceMemoryToDevice
              ? "to "
              : "from ")
      << g.describe(l.host_syncs[s].tensor) << "\n";
  for (size_t c = 0; c < l.conditions.size(); ++c)
    o << "condition " << c << ": " << g.describe(l.conditions[c].cond) << " broadcast to "
      << g.describe(l.conditions[c].broadcast) << "\n";
  return o.str();
}

std::string dump(const graph::Graph& g, const ExchangePlan& x) {
  std::ostringstream o;
  for (size_t e = 0; e < x.exchanges.size(); ++e) {
    o << "exchange " << e << "\n";
    for (size_t t = 0; t < x.exchanges[e].sends.size(); ++t) {
      if (x.exchanges[e].sends[t].empty() && !x.exchanges[e].recv_words[t]) continue;
      o << "  tile " << t << " recv " << x.exchanges[e].recv_words[t] << "\n";
      for (const ExchangePlan::Transfer& tr : x.exchanges[e].sends[t]) {
        o << "    send " << g.describe(tr.src) << " -> " << g.describe(tr.dst) << "@" << tr.dst_tile;
        if (tr.count > 1) o << " x" << tr.count << " strides " << tr.src_stride << "," << tr.dst_stride;
        o << "\n";
      }
    }
  }
  for (size_t s = 0; s < x.streams.size(); ++s) {
    o << "stream " << s << "\n";
    for (const ExchangePlan::StreamRun& r : x.streams[s].runs)
      o << "  [" << r.offset << ":" << r.offset + r.region.size() << ") " << g.describe(r.region) << "@" << r.tile
        << " recv " << x.streams[s].recv_words[r.tile] << "\n";
  }
  return o.str();
}

std::string dump(const graph::Graph& g, const MemoryPlan& m) {
  std::ostringstream o;
  for (size_t t = 0; t < m.tiles.size(); ++t) {
    const MemoryPlan::Tile& mt = m.tiles[t];
    o << "tile " << t << ": " << usage_text(mt.usage) << " needed=" << mt.needed << "\n  programs";
    for (uint32_t a : mt.programs) o << " " << hex(a);
    o << "\n  tables cs=" << hex(mt.cs_table) << " xchg=" << hex(mt.xchg_table) << " streams=" << hex(mt.stream_table)
      << " conds=" << hex(mt.cond_table) << "\n  vertex arrays";
    for (uint32_t a : mt.vertex_arrays) o << " " << hex(a);
    o << "\n  send lists";
    for (uint32_t a : mt.send_lists) o << " " << hex(a);
    o << "\n";
  }
  for (size_t v = 0; v < m.vertex_state.size(); ++v) o << "vertex " << v << " state " << hex(m.vertex_state[v]) << "\n";
  for (size_t v = 0; v < m.tensors.size(); ++v) {
    o << "tensor " << g.variables()[v].name << ":";
    for (const MemoryPlan::Placed& p : m.tensors[v])
      o << " [" << p.begin << ":" << p.end << ")@" << p.tile << "=" << hex(p.addr);
    o << "\n";
  }
  for (const std::string& e : m.errors) o << "error: " << e << "\n";
  if (!m.peak.empty()) o << "peak: " << m.peak << "\n";
  return o.str();
}

std::string dump(const Resolved& r) {
  std::ostringstream o;
  for (size_t t = 0; t < r.tiles.size(); ++t) {
    const Resolved::Tile& rt = r.tiles[t];
    o << "tile " << t << "\n";
    for (size_t cs = 0; cs < rt.compute_sets.size(); ++cs)
      for (const arch::Vertex& v : rt.compute_sets[cs]) o << "  cs " << cs << " codelet " << v.codelet << " state " << hex(v.state) << "\n";
    for (const auto& [addr, words] : rt.states) {
      o << "  state " << hex(addr) << ":";
      for (uint32_t w : words) o << " " << hex(w);
      o << "\n";
    }
    for (size_t x = 0; x < rt.sends.size(); ++x) {
      o << "  exchange " << x << " recv " << rt.recv_words[x] << "\n";
      for (const Resolved::Tile::Send& s : rt.sends[x]) {
        o << "    " << hex(s.entry.src) << " " << s.entry.bytes << " bytes -> tile " << s.entry.dst_node << " "
          << hex(s.entry.dst_addr);
        if (s.count > 1) o << " x" << s.count << " strides " << s.src_stride << "," << s.dst_stride;
        o << "\n";
      }
    }
    o << "  streams recv";
    for (uint32_t w : rt.stream_recv_words) o << " " << w;
    o << "\n  conditions";
    for (uint32_t a : rt.conditions) o << " " << hex(a);
    o << "\n";
  }
  for (const exe::Tensor& t : r.tensors) {
    o << "tensor " << t.name << ":";
    for (const exe::Interval& i : t.intervals) o << " " << i.offset << "+" << i.count << "@" << i.tile << "=" << hex(i.addr);
    o << "\n";
  }
  for (const exe::Stream& s : r.streams) {
    o << "stream " << s.index << " '" << s.name << "':";
    for (const exe::Interval& i : s.intervals) o << " " << i.offset << "+" << i.count << "@" << i.tile << "=" << hex(i.addr);
    o << "\n";
  }
  return o.str();
}

std::string dump(const exe::Executable& e) {
  std::ostringstream o;
  o << "executable target=" << e.target << " tiles=" << e.tiles << " header=" << hex(e.header_addr)
    << " supersteps=" << e.supersteps << " exchange_bytes=" << e.exchange_bytes << "\n";
  for (const exe::Program& p : e.programs) {
    o << "program '" << p.name << "' words=" << p.words << " streams";
    for (uint32_t s : p.streams) o << " " << s;
    o << "\n";
  }
  for (const exe::Segment& s : e.segments) {
    o << "segment tile " << s.tile << " " << hex(s.addr) << ":";
    for (size_t i = 0; i + 3 < s.bytes.size(); i += 4)
      o << " " << hex(uint32_t{s.bytes[i]} | uint32_t{s.bytes[i + 1]} << 8 | uint32_t{s.bytes[i + 2]} << 16 |
                      uint32_t{s.bytes[i + 3]} << 24);
    o << "\n";
  }
  for (size_t t = 0; t < e.memory.size(); ++t) o << "memory tile " << t << ": " << usage_text(e.memory[t]) << "\n";
  return o.str();
}

}  // namespace tessera::passes
