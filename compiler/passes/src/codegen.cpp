// Pass: emit the executable.
//
// Transformations:
//   - per tile, memory images (exe::Segments): the TileHeader at the firmware's header
//     address (pointing at the first program), each program's bytecode copy, the
//     compute-set/exchange/stream/condition tables, Vertex arrays and state records, send
//     lists, and the initial data of variables that have one; adjacent runs are merged;
//   - metadata: tensors, streams, programs (per tile the address of their copy, their
//     host syncs in order), the debug map (vertex -> codelet as op, compute set as layer),
//     the memory report, and a static count of supersteps and exchanged bytes for one run
//     of the first program.
#include <algorithm>
#include <bit>
#include <tuple>

#include "tessera/arch/arch_hash.h"
#include "tessera/passes/passes.h"

namespace tessera::passes {
namespace {

// One tile's words by address, merged into segments at the end. Each put is kept as one
// chunk (not a map entry per word), sorted by address at the end; where chunks overlap,
// the later put wins, as if the words were written in put order.
class Image {
 public:
  void put(uint32_t addr, std::vector<uint32_t> words) {
    if (!words.empty()) chunks_.push_back({addr, std::move(words)});
  }
  void segments(uint32_t tile, std::vector<exe::Segment>& out) {
    std::vector<uint32_t> order(chunks_.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return chunks_[a].addr < chunks_[b].addr; });
    for (size_t i = 0; i < order.size();) {
      // A run of chunks that touch or overlap: one segment.
      uint64_t end = chunks_[order[i]].end();
      size_t j = i + 1;
      while (j < order.size() && chunks_[order[j]].addr <= end) end = std::max(end, chunks_[order[j]].end()), ++j;
      const uint32_t base = chunks_[order[i]].addr;
      std::vector<uint32_t> words((end - base) / 4);
      std::vector<uint32_t> run(order.begin() + i, order.begin() + j);
      std::sort(run.begin(), run.end());  // put order: the later put wins
      for (uint32_t c : run) std::copy(chunks_[c].words.begin(), chunks_[c].words.end(), words.begin() + (chunks_[c].addr - base) / 4);
      exe::Segment& s = out.emplace_back(exe::Segment{tile, base, {}});
      s.bytes.resize(words.size() * 4);
      for (size_t w = 0; w < words.size(); ++w)
        for (int b = 0; b < 4; ++b) s.bytes[4 * w + b] = static_cast<uint8_t>(words[w] >> (8 * b));
      i = j;
    }
    chunks_.clear();
  }

 private:
  struct Chunk {
    uint32_t addr;
    std::vector<uint32_t> words;
    uint64_t end() const { return addr + 4 * uint64_t{words.size()}; }
  };
  std::vector<Chunk> chunks_;
};

// Barriers and exchanged bytes of one run of `words` [begin, end).
struct Cost {
  uint32_t supersteps = 0;
  uint64_t bytes = 0;
};
Cost cost(const std::vector<uint32_t>& w, size_t begin, size_t end, const std::vector<uint64_t>& xchg_bytes) {
  Cost c;
  for (size_t i = begin; i < end;) {
    switch (w[i]) {
      case arch::kCtlExecute: i += 2; break;
      case arch::kCtlExchange: c.supersteps++, c.bytes += xchg_bytes[w[i + 1]], i += 2; break;
      case arch::kCtlSync: c.supersteps++, i += 1; break;
      case arch::kCtlHostSync: c.supersteps++, i += 2; break;
      case arch::kCtlRepeat: {
        const Cost b = cost(w, i + 3, i + 3 + w[i + 2], xchg_bytes);
        c.supersteps += b.supersteps * w[i + 1], c.bytes += b.bytes * w[i + 1];
        i += 3 + w[i + 2];
        break;
      }
      case arch::kCtlIf: {  // the costlier branch
        const Cost t = cost(w, i + 4, i + 4 + w[i + 2], xchg_bytes);
        const Cost e = cost(w, i + 4 + w[i + 2], i + 4 + w[i + 2] + w[i + 3], xchg_bytes);
        const Cost& m = t.supersteps >= e.supersteps ? t : e;
        c.supersteps += m.supersteps, c.bytes += m.bytes;
        i += 4 + w[i + 2] + w[i + 3];
        break;
      }
      default: i = end; break;  // kCtlEnd
    }
  }
  return c;
}

}  // namespace

