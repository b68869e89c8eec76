// Pass: plan every tile's memory.
//
// Transformations (per tile, from the firmware's end upwards, first fit):
//   - below __firmware_end: the firmware's code and data and its stack (reported as `code`
//     and `stack`; the header inside it is filled in by codegen);
//   - control: one copy of each program's bytecode, then the compute-set, exchange,
//     stream and condition tables;
//   - vertex state: the tile's Vertex array per compute set, then each vertex's record;
//   - send lists: one array of 16-byte slots per exchange (a SendEntry, and a SendRepeat
//     after each strided one);
//   - landing: the hidden tensors that receive broadcast conditions (exchanges otherwise
//     land directly in their destination tensors);
//   - tensors: each interval of each variable on this tile, 8-byte aligned, by live range:
//     two intervals share bytes only if their live ranges do not overlap (first fit in
//     time x address; hidden tensors, then persistent ones, then the rest; within each
//     group the largest first, ties in variable order, so the same graph gets the same
//     addresses). Past the end of SRAM the sharing goes on, so a tile that does not fit
//     is reported with what it would need.
// Live ranges are in step order: the Executes, Exchanges and HostSyncs of all programs,
// numbered in program order. An interval lives from the first to the last step that
// reads or writes it (vertex pointer fields, copy sources and destinations, stream
// tensors); used both in a Repeat's body and outside it, it lives for the whole Repeat
// (the body runs again); used only inside the body, for its steps there (it is written
// before it is read in each iteration, else it is persistent); used in an If, for the
// whole If. A device memory stream's destination (docs/weight-streaming.md) lives at least
// until the next host sync, where its data lands. Persistent intervals live for the whole run: those
// with an initial value, read before written (a write inside an If does not count), used
// by more than one program or by none (the host may read or write them), and the hidden
// condition copies. Usage reports the peak of the bytes live at once, not their sum. A tile that does not fit gets an
// error line naming it, the bytes needed and available, and its largest tensors; planning
// still completes so that the report is whole.
#include <algorithm>
#include <limits>
#include <map>
#include <tuple>
#include <utility>

#include "allocator.h"
#include "packing.h"
#include "parallel.h"
#include "tessera/arch/tile_map.h"
#include "tessera/passes/passes.h"

