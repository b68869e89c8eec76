// The exchange phase of a superstep, as the emulator applies it at the barrier: every tile's
// send list is read and checked first, then all words move at once. The compiler promises
// that no exchange writes an address twice, writes where a send list of the same exchange
// reads, or writes firmware code, data or stack; the emulator checks every one of those.
#include <algorithm>
#include <cstring>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "tessera/arch/control.h"
#include "tessera/arch/device_regs.h"
#include "tessera/arch/tile_map.h"
#include "hex.h"
#include "thread_pool.h"
#include "tessera/emu/machine.h"
#include "tessera/emu/send_list.h"

namespace tessera::emu {
namespace {

struct Range {
  uint32_t begin, end;  // tile addresses, [begin, end)
  uint32_t tile;        // the tile whose send list this came from
};

// A tile's place in the mesh.
struct Place {
  int32_t x, y;
};

uint32_t hops(Place a, Place b) { return static_cast<uint32_t>(std::abs(a.x - b.x) + std::abs(a.y - b.y)); }

// The working lists of one exchange. The send lists are read in parallel over blocks of
// source tiles (tasks), each task into flat lists of its own (a vector per destination
// grew in every exchange of a program run once); the writes are then gathered by
// destination, in tile order.
struct Scratch {
  struct Write {
    uint32_t node;  // the destination tile
    Range range;
  };
  std::vector<std::vector<Write>> writes;         // [task]
  std::vector<std::vector<uint32_t>> at;          // [task][destination]: its writes' place in by_dest
  std::vector<Range> by_dest;                     // every write, by destination, in tile order
  std::vector<uint64_t> dest_begin;               // [destination], n + 1: its writes in by_dest
  std::vector<std::vector<Range>> sources;        // [task]: what the lists of its tiles read
  std::vector<uint32_t> source_begin, source_end; // [tile]: its list's reads in its task's sources
  // Each tile's send list where it lies in its SRAM: the exchange writes no list (checked
  // below, or the lists are byte for byte lists whose exchange was checked).
  std::vector<std::span<const arch::SendEntry>> lists;
  std::vector<uint64_t> sent, received, runs;
  std::vector<uint64_t> bytes;  // [tile]: what its list moves, for the copies' blocks
  std::vector<uint32_t> cut;    // [task], tasks + 1: the copies' blocks of source tiles
  // The parallel parts (below): each task's words received per tile (all zero between
  // exchanges: the sum clears what it reads) and the tiles it wrote, and each task's or
  // destination's first failed check.
  std::vector<std::vector<uint64_t>> task_received;
  std::vector<uint32_t> task_hops, task_low, task_high;
  // [tile]: its place in the mesh, what every entry moved reads without a division, for a
  // mesh of places_cols columns.
  std::vector<Place> places;
  uint32_t places_cols = 0;
  struct Failure {
    uint32_t tile = 0, code = 0, at = 0;
    std::string what;
  };
  std::vector<Failure> failures, task_failures;
  // Exchanges that passed every check, by their shapes' hashes (each active tile, its
  // list's place and length): the shapes of those checked once, and the keys (below) of
  // those checked twice, a few a shape.
  std::unordered_set<uint64_t> shapes;
  std::unordered_map<uint64_t, std::vector<std::string>> checked;
  size_t checked_keys = 0;
  void reset(uint32_t n) {
    lists.assign(n, {});
    sent.assign(n, 0);
    received.assign(n, 0);
    runs.assign(n, 0);
  }
  // The working lists of the checks.
  void reset_checks(uint32_t n, uint32_t tasks) {
    if (writes.size() < tasks) writes.resize(tasks);
    if (sources.size() < tasks) sources.resize(tasks);
    if (at.size() < tasks) at.resize(tasks);
    for (uint32_t k = 0; k < tasks; ++k) {
      writes[k].clear();
      sources[k].clear();
      at[k].assign(n, 0);
    }
    source_begin.assign(n, 0);
    source_end.assign(n, 0);
    failures.resize(n);
    for (Failure& f : failures) f.code = 0;
    task_failures.resize(tasks);
    for (Failure& f : task_failures) f.code = 0;
  }
};

}  // namespace

Machine::ExchangeCost Machine::apply_exchange() {
  const uint32_t n = tile_count();
  const uint32_t sram_end = arch::kSramBase + target_.sram_bytes;
  // The parts that are independent per destination or per source tile run on the pool, over
  // blocks of tiles (several per thread, as exchanges are uneven); what they find is
  // reported in tile order afterwards, so nothing depends on the thread count. A small
  // exchange runs on this thread alone (MachineOptions::pooled_exchange_entries).
  uint64_t entries = 0;
  for (uint32_t t = 0; t < n; ++t)
    if (syncs_[t].xchg_started) entries += syncs_[t].xchg_entries;
  const bool pooled = options_.threads > 1 && entries >= options_.pooled_exchange_entries;
  const uint32_t tasks = pooled ? std::min<uint32_t>(n, 8 * options_.threads) : 1;
  const auto over_tiles = [&](auto&& fn) {
    pool_->run(tasks, [&](size_t k) {
      fn(static_cast<uint32_t>(n * k / tasks), static_cast<uint32_t>(n * (k + 1) / tasks), k);
    });
  };
  // Kept between supersteps (per thread, as any thread may drive a machine), so that a
  // superstep allocates nothing once they have grown. The tasks below reach it through this
  // reference, the driving thread's (a thread_local named in a task would be the worker's).
  thread_local Scratch driver_scratch;
  Scratch& scratch = driver_scratch;
  scratch.reset(n);
  auto& lists = scratch.lists;
  // The messages are built only when a check fails.
  const auto when = [&] { return " in the exchange of superstep " + std::to_string(superstep_); };

  // An exchange whose send lists are, byte for byte, lists that passed every check below
  // on a machine of this shape passes them again, so those checks are skipped (sorting every
  // tile's writes was most of an exchange's time). The key: the machine's shape, each
  // active tile, its list's place and length (together, the exchange's shape), then each
  // list's contents. Only an exchange whose shape passed the checks before is compared with
  // the keys stored for that shape, where its lists lie (no copy, no hash of the contents:
  // those were a tenth of a repeated AlexNet inference's serial part); its key is built (a
  // copy of every list) only to be stored when it passes the checks again. A program run
  // once (one image's inference) reads each list only to check and to move its words, a
  // training loop checks each exchange twice.
  const auto tile_list = [&](uint32_t t) {
    const SyncState& s = syncs_[t];
    return std::span<const arch::SendEntry>(
        reinterpret_cast<const arch::SendEntry*>(sram_->tile(t).data() + (s.xchg_list - arch::kSramBase)), s.xchg_entries);
  };
  const auto active = [&](uint32_t t) { return syncs_[t].xchg_started && syncs_[t].xchg_entries != 0; };
  // The tile's send list lies word-aligned inside SRAM (tile_list may read it).
  const auto list_inside = [&](const SyncState& s) {
    const uint64_t list_bytes = uint64_t{s.xchg_entries} * sizeof(arch::SendEntry);
    return !(s.xchg_list & 3) && s.xchg_list >= arch::kSramBase && s.xchg_list + list_bytes <= sram_end;
  };
  bool keyed = true;
  uint64_t hash = 0;
  const auto mix = [&](uint64_t v) { hash = (hash ^ v) * 0x9e3779b97f4a7c15ull; hash ^= hash >> 29; };
  mix(n);
  mix(sram_end);
  mix(layout_.firmware_end);
  for (uint32_t t = 0; t < n && keyed; ++t) {
    if (!active(t)) continue;
    const SyncState& s = syncs_[t];
    keyed = list_inside(s);
    mix(t);
    mix(s.xchg_list);
    mix(s.xchg_entries);
  }
  const uint64_t shape = hash;
  const bool seen_shape = keyed && scratch.shapes.contains(shape);
  // The key's parts in order, each handed to `part(bytes, length)` until it returns false.
  const auto key_parts = [&](auto&& part) {
    const auto word = [&](uint64_t v) { return part(&v, sizeof v); };
    if (!word(n) || !word(sram_end) || !word(layout_.firmware_end)) return false;
    for (uint32_t t = 0; t < n; ++t) {
      if (!active(t)) continue;
      const SyncState& s = syncs_[t];
      const auto l = tile_list(t);
      if (!word(t) || !word(s.xchg_list) || !word(s.xchg_entries) || !part(l.data(), l.size_bytes())) return false;
    }
    return true;
  };
  const auto matches = [&](const std::string& key) {
    size_t at = 0;
    return key_parts([&](const void* p, size_t bytes) {
             if (key.size() - at < bytes || std::memcmp(key.data() + at, p, bytes) != 0) return false;
             at += bytes;
             return true;
           }) &&
           at == key.size();
  };
  const auto stored = seen_shape ? scratch.checked.find(shape) : scratch.checked.end();
  if (stored != scratch.checked.end() && std::any_of(stored->second.begin(), stored->second.end(), matches)) {
    for (uint32_t t = 0; t < n; ++t)
      if (active(t)) lists[t] = tile_list(t);
  } else {
    scratch.reset_checks(n, static_cast<uint32_t>(tasks));
    // Read and check every send list, each source tile on its own (in parallel): each
    // entry on its own, then its runs kept as the writes of its destination. Each task stops
    // at its first failure; the first in tile order is reported.
    const SendListBounds bounds{n, target_.host_nodes, sram_end, layout_.firmware_end};
    const auto read_list = [&](uint32_t t, size_t k) {
      const SyncState& s = syncs_[t];
      if (!s.xchg_started || s.xchg_entries == 0) return true;
      if (!list_inside(s)) {
        scratch.task_failures[k] = {t, arch::kDevErrXchgBadSource, s.xchg_list,
                                    "tile " + std::to_string(t) + "'s send list at " + hex(s.xchg_list) + " (" +
                                        std::to_string(s.xchg_entries) + " entries) is misaligned or outside SRAM"};
        return false;
      }
      const auto list = lists[t] = tile_list(t);
      auto& sources = scratch.sources[k];
      auto& writes = scratch.writes[k];
      auto& at = scratch.at[k];
      scratch.source_begin[t] = static_cast<uint32_t>(sources.size());
      sources.push_back({s.xchg_list, static_cast<uint32_t>(s.xchg_list + list.size_bytes()), t});
      const uint32_t slots = static_cast<uint32_t>(list.size());
      for (uint32_t e = 0; e < slots; ++e) {
        const uint32_t first = e;
        SendRuns r = decode_send_entry(list, e);
        if (!send_entry_ok(list, first, e, r, bounds)) {
          e = first;
          if (auto bad = read_send_entry(list, s.xchg_list, t, e, bounds, r)) {
            scratch.task_failures[k] = {bad->tile, bad->code, bad->detail, std::move(bad->what)};
            return false;
          }
        }
        if (r.bytes == 0) continue;
        // Each run is a range as a plain entry's, but runs that touch are one range (so an
        // entry never adds more ranges than SRAM / stride).
        const uint64_t last = r.count - 1;
        if (r.src_stride <= r.bytes) {
          sources.push_back({r.src, static_cast<uint32_t>(r.src + last * r.src_stride + r.bytes), t});
        } else {
          for (uint32_t c = 0, a = r.src; c < r.count; ++c, a += r.src_stride) sources.push_back({a, a + r.bytes, t});
        }
        if (r.dst_stride == r.bytes) {
          writes.push_back({r.node, {r.dst, static_cast<uint32_t>(r.dst + last * r.dst_stride + r.bytes), t}});
          ++at[r.node];
        } else {
          for (uint32_t c = 0, a = r.dst; c < r.count; ++c, a += r.dst_stride) writes.push_back({r.node, {a, a + r.bytes, t}});
          at[r.node] += r.count;
        }
      }
      scratch.source_end[t] = static_cast<uint32_t>(sources.size());
      return true;
    };
    over_tiles([&](uint32_t t0, uint32_t t1, size_t k) {
      uint64_t slots = 0;  // a range per entry, and one per list, as a rule (a list fits in SRAM)
      for (uint32_t t = t0; t < t1; ++t)
        if (active(t)) slots += std::min<uint64_t>(syncs_[t].xchg_entries, target_.sram_bytes / 16) + 1;
      scratch.writes[k].reserve(slots);
      scratch.sources[k].reserve(slots);
      for (uint32_t t = t0; t < t1 && read_list(t, k); ++t) {}
    });
    for (const Scratch::Failure& f : scratch.task_failures)
      if (f.code != 0) {
        fail_device(f.tile, f.code, f.at, f.what + when());
        return {};
      }
    // Each destination's writes in one stretch of by_dest, task by task (so in tile order):
    // the counts become each task's first place in it, and each task moves its own.
    auto& dest_begin = scratch.dest_begin;
    dest_begin.assign(n + 1, 0);
    uint64_t total = 0;
    for (uint32_t d = 0; d < n; ++d) {
      dest_begin[d] = total;
      for (uint32_t k = 0; k < tasks; ++k) {
        const uint32_t count = scratch.at[k][d];
        scratch.at[k][d] = static_cast<uint32_t>(total);
        total += count;
      }
    }
    dest_begin[n] = total;
    scratch.by_dest.resize(total);
    pool_->run(tasks, [&](size_t k) {
      for (const Scratch::Write& w : scratch.writes[k]) scratch.by_dest[scratch.at[k][w.node]++] = w.range;
    });

    // No address written twice; nothing written where a send list reads. Each destination
    // on its own (in parallel); the first failure in tile order is reported.
    auto& failures = scratch.failures;
    const auto check = [&](uint32_t d, size_t k_of_d) {
      const std::span<Range> w(scratch.by_dest.data() + dest_begin[d], dest_begin[d + 1] - dest_begin[d]);
      if (w.empty()) return;
      auto by_begin = [](const Range& a, const Range& b) { return a.begin < b.begin; };
      std::sort(w.begin(), w.end(), by_begin);
      for (size_t i = 1; i < w.size(); ++i) {
        if (w[i].begin < w[i - 1].end) {
          failures[d] = {d, arch::kDevErrXchgDoubleWrite, w[i].begin,
                         "tiles " + std::to_string(w[i - 1].tile) + " and " + std::to_string(w[i].tile) +
                             " both write tile " + std::to_string(d) + " at " + hex(w[i].begin)};
          return;
        }
      }
      const std::span<Range> src(scratch.sources[k_of_d].data() + scratch.source_begin[d],
                                 scratch.source_end[d] - scratch.source_begin[d]);
      std::sort(src.begin(), src.end(), by_begin);
      size_t j = 0;
      for (const Range& r : w) {
        while (j < src.size() && src[j].end <= r.begin) ++j;
        for (size_t k = j; k < src.size() && src[k].begin < r.end; ++k) {
          if (src[k].end > r.begin) {
            const uint32_t at = std::max(r.begin, src[k].begin);
            failures[d] = {d, arch::kDevErrXchgWriteSource, at,
                           "tile " + std::to_string(r.tile) + " writes tile " + std::to_string(d) + " at " + hex(at) +
                               ", which tile " + std::to_string(d) + "'s send list reads"};
            return;
          }
        }
      }
    };
    // The same blocks of tiles as the reading above, so tile d's reads are in task k's list.
    over_tiles([&](uint32_t d0, uint32_t d1, size_t k) {
      for (uint32_t d = d0; d < d1; ++d) check(d, k);
    });
    for (uint32_t d = 0; d < n; ++d)
      if (failures[d].code != 0) {
        fail_device(d, failures[d].code, failures[d].at, failures[d].what + when());
        return {};
      }

    if (keyed) {  // bounded: a few programs' exchanges
      if (!seen_shape) {
        if (scratch.shapes.size() >= 4096) scratch.shapes.clear();
        scratch.shapes.insert(shape);
      } else {
        if (scratch.checked_keys >= 1024) {
          scratch.checked.clear();
          scratch.checked_keys = 0;
        }
        std::vector<std::string>& keys = scratch.checked[shape];
        if (keys.size() >= 4) {
          keys.erase(keys.begin());
          --scratch.checked_keys;
        }
        std::string& key = keys.emplace_back();
        ++scratch.checked_keys;
        key_parts([&](const void* p, size_t bytes) {
          key.append(static_cast<const char*>(p), bytes);
          return true;
        });
      }
    }
  }

  // Move the words. Cost, as the RTL spends it: a tile's SRAM port B carries both the words
  // its engine reads to send and the words its NI writes as they arrive, one a cycle, and
  // each send-list entry is read through it too; the busiest tile sets the phase, and the
  // farthest flit adds its hops.
  // Sending tiles in parallel: the checks above (or an earlier exchange with the same lists)
  // leave no two writes to one address and no write where a list reads, so the copies are
  // independent. Each task counts the words each tile receives; the counts are added after.
  ExchangeCost cost;
  auto& sent = scratch.sent;
  auto& received = scratch.received;
  auto& sent_runs = scratch.runs;
  auto& task_received = scratch.task_received;
  auto& task_hops = scratch.task_hops;
  auto& task_low = scratch.task_low;
  auto& task_high = scratch.task_high;
  // The copies in blocks of source tiles of about equal bytes: a layer's senders are often a
  // few neighbouring tiles, and blocks of equal tile counts left one task nearly all of
  // them. They run on the pool too where the lists are short but move many bytes
  // (MachineOptions::pooled_exchange_bytes: ResNet-18's exchanges with `--plan host`, a few
  // large entries, had run on the driving thread alone). An entry counts 64 bytes besides
  // its words (its decoding and its call).
  uint32_t copy_tasks = tasks;
  auto& cut = scratch.cut;
  if (options_.threads > 1) {
    auto& bytes = scratch.bytes;
    bytes.assign(n, 0);
    uint64_t total = 0;
    for (uint32_t t = 0; t < n; ++t) {
      const auto& l = lists[t];
      for (uint32_t e = 0; e < l.size(); ++e) {
        const SendRuns r = decode_send_entry(l, e);
        bytes[t] += 64 + uint64_t{r.bytes} * r.count;
      }
      total += bytes[t];
    }
    if (total >= options_.pooled_exchange_bytes) copy_tasks = std::min<uint32_t>(n, 8 * options_.threads);
    cut.assign(copy_tasks + 1, n);
    cut[0] = 0;
    uint64_t so_far = 0;
    for (uint32_t t = 0, k = 1; t < n && k < copy_tasks; ++t) {
      so_far += bytes[t];
      while (k < copy_tasks && so_far * copy_tasks >= total * k) cut[k++] = t + 1;
    }
  } else {
    cut.assign({0, n});
  }
  if (task_received.size() < copy_tasks) task_received.resize(copy_tasks);
  task_hops.assign(copy_tasks, 0);
  task_low.assign(copy_tasks, n);
  task_high.assign(copy_tasks, 0);
  auto& places = scratch.places;
  if (places.size() != n || scratch.places_cols != target_.mesh_cols) {
    places.resize(n);
    scratch.places_cols = target_.mesh_cols;
    for (uint32_t t = 0; t < n; ++t)
      places[t] = {static_cast<int32_t>(t % target_.mesh_cols), static_cast<int32_t>(t / target_.mesh_cols)};
  }
  pool_->run(copy_tasks, [&](size_t k) {
    const uint32_t t0 = cut[k], t1 = cut[k + 1];
    std::vector<uint64_t>& recv = task_received[k];
    if (recv.size() != n) recv.assign(n, 0);
    uint32_t low = n, high = 0;
    for (uint32_t t = t0; t < t1; ++t) {
      uint64_t runs = 0;  // runs of strided entries after their first
      const auto& l = lists[t];
      for (uint32_t e = 0; e < l.size(); ++e) {
        const SendRuns r = decode_send_entry(l, e);  // checked above
        if (r.bytes == 0) continue;
        runs += r.count - 1;
        uint8_t* dst = sram_->tile(r.node).data() + (r.dst - arch::kSramBase);
        const uint8_t* src = sram_->tile(t).data() + (r.src - arch::kSramBase);
        for (uint32_t c = 0; c < r.count; ++c, dst += r.dst_stride, src += r.src_stride) std::memcpy(dst, src, r.bytes);
        const uint64_t words = uint64_t{r.bytes / 4} * r.count;
        sent[t] += words;
        recv[r.node] += words;
        low = std::min(low, r.node);
        high = std::max(high, r.node + 1);
        task_hops[k] = std::max(task_hops[k], hops(places[t], places[r.node]));
      }
      syncs_[t].xchg_sent = static_cast<uint32_t>(sent[t]);
      sent_runs[t] = runs;
    }
    task_low[k] = low;
    task_high[k] = high;
  });
  const uint32_t max_hops = *std::max_element(task_hops.begin(), task_hops.end());
  // Task by task, each a pass in order over the tiles it wrote (destination by destination,
  // each took a cache miss a task: a quarter of this function's time for AlexNet's 1,472
  // tiles), clearing what it reads for the next exchange.
  for (uint32_t k = 0; k < copy_tasks; ++k) {
    uint64_t* from = task_received[k].data();
    for (uint32_t d = task_low[k]; d < task_high[k]; ++d) received[d] += std::exchange(from[d], 0);
  }
  for (uint32_t d = 0; d < n; ++d) {
    syncs_[d].recv_count += static_cast<uint32_t>(received[d]);
    cost.words += received[d];
  }
  if (std::any_of(lists.begin(), lists.end(), [](const auto& l) { return !l.empty(); })) {
    uint64_t busiest = 0;
    for (uint32_t t = 0; t < n; ++t)
      busiest = std::max(busiest, (sent[t] + received[t]) * arch::kFabricLatency.word_cycles +
                                      lists[t].size() * arch::kFabricLatency.entry_cycles +
                                      sent_runs[t] * arch::kFabricLatency.run_cycles);
    cost.cycles = arch::kFabricLatency.xchg_start + busiest + uint64_t{max_hops} * target_.link_latency;
  }
  return cost;
}

}  // namespace tessera::emu