exe::Executable codegen(const graph::Graph& g, const Lowered& l, const MemoryPlan& m, const Resolved& r,
                        const CompileOptions& o) {
  const uint32_t tiles = g.target().tiles;
  exe::Executable e;
  e.target = std::string(g.target().name);
  e.target_hash = g.target().hash;
  e.arch_hash = arch::kArchHash;
  e.tiles = tiles;
  e.header_addr = o.layout.header;
  e.firmware = o.firmware;
  e.firmware_hash = exe::fnv1a(e.firmware.data(), e.firmware.size());

  // Per tile, the placed intervals of variables with an initial value, in variable order.
  std::vector<std::vector<std::pair<uint32_t, const MemoryPlan::Placed*>>> initial(tiles);
  for (uint32_t v = 0; v < g.variables().size(); ++v)
    if (!g.variables()[v].initial.empty())
      for (const MemoryPlan::Placed& p : m.tensors[v]) initial[p.tile].emplace_back(v, &p);
  for (uint32_t t = 0; t < tiles; ++t) {
    const MemoryPlan::Tile& mt = m.tiles[t];
    const Resolved::Tile& rt = r.tiles[t];
    Image img;
    const auto n = [](size_t k) { return static_cast<uint32_t>(k); };
    img.put(o.layout.header, {arch::kTileHeaderMagic, arch::kTileHeaderVersion, mt.programs.at(0),
                              n(l.programs[0].words.size()), mt.cs_table, n(rt.compute_sets.size()), mt.xchg_table,
                              n(rt.sends.size()), mt.stream_table, n(rt.stream_recv_words.size()), mt.cond_table,
                              n(rt.conditions.size())});
    for (size_t p = 0; p < l.programs.size(); ++p) img.put(mt.programs[p], l.programs[p].words);
    std::vector<uint32_t> table;
    for (size_t cs = 0; cs < rt.compute_sets.size(); ++cs) {
      table.insert(table.end(), {mt.vertex_arrays[cs], n(rt.compute_sets[cs].size())});
      std::vector<uint32_t> vs;
      for (const arch::Vertex& v : rt.compute_sets[cs]) vs.insert(vs.end(), {v.codelet, v.state});
      img.put(mt.vertex_arrays[cs], vs);
    }
    img.put(mt.cs_table, table);
    table.clear();
    for (size_t x = 0; x < rt.sends.size(); ++x) {
      std::vector<uint32_t> list;
      for (const Resolved::Tile::Send& s : rt.sends[x]) {
        const arch::SendEntry& se = s.entry;
        if (s.count == 1) {
          list.insert(list.end(), {se.src, se.bytes, se.dst_node, se.dst_addr});
        } else {
          list.insert(list.end(), {se.src, se.bytes, se.dst_node | arch::kSendRepeat, se.dst_addr});
          list.insert(list.end(), {s.count, s.src_stride, s.dst_stride, 0});
        }
      }
      table.insert(table.end(), {mt.send_lists[x], n(list.size() / 4), rt.recv_words[x]});
      img.put(mt.send_lists[x], list);
    }
    img.put(mt.xchg_table, table);
    img.put(mt.stream_table, rt.stream_recv_words);
    img.put(mt.cond_table, rt.conditions);
    for (const auto& [addr, words] : rt.states) img.put(addr, words);
    // Initial values of variables placed on this tile.
    for (const auto& [v, p] : initial[t]) {
      const std::vector<uint32_t>& init = g.variables()[v].initial;
      img.put(p->addr, std::vector<uint32_t>(init.begin() + p->begin, init.begin() + p->end));
    }
    img.segments(t, e.segments);
    e.memory.push_back(mt.usage);
  }

  e.tensors = r.tensors;
  e.streams = r.streams;
  e.device_memory = g.device_memory();
  e.device_memory_zeros = g.device_memory_zeros();
  for (const graph::DeviceParameterData& p : g.device_parameters()) {
    exe::DeviceParameter& d = e.device_parameters.emplace_back();
    d.name = p.name, d.dtype = p.dtype, d.shape = p.shape;
    const uint32_t eb = exe::dtype_bytes(p.dtype);
    for (const graph::DeviceParameterData::Run& r : p.runs)
      d.runs.push_back({g.device_memory_offset(g.streams()[r.stream]) + uint64_t{eb} * r.stored, r.logical, r.count,
                        r.repeat, r.stride});
  }
  for (size_t p = 0; p < l.programs.size(); ++p) {
    exe::Program& ep = e.programs.emplace_back();
    ep.name = l.programs[p].name;
    ep.words = static_cast<uint32_t>(l.programs[p].words.size());
    for (uint32_t t = 0; t < tiles; ++t) ep.tile_program.push_back(m.tiles[t].programs[p]);
    ep.streams = l.programs[p].host_syncs;
    std::tie(ep.first_step, ep.steps) = m.program_steps.at(p);
  }
  for (const graph::CodeletInfo& c : graph::codelets()) e.op_names.push_back(c.name);
  for (const graph::ComputeSetData& cs : g.compute_sets()) e.layer_names.push_back(cs.name);
  for (uint32_t cs = 0; cs < g.compute_sets().size(); ++cs)
    for (uint32_t v : g.compute_sets()[cs].vertices)
      e.vertices.push_back({g.vertices()[v].tile, cs, g.vertices()[v].codelet, cs});

  std::vector<uint64_t> xchg_bytes(r.tiles.empty() ? 0 : r.tiles[0].sends.size(), 0);
  for (const Resolved::Tile& rt : r.tiles)
    for (size_t x = 0; x < rt.sends.size(); ++x)
      for (const Resolved::Tile::Send& s : rt.sends[x]) xchg_bytes[x] += uint64_t{s.entry.bytes} * s.count;
  const Cost c = cost(l.programs[0].words, 0, l.programs[0].words.size(), xchg_bytes);
  e.supersteps = c.supersteps;
  e.exchange_bytes = c.bytes;
  return e;
}

}  // namespace tessera::passes
