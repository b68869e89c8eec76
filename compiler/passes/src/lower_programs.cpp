// Pass: lower the graph's program trees into the global control programs.
//
// Transformations:
//   - Sequence: flattened inline (nested Sequences vanish).
//   - Execute(cs) -> [Execute, cs].
//   - Copy, and each run of consecutive Copies -> one [Exchange, x] superstep; a Copy that
//     reads or writes what an earlier Copy of the run writes starts a new superstep, so that
//     no exchange writes an address twice or reads what it writes.
//   - Repeat(n, body) -> [Repeat, n, words(body)] body.
//   - If(c, then, else) -> [Exchange, b] broadcasting c to a hidden [tiles] tensor (one word
//     on every tile), then [If, k, words(then), words(else)] then else, where condition k
//     points each tile at its copy.
//   - HostWrite/HostRead -> [HostSync, s], one host sync (one exe::Stream) per occurrence.
//     The program's list of host syncs is the sequence a run makes (a Repeat's body's syncs
//     count times), so the host knows which stream each sync moves; a host sync inside an
//     If is an error (which branch runs is known only on the device).
//   - every program ends with [End].
// Exchanges, host syncs and conditions are numbered globally over all programs: the tiles
// have one set of tables, and each program only names its own entries.
#include <map>

#include "tessera/passes/passes.h"

namespace tessera::passes {
namespace {

using arch::kCtlEnd;
using graph::Program;

class Lowering {
 public:
  Lowering(graph::Graph& g, Lowered& out) : g_(g), out_(out) {}

  void program(const std::string& name, const Program& p) {
    prog_ = &out_.programs.emplace_back();
    prog_->name = name;
    lower(p, prog_->words);
    flush(prog_->words);
    prog_->words.push_back(kCtlEnd);
  }

 private:
  // Ends the current run of Copies: one Exchange superstep.
  void flush(std::vector<uint32_t>& w) {
    if (pending_.empty()) return;
    w.insert(w.end(), {arch::kCtlExchange, static_cast<uint32_t>(out_.exchanges.size())});
    out_.exchanges.push_back({std::move(pending_)});
    pending_.clear();
    reads_.clear();
    writes_.clear();
  }

  // Whether `c` must start a new superstep after the pending copies (a data hazard): it
  // reads or writes what a pending copy writes, or writes what one reads. The pending
  // ranges are indexed by variable, so a long run of copies stays linear.
  bool conflicts(const Program& c) const {
    auto overlaps = [](const std::map<uint32_t, std::vector<std::pair<uint32_t, uint32_t>>>& ranges, const Region& t) {
      auto it = ranges.find(t.var);
      if (it == ranges.end()) return false;
      for (const auto& [b, e] : it->second)
        if (b < t.end && t.begin < e) return true;
      return false;
    };
    return overlaps(writes_, c.src) || overlaps(writes_, c.dst) || overlaps(reads_, c.dst);
  }

  void add_pending(const Region& src, const Region& dst) {
    pending_.emplace_back(src, dst);
    reads_[src.var].emplace_back(src.begin, src.end);
    writes_[dst.var].emplace_back(dst.begin, dst.end);
  }

  // A body lowered on its own (Repeat, If): its words, with its copies flushed inside.
  std::vector<uint32_t> body(const Program& p) {
    std::vector<uint32_t> w;
    lower(p, w);
    flush(w);
    return w;
  }

  void lower(const Program& p, std::vector<uint32_t>& w) {
    using K = Program::Kind;
    if (p.kind == K::kCopy) {
      if (conflicts(p)) flush(w);
      add_pending(p.src, p.dst);
      return;
    }
    if (p.kind == K::kSequence) {
      for (const Program& c : p.body) lower(c, w);
      return;
    }
    flush(w);
    switch (p.kind) {
      case K::kExecute: w.insert(w.end(), {arch::kCtlExecute, p.compute_set}); break;
      case K::kRepeat: {
        const size_t first_sync = prog_->host_syncs.size();
        const auto b = body(p.body[0]);
        // The body's host syncs happen `count` times.
        const std::vector<uint32_t> once(prog_->host_syncs.begin() + first_sync, prog_->host_syncs.end());
        prog_->host_syncs.resize(first_sync);
        for (uint32_t i = 0; i < p.count; ++i) prog_->host_syncs.insert(prog_->host_syncs.end(), once.begin(), once.end());
        w.insert(w.end(), {arch::kCtlRepeat, p.count, static_cast<uint32_t>(b.size())});
        w.insert(w.end(), b.begin(), b.end());
        break;
      }
      case K::kIf: {
        const uint32_t k = static_cast<uint32_t>(out_.conditions.size());
        const auto dtype = g_.variables()[p.src.var].dtype;
        Tensor copies = g_.add_hidden_variable(dtype, {g_.target().tiles}, "__cond" + std::to_string(k));
        for (uint32_t t = 0; t < g_.target().tiles; ++t) g_.set_tile_mapping(copies.slice(t, t + 1), t);
        out_.conditions.push_back({p.src, copies});
        for (uint32_t t = 0; t < g_.target().tiles; ++t) add_pending(p.src, copies.slice(t, t + 1));  // to every tile
        flush(w);
        const size_t syncs_before = prog_->host_syncs.size();
        const auto then_words = body(p.body[0]), else_words = body(p.else_body[0]);
        if (prog_->host_syncs.size() != syncs_before)
          throw graph::GraphError("program '" + prog_->name +
                                  "': a host stream inside an If (the host cannot know which branch runs)");
        w.insert(w.end(), {arch::kCtlIf, k, static_cast<uint32_t>(then_words.size()),
                           static_cast<uint32_t>(else_words.size())});
        w.insert(w.end(), then_words.begin(), then_words.end());
        w.insert(w.end(), else_words.begin(), else_words.end());
        break;
      }
      case K::kHostWrite:
      case K::kHostRead: {
        const bool in = p.kind == K::kHostWrite;
        // A device memory stream: HostWrite reads its bytes, HostRead writes them back.
        const bool dram = g_.streams()[p.stream].from_device_memory;
        const uint32_t s = static_cast<uint32_t>(out_.host_syncs.size());
        std::string name = g_.streams()[p.stream].name;
        const uint32_t reuse = uses_[name]++;
        if (reuse) name += "#" + std::to_string(reuse);
        out_.host_syncs.push_back({p.stream, in ? p.dst : p.src,
                                   dram ? (in ? exe::StreamDirection::kDeviceMemoryToDevice
                                              : exe::StreamDirection::kDeviceToDeviceMemory)
                                   : in ? exe::StreamDirection::kHostToDevice
                                        : exe::StreamDirection::kDeviceToHost,
                                   name});
        prog_->host_syncs.push_back(s);
        w.insert(w.end(), {arch::kCtlHostSync, s});
        break;
      }
      default: break;
    }
  }

  graph::Graph& g_;
  Lowered& out_;
  Lowered::Program* prog_ = nullptr;
  std::vector<std::pair<Region, Region>> pending_;
  // The pending copies' source and destination ranges, by variable.
  std::map<uint32_t, std::vector<std::pair<uint32_t, uint32_t>>> reads_, writes_;
  std::map<std::string, uint32_t> uses_;
};

}  // namespace

Lowered lower_programs(graph::Graph& g) {
  Lowered out;
  Lowering l(g, out);
  // Lowering adds hidden variables to g, never programs: the list stays put.
  for (const auto& [name, p] : g.programs()) l.program(name, p);
  return out;
}

}  // namespace tessera::passes