namespace tessera::passes {
namespace {

constexpr uint32_t kWord = 4;

// `placed`: the tile's (variable, interval) pairs in variable order.
std::string largest_tensors(const graph::Graph& g, const MemoryPlan& m,
                            const std::vector<std::pair<uint32_t, uint32_t>>& placed) {
  std::vector<std::pair<uint32_t, std::string>> sizes;  // bytes, name
  for (const auto& [v, i] : placed) {
    const MemoryPlan::Placed& p = m.tensors[v][i];
    sizes.emplace_back((p.end - p.begin) * kWord, g.describe(Region{v, p.begin, p.end}));
  }
  std::stable_sort(sizes.begin(), sizes.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string s;
  for (size_t i = 0; i < sizes.size() && i < 3; ++i)
    s += (i ? ", " : "") + sizes[i].second + " " + std::to_string(sizes[i].first) + " bytes";
  return s.empty() ? "none" : s;
}

constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

// Live ranges per interval of each variable (in the order of g.intervals).
class Liveness {
 public:
  struct Range {
    uint32_t first = kNone, last = 0, program = kNone;
    bool persistent = false;
  };

  // Without `share`, every tensor is live for the whole run (no two share memory: what
  // liveness saves, measured).
  Liveness(const graph::Graph& g, const Lowered& l, bool share = true) : g_(g), l_(l) {
    const auto& vars = g.variables();
    ranges_.resize(vars.size());
    written_.resize(vars.size());
    for (uint32_t v = 0; v < vars.size(); ++v) {
      ivs_.push_back(g.intervals(g.tensor(v)));
      ranges_[v].resize(ivs_[v].size());
      written_[v].resize(ivs_[v].size());
    }
    for (uint32_t p = 0; p < l.programs.size(); ++p) {
      program_ = p;
      const uint32_t first = step_;
      const std::vector<uint32_t>& w = l.programs[p].words;
      walk(w, 0, w.size());
      land(step_ - 1);  // reads from device memory still in flight land when the tiles halt
      program_steps_.emplace_back(first, step_ - first);
    }
    for (uint32_t v = 0; v < vars.size(); ++v)
      for (Range& r : ranges_[v])
        if (!share || !vars[v].initial.empty() || vars[v].hidden || r.first == kNone) r.persistent = true;
    for (auto& rs : ranges_)
      for (Range& r : rs) {
        if (r.persistent) {
          r.first = 0, r.last = kNone;
          continue;
        }
        // Used both inside a Repeat's body and outside it: live for the whole Repeat. Used
        // only inside, it is written before it is read in every iteration (else it would
        // be persistent), so its range within the body holds for each iteration.
        for (bool changed = r.first != kNone; changed;) {
          changed = false;
          for (const auto& [first, last] : repeats_) {
            const bool meets = r.first <= last && first <= r.last, inside = first <= r.first && r.last <= last;
            if (meets && !inside && (first < r.first || r.last < last)) {
              r.first = std::min(r.first, first), r.last = std::max(r.last, last);
              changed = true;
            }
          }
        }
      }
  }

  const std::vector<graph::Interval>& intervals(uint32_t v) const { return ivs_[v]; }
  const std::vector<std::vector<graph::Interval>>& intervals() const { return ivs_; }
  const Range& range(uint32_t v, size_t i) const { return ranges_[v][i]; }
  // Per program: its first step and how many it has.
  const std::vector<std::pair<uint32_t, uint32_t>>& program_steps() const { return program_steps_; }
  // What step s is: "compute set 'NAME'", "an exchange", "a host sync".
  std::string step_name(uint32_t s) const {
    if (s >= steps_.size()) return "step " + std::to_string(s);
    const uint32_t cs = steps_[s];
    return cs == kExchangeStep ? "an exchange"
           : cs == kHostStep   ? "a host sync"
                               : "compute set '" + g_.compute_sets()[cs].name + "'";
  }

 private:
  // The device memory reads in flight land at step s: their destinations live until then.
  void land(uint32_t s) {
    for (const Region& r : landing_) access(r, s, true);
    landing_.clear();
  }

  // Words [at, end) of a program, numbering the steps as it goes.
  void walk(const std::vector<uint32_t>& w, size_t at, size_t end) {
    while (at < end) {
      switch (w[at]) {
        case arch::kCtlExecute: execute(w[at + 1]); at += 2; break;
        case arch::kCtlExchange: {
          steps_.push_back(kExchangeStep);
          const uint32_t s = step_++;
          const auto& copies = l_.exchanges[w[at + 1]].copies;
          for (const auto& [src, dst] : copies) access(src, s, false);
          for (const auto& [src, dst] : copies) access(dst, s, true);
          at += 2;
          break;
        }
        case arch::kCtlHostSync: {
          const Lowered::HostSync& h = l_.host_syncs[w[at + 1]];
          steps_.push_back(kHostStep);
          land(step_);
          const bool into_tiles = h.direction == exe::StreamDirection::kHostToDevice ||
                                  h.direction == exe::StreamDirection::kDeviceMemoryToDevice;
          access(h.tensor, step_++, into_tiles);
          // A read from device memory lands by the next host sync: its bytes are taken until then.
          if (h.direction == exe::StreamDirection::kDeviceMemoryToDevice) landing_.push_back(h.tensor);
          at += 2;
          break;
        }
        case arch::kCtlRepeat: {
          const uint32_t count = w[at + 1], words = w[at + 2];
          const uint32_t first = step_;
          const size_t mark = log_.size();
          ++undo_depth_;
          walk(w, at + 3, at + 3 + words);
          --undo_depth_;
          if (!count) unwrite(mark);  // a body that never runs writes nothing
          if (step_ > first) repeats_.emplace_back(first, step_ - 1);
          at += 3 + words;
          break;
        }
        case arch::kCtlIf: {
          const uint32_t k = w[at + 1], then_words = w[at + 2], else_words = w[at + 3];
          const uint32_t first = step_;
          auto outer = begin_block();
          steps_.push_back(kExchangeStep);  // the condition's broadcast
          access(l_.conditions[k].broadcast, step_++, false);
          // A branch's writes count only inside that branch: the other may run instead.
          const size_t mark = log_.size();
          ++undo_depth_;
          walk(w, at + 4, at + 4 + then_words);
          unwrite(mark);
          walk(w, at + 4 + then_words, at + 4 + then_words + else_words);
          unwrite(mark);
          --undo_depth_;
          end_block(first, std::move(outer));
          at += 4 + then_words + else_words;
          break;
        }
        case arch::kCtlSync: ++at; break;
        default: at = end; break;  // kCtlEnd
      }
    }
  }

  // An If: everything used inside lives from its first step to its last.
  std::vector<std::pair<uint32_t, size_t>> begin_block() {
    ++if_depth_;
    return std::exchange(touched_, {});
  }
  void end_block(uint32_t first, std::vector<std::pair<uint32_t, size_t>> outer) {
    if (step_ > first)
      for (const auto& [v, i] : touched_) {
        Range& r = ranges_[v][i];
        r.first = std::min(r.first, first);
        r.last = std::max(r.last, step_ - 1);
      }
    // The enclosing block sees this one's uses too.
    if (--if_depth_) outer.insert(outer.end(), touched_.begin(), touched_.end());
    touched_ = std::move(outer);
  }

  // Undoes the writes logged since `mark`, latest first.
  void unwrite(size_t mark) {
    for (size_t j = log_.size(); j-- > mark;) written_[log_[j].var][log_[j].interval] = std::move(log_[j].before);
    log_.resize(mark);
  }

  void execute(uint32_t cs) {
    steps_.push_back(cs);
    const uint32_t s = step_++;
    const auto& cl = graph::codelets();
    for (bool write : {false, true})
      for (uint32_t v : g_.compute_sets()[cs].vertices) {
        const graph::VertexData& d = g_.vertices()[v];
        const graph::CodeletInfo& c = cl[d.codelet];
        for (size_t f = 0; f < c.fields.size() && f < d.fields.size(); ++f) {
          const graph::CodeletField& field = c.fields[f];
          if (!field.is_pointer() || !d.fields[f].set || !d.fields[f].region.valid()) continue;
          // Pointers are written unless const; mac's accumulator is also read.
          const bool reads = field.is_const || c.name == "mac";
          if (write ? !field.is_const : reads) access(d.fields[f].region, s, write);
        }
      }
  }

  void access(const Region& t, uint32_t s, bool write) {
    if (!t.valid() || t.begin >= t.end) return;
    const std::vector<graph::Interval>& ivs = ivs_[t.var];
    // Intervals are in element order: start at the first that ends after t begins.
    const auto from = std::partition_point(ivs.begin(), ivs.end(),
                                           [&](const graph::Interval& iv) { return iv.end <= t.begin; });
    for (size_t i = static_cast<size_t>(from - ivs.begin()); i < ivs.size() && ivs[i].begin < t.end; ++i) {
      Range& r = ranges_[t.var][i];
      if (if_depth_) touched_.emplace_back(t.var, i);
      r.first = std::min(r.first, s);
      r.last = std::max(r.last, s);
      if (r.program == kNone) r.program = program_;
      else if (r.program != program_) r.persistent = true;
      const uint32_t b = std::max(t.begin, ivs[i].begin), e = std::min(t.end, ivs[i].end);
      Runs& written = written_[t.var][i];
      if (covers(written, b, e)) continue;
      if (!write) {
        r.persistent = true;  // some element read before it is written
      } else {
        if (undo_depth_) log_.push_back({t.var, i, written});
        add(written, b, e);
      }
    }
  }

  // Sorted, disjoint, non-adjacent runs [begin, end) of elements.
  using Runs = std::vector<std::pair<uint32_t, uint32_t>>;
  static bool covers(const Runs& rs, uint32_t b, uint32_t e) {
    const auto it = std::partition_point(rs.begin(), rs.end(), [&](const auto& r) { return r.second < e; });
    return it != rs.end() && it->first <= b;
  }
  static void add(Runs& rs, uint32_t b, uint32_t e) {
    // The runs that touch [b, e) merge with it.
    auto lo = std::partition_point(rs.begin(), rs.end(), [&](const auto& r) { return r.second < b; });
    auto hi = std::partition_point(lo, rs.end(), [&](const auto& r) { return r.first <= e; });
    if (lo != hi) b = std::min(b, lo->first), e = std::max(e, std::prev(hi)->second);
    lo = rs.erase(lo, hi);
    rs.insert(lo, {b, e});
  }

  const graph::Graph& g_;
  const Lowered& l_;
  std::vector<std::vector<graph::Interval>> ivs_;
  std::vector<std::vector<Range>> ranges_;
  // Per variable and interval: the elements written unconditionally so far.
  std::vector<std::vector<Runs>> written_;
  // (variable, interval) used in the innermost If; kept only inside an If.
  std::vector<std::pair<uint32_t, size_t>> touched_;
  uint32_t if_depth_ = 0;
  struct Write {  // a write that changed an interval's runs, and the runs before it
    uint32_t var;
    size_t interval;
    Runs before;
  };
  std::vector<Write> log_;  // kept only inside a Repeat or an If: nothing undoes the rest
  uint32_t undo_depth_ = 0;
  std::vector<std::pair<uint32_t, uint32_t>> repeats_;  // each Repeat's steps [first, last]
  static constexpr uint32_t kExchangeStep = kNone, kHostStep = kNone - 1;
  std::vector<uint32_t> steps_;  // per step: its compute set, or kExchangeStep / kHostStep
  std::vector<std::pair<uint32_t, uint32_t>> program_steps_;
  uint32_t step_ = 0, program_ = 0;
  std::vector<Region> landing_;  // destinations of device memory reads not landed yet
};

// A variable's intervals on one tile with one live range, placed together.
struct Block {
  uint32_t var, tile, first, last, bytes = 0;
  bool persistent;
};

std::string kilobytes(uint64_t bytes) {
  return bytes < 10240 ? std::to_string(bytes) + " bytes" : std::to_string((bytes + 512) / 1024) + " KB";
}

// The most bytes live at once among `blocks` (bytes, first, last), and the first step at
// which they are.
struct Peak {
  uint32_t bytes = 0, step = 0;
};
Peak peak(const std::vector<std::tuple<uint32_t, uint32_t, uint32_t>>& blocks) {
  std::vector<std::pair<uint64_t, int64_t>> events;  // (time, +/- bytes); ends after starts
  for (const auto& [bytes, first, last] : blocks) {
    events.emplace_back(uint64_t{first} * 2, bytes);
    events.emplace_back(uint64_t{last} * 2 + 1, -int64_t{bytes});
  }
  std::sort(events.begin(), events.end());
  int64_t now = 0, most = 0;
  uint64_t when = 0;
  for (const auto& [time, delta] : events)
    if ((now += delta) > most) most = now, when = time;
  return {static_cast<uint32_t>(most), static_cast<uint32_t>(when / 2)};
}

// When `tile`'s tensors peak (its blocks, `mine`): the bytes live then, the step, what of it
// is kept for the whole run, and the temporaries live then, largest first.
struct TilePeak {
  uint32_t bytes = 0, step = 0;
  uint64_t kept = 0;
  std::vector<const Block*> temps;
};
TilePeak tile_peak(const graph::Graph& g, const std::vector<Block>& blocks, std::vector<uint32_t> mine) {
  std::sort(mine.begin(), mine.end());  // in block order: ties keep the order of the variables
  std::vector<std::tuple<uint32_t, uint32_t, uint32_t>> spans;
  for (uint32_t k : mine)
    if (!g.variables()[blocks[k].var].hidden) spans.emplace_back(blocks[k].bytes, blocks[k].first, blocks[k].last);
  TilePeak p;
  const Peak most = peak(spans);
  p.bytes = most.bytes, p.step = most.step;
  for (uint32_t k : mine) {
    const Block& b = blocks[k];
    if (g.variables()[b.var].hidden || b.first > p.step || b.last < p.step) continue;
    if (b.persistent) p.kept += b.bytes;
    else p.temps.push_back(&b);
  }
  std::stable_sort(p.temps.begin(), p.temps.end(), [](const Block* a, const Block* b) { return a->bytes > b->bytes; });
  return p;
}

// A line for the OOM report: the step at which `tile`'s tensors peak, and what is live then:
// what is kept for the whole run, and the largest temporaries.
std::string peak_report(const graph::Graph& g, const Liveness& live, const TilePeak& p, uint32_t tile) {
  std::string s = "tile " + std::to_string(tile) + "'s tensors peak at " + live.step_name(p.step) + ": " +
                  kilobytes(p.bytes) + " live, " + kilobytes(p.kept) + " of it kept for the whole run (weights, " +
                  "streams, state), the rest in " + std::to_string(p.temps.size()) + " temporaries; the largest:";
  for (size_t i = 0; i < p.temps.size() && i < 6; ++i)
    s += (i ? ", " : " ") + g.variables()[p.temps[i]->var].name + " " + kilobytes(p.temps[i]->bytes);
  return s;
}

}  // namespace

uint32_t MemoryPlan::addr_of(const Region& t) const {
  // A variable's placed intervals are in element order: the first that ends after t begins.
  const std::vector<Placed>& ps = tensors.at(t.var);
  const auto p = std::partition_point(ps.begin(), ps.end(), [&](const Placed& q) { return q.end <= t.begin; });
  if (p != ps.end() && p->begin <= t.begin) return p->addr + (t.begin - p->begin) * kWord;
  throw graph::GraphError("no address for element " + std::to_string(t.begin) + " of tensor " + std::to_string(t.var));
}

MemoryPlan plan_memory(const graph::Graph& g, const Lowered& l, ExchangePlan& x, const exe::FirmwareLayout& fw,
                       bool liveness) {
  const uint32_t tiles = g.target().tiles;
  MemoryPlan m;
  m.sram_end = arch::kSramBase + g.target().sram_bytes;
  m.tiles.resize(tiles);
  m.vertex_state.assign(g.vertices().size(), 0);
  m.tensors.resize(g.variables().size());
  std::vector<TileAllocator> alloc(tiles, TileAllocator(fw.firmware_end, m.sram_end));

  // Blocks: the intervals of a variable on one tile with one live range, placed together
  // (packing.h); then the send lists can repeat runs within them (fold_sends).
  const Liveness live(g, l, liveness);
  m.program_steps = live.program_steps();
  std::vector<Block> blocks;
  Packing pack;
  pack.intervals = &live.intervals();
  pack.slots.resize(g.variables().size());
  for (uint32_t v = 0; v < g.variables().size(); ++v) {
    const auto& ivs = live.intervals(v);
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, uint32_t> index;  // (tile, first, last) -> block
    for (size_t i = 0; i < ivs.size(); ++i) {
      const auto& r = live.range(v, i);
      const auto [it, added] = index.try_emplace({ivs[i].tile, r.first, r.last}, static_cast<uint32_t>(blocks.size()));
      if (added) blocks.push_back({v, ivs[i].tile, r.first, r.last, 0, r.persistent});
      Block& b = blocks[it->second];
      pack.slots[v].push_back({it->second, b.bytes});
      b.bytes += interval_bytes(ivs[i].end - ivs[i].begin);
    }
  }
  fold_sends(x, pack);

  // Per tile: its vertices in id order and its vertex count per compute set (one pass over
  // the vertices, not one per tile).
  std::vector<std::vector<uint32_t>> tile_vertices(tiles);
  std::vector<std::vector<uint32_t>> cs_counts(tiles, std::vector<uint32_t>(g.compute_sets().size(), 0));
  for (uint32_t v = 0; v < g.vertices().size(); ++v) {
    const graph::VertexData& d = g.vertices()[v];
    tile_vertices[d.tile].push_back(v);
    ++cs_counts[d.tile][d.compute_set];
  }
  parallel_for(tiles, [&](uint32_t t) {  // each tile on its own
    MemoryPlan::Tile& mt = m.tiles[t];
    TileAllocator& a = alloc[t];
    exe::TileMemory& u = mt.usage;
    u.stack = fw.stack_bytes();
    u.code = fw.firmware_end - arch::kSramBase - fw.stack_bytes();
    auto take = [&](uint32_t bytes, uint32_t& category) {
      category += bytes;
      return a.alloc(bytes);
    };
    // Control: programs and tables.
    for (const Lowered::Program& p : l.programs)
      mt.programs.push_back(take(static_cast<uint32_t>(p.words.size()) * kWord, u.control));
    const auto n = [](size_t k) { return static_cast<uint32_t>(k); };
    mt.cs_table = take(n(g.compute_sets().size()) * sizeof(arch::ComputeSetEntry), u.control);
    mt.xchg_table = take(n(l.exchanges.size()) * sizeof(arch::ExchangeEntry), u.control);
    mt.stream_table = take(n(l.host_syncs.size()) * sizeof(arch::StreamEntry), u.control);
    mt.cond_table = take(n(l.conditions.size()) * kWord, u.control);
    // Vertex state: per compute set the tile's Vertex array, then the records.
    for (uint32_t count : cs_counts[t]) mt.vertex_arrays.push_back(take(count * sizeof(arch::Vertex), u.vertex_state));
    for (uint32_t v : tile_vertices[t]) m.vertex_state[v] = take(n(g.vertices()[v].fields.size()) * kWord, u.vertex_state);
    // Send lists.
    for (const ExchangePlan::Exchange& e : x.exchanges) {
      uint32_t slots = 0;
      for (const ExchangePlan::Transfer& tr : e.sends[t]) slots += tr.slots();
      mt.send_lists.push_back(take(slots * sizeof(arch::SendEntry), u.send_lists));
    }
  });
  // Tensors, block by block: landing buffers (hidden) first, then the user's persistent
  // ones, then the rest, each by its live range. Within the landing buffers and within the
  // rest, the largest go first (greedy by size): in creation order, small early temporaries
  // split the space that later large ones need.
  std::vector<std::vector<std::tuple<uint32_t, uint32_t, uint32_t>>> landing(tiles), user(tiles);
  std::vector<uint32_t> order;
  std::vector<std::vector<uint32_t>> tile_order(tiles);  // per tile: its blocks in placing order
  for (int pass = 0; pass < 3; ++pass) {
    order.clear();
    for (uint32_t k = 0; k < blocks.size(); ++k) {
      const Block& b = blocks[k];
      const bool hidden = g.variables()[b.var].hidden;
      if (hidden != (pass == 0) || (pass == 1 && !b.persistent) || (pass == 2 && b.persistent)) continue;
      order.push_back(k);
    }
    std::stable_sort(order.begin(), order.end(), [&](uint32_t p, uint32_t q) {
      return blocks[p].bytes != blocks[q].bytes ? blocks[p].bytes > blocks[q].bytes : blocks[p].first < blocks[q].first;
    });
    for (uint32_t k : order) tile_order[blocks[k].tile].push_back(k);
  }
  std::vector<uint32_t> block_addr(blocks.size(), 0);
  parallel_for(tiles, [&](uint32_t t) {
    for (uint32_t k : tile_order[t]) block_addr[k] = alloc[t].alloc_live(blocks[k].bytes, 8, blocks[k].first, blocks[k].last);
  });
  for (uint32_t v = 0; v < g.variables().size(); ++v) {
    const bool hidden = g.variables()[v].hidden;
    const auto& ivs = live.intervals(v);
    for (size_t i = 0; i < ivs.size(); ++i) {
      const graph::Interval& iv = ivs[i];
      const auto& r = live.range(v, i);
      const Packing::Slot& s = pack.slots[v][i];
      (hidden ? landing : user)[iv.tile].emplace_back((iv.end - iv.begin) * kWord, r.first, r.last);
      m.tensors[v].push_back({iv.tile, iv.begin, iv.end, block_addr[s.block] + s.offset,
                              r.persistent ? exe::LiveRange{} : exe::LiveRange{r.first, r.last}});
    }
  }
  // Per tile, what lies there (variable, interval), for the errors' largest tensors.
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> placed(tiles);
  for (uint32_t v = 0; v < m.tensors.size(); ++v)
    for (uint32_t i = 0; i < m.tensors[v].size(); ++i) placed[m.tensors[v][i].tile].emplace_back(v, i);
  uint32_t worst = tiles;  // the fullest tile that does not fit
  TilePeak worst_peak;
  for (uint32_t t = 0; t < tiles; ++t) {
    m.tiles[t].usage.landing = peak(landing[t]).bytes;
    m.tiles[t].usage.tensors = peak(user[t]).bytes;
    m.tiles[t].needed = alloc[t].needed();
    if (m.tiles[t].needed <= alloc[t].available()) continue;
    m.errors.push_back("tile " + std::to_string(t) + " needs " + std::to_string(m.tiles[t].needed) +
                       " bytes above the firmware, " + std::to_string(alloc[t].available()) +
                       " available; largest tensors there: " + largest_tensors(g, m, placed[t]));
    TilePeak p = tile_peak(g, blocks, tile_order[t]);
    std::vector<std::pair<uint32_t, uint32_t>>& temps = m.peak_temporaries.emplace_back();
    for (const Block* b : p.temps) temps.emplace_back(b->var, b->bytes);
    if (worst == tiles || m.tiles[t].needed > m.tiles[worst].needed) worst = t, worst_peak = std::move(p);
  }
  // What is live at the fullest tile's peak, and when.
  if (worst < tiles) m.peak = peak_report(g, live, worst_peak, worst);
  return m;
}

}  // namespace tessera::passes
