// The exchange phase of a superstep, as the emulator applies it at the barrier: every tile's
// send list is read and checked first, then all words move at once. The compiler promises
// that no exchange writes an address twice, writes where a send list of the same exchange
// reads, or writes firmware code, data or stack; the emulator checks every one of those.
#include <algorithm>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "tessera/arch/control.h"
#include "tessera/arch/device_regs.h"
#include "tessera/arch/tile_map.h"
#include "hex.h"
#include "tessera/emu/machine.h"
#include "tessera/emu/send_list.h"

namespace tessera::emu {
namespace {

struct Range {
  uint32_t begin, end;  // tile addresses, [begin, end)
  uint32_t tile;        // the tile whose send list this came from
};

uint32_t hops(const arch::Target& t, uint32_t a, uint32_t b) {
  const int ax = static_cast<int>(a % t.mesh_cols), ay = static_cast<int>(a / t.mesh_cols);
  const int bx = static_cast<int>(b % t.mesh_cols), by = static_cast<int>(b / t.mesh_cols);
  return static_cast<uint32_t>(std::abs(ax - bx) + std::abs(ay - by));
}

// The working lists of one exchange, one per tile.
struct Scratch {
  std::vector<std::vector<Range>> writes, sources;
  // Each tile's send list where it lies in its SRAM: the exchange writes no list (checked
  // below, or the lists are byte for byte lists whose exchange was checked).
  std::vector<std::span<const arch::SendEntry>> lists;
  std::vector<uint64_t> sent, received, runs;
  std::string key;  // this exchange's key (below)
  // Exchanges that passed every check: by their keys' hashes, the keys (those seen twice),
  // and the hashes of those seen once.
  std::unordered_map<uint64_t, std::string> checked;
  std::unordered_set<uint64_t> seen;
  void reset(uint32_t n) {
    for (auto* v : {&writes, &sources}) {
      if (v->size() < n) v->resize(n);
      for (auto& l : *v) l.clear();
    }
    lists.assign(n, {});
    sent.assign(n, 0);
    received.assign(n, 0);
    runs.assign(n, 0);
  }
};

}  // namespace

Machine::ExchangeCost Machine::apply_exchange() {
  const uint32_t n = tile_count();
  const uint32_t sram_end = arch::kSramBase + target_.sram_bytes;
  // Kept between supersteps (per thread, as any thread may drive a machine), so that a
  // superstep allocates nothing once they have grown.
  thread_local Scratch scratch;
  scratch.reset(n);
  auto& writes = scratch.writes;
  auto& sources = scratch.sources;
  auto& lists = scratch.lists;
  // The messages are built only when a check fails.
  const auto when = [&] { return " in the exchange of superstep " + std::to_string(superstep_); };

  // An exchange whose send lists are, byte for byte, lists that passed every check below
  // on a machine of this shape passes them again, so those checks are skipped (sorting every
  // tile's writes was most of an exchange's time). The key: the shape, then each list's
  // tile, place, length and contents. It is hashed where the lists lie, and built (a copy
  // of every list) only to compare with a stored key of the same hash, or to store it when
  // the exchange passes its checks a second time: a program run once (one image's
  // inference) copies no list, a training loop checks each exchange twice.
  const auto tile_list = [&](uint32_t t) {
    const SyncState& s = tiles_[t]->sync();
    return std::span<const arch::SendEntry>(
        reinterpret_cast<const arch::SendEntry*>(tiles_[t]->sram().data() + (s.xchg_list - arch::kSramBase)), s.xchg_entries);
  };
  const auto active = [&](uint32_t t) { return tiles_[t]->sync().xchg_started && tiles_[t]->sync().xchg_entries != 0; };
  bool keyed = true;
  uint64_t hash = 0;
  const auto mix = [&](uint64_t v) { hash = (hash ^ v) * 0x9e3779b97f4a7c15ull; hash ^= hash >> 29; };
  mix(n);
  mix(sram_end);
  mix(layout_.firmware_end);
  for (uint32_t t = 0; t < n && keyed; ++t) {
    if (!active(t)) continue;
    const SyncState& s = tiles_[t]->sync();
    const uint64_t list_bytes = uint64_t{s.xchg_entries} * sizeof(arch::SendEntry);
    keyed = !(s.xchg_list & 3) && s.xchg_list >= arch::kSramBase && s.xchg_list + list_bytes <= sram_end;
    if (!keyed) break;  // the checks below say what is wrong
    mix(t);
    mix(s.xchg_list);
    mix(s.xchg_entries);
    const auto l = tile_list(t);
    mix(std::hash<std::string_view>{}(std::string_view(reinterpret_cast<const char*>(l.data()), list_bytes)));
  }
  std::string& key = scratch.key;
  const auto build_key = [&] {
    key.clear();
    const auto put = [&](uint64_t v) { key.append(reinterpret_cast<const char*>(&v), sizeof v); };
    put(n);
    put(sram_end);
    put(layout_.firmware_end);
    for (uint32_t t = 0; t < n; ++t) {
      if (!active(t)) continue;
      const SyncState& s = tiles_[t]->sync();
      put(t);
      put(s.xchg_list);
      put(s.xchg_entries);
      const auto l = tile_list(t);
      key.append(reinterpret_cast<const char*>(l.data()), l.size_bytes());
    }
  };
  const auto stored = keyed ? scratch.checked.find(hash) : scratch.checked.end();
  if (stored != scratch.checked.end() && (build_key(), key == stored->second)) {
    for (uint32_t t = 0; t < n; ++t)
      if (active(t)) lists[t] = tile_list(t);
  } else {
    // Read and check every send list.
    const SendListBounds bounds{n, target_.host_nodes, sram_end, layout_.firmware_end};
    for (uint32_t t = 0; t < n; ++t) {
      const SyncState& s = tiles_[t]->sync();
      if (!s.xchg_started || s.xchg_entries == 0) continue;
      const uint64_t list_bytes = uint64_t{s.xchg_entries} * sizeof(arch::SendEntry);
      if ((s.xchg_list & 3) || s.xchg_list < arch::kSramBase || s.xchg_list + list_bytes > sram_end) {
        fail_device(t, arch::kDevErrXchgBadSource, s.xchg_list,
                    "tile " + std::to_string(t) + "'s send list at " + hex(s.xchg_list) + " (" +
                        std::to_string(s.xchg_entries) + " entries) is misaligned or outside SRAM" + when());
        return {};
      }
      lists[t] = tile_list(t);
      sources[t].push_back({s.xchg_list, static_cast<uint32_t>(s.xchg_list + list_bytes), t});
      const uint32_t slots = static_cast<uint32_t>(lists[t].size());
      for (uint32_t e = 0; e < slots; ++e) {
        SendRuns r;
        if (auto bad = read_send_entry(lists[t], s.xchg_list, t, e, bounds, r)) {
          fail_device(bad->tile, bad->code, bad->detail, bad->what + when());
          return {};
        }
        if (r.bytes == 0) continue;
        // Each run is a range as a plain entry's, but runs that touch are one range (so an
        // entry never adds more ranges than SRAM / stride).
        const uint64_t last = r.count - 1;
        if (r.src_stride <= r.bytes) {
          sources[t].push_back({r.src, static_cast<uint32_t>(r.src + last * r.src_stride + r.bytes), t});
        } else {
          for (uint32_t k = 0, a = r.src; k < r.count; ++k, a += r.src_stride) sources[t].push_back({a, a + r.bytes, t});
        }
        if (r.dst_stride == r.bytes) {
          writes[r.node].push_back({r.dst, static_cast<uint32_t>(r.dst + last * r.dst_stride + r.bytes), t});
        } else {
          for (uint32_t k = 0, a = r.dst; k < r.count; ++k, a += r.dst_stride) writes[r.node].push_back({a, a + r.bytes, t});
        }
      }
    }

    // No address written twice; nothing written where a send list reads.
    for (uint32_t d = 0; d < n; ++d) {
      auto& w = writes[d];
      if (w.empty()) continue;
      auto by_begin = [](const Range& a, const Range& b) { return a.begin < b.begin; };
      std::sort(w.begin(), w.end(), by_begin);
      for (size_t i = 1; i < w.size(); ++i) {
        if (w[i].begin < w[i - 1].end) {
          fail_device(d, arch::kDevErrXchgDoubleWrite, w[i].begin,
                      "tiles " + std::to_string(w[i - 1].tile) + " and " + std::to_string(w[i].tile) +
                          " both write tile " + std::to_string(d) + " at " + hex(w[i].begin) + when());
          return {};
        }
      }
      auto& src = sources[d];
      std::sort(src.begin(), src.end(), by_begin);
      size_t j = 0;
      for (const Range& r : w) {
        while (j < src.size() && src[j].end <= r.begin) ++j;
        for (size_t k = j; k < src.size() && src[k].begin < r.end; ++k) {
          if (src[k].end > r.begin) {
            const uint32_t at = std::max(r.begin, src[k].begin);
            fail_device(d, arch::kDevErrXchgWriteSource, at,
                        "tile " + std::to_string(r.tile) + " writes tile " + std::to_string(d) + " at " + hex(at) +
                            ", which tile " + std::to_string(d) + "'s send list reads" + when());
            return {};
          }
        }
      }
    }

    if (keyed) {  // bounded: a few programs' exchanges
      if (scratch.seen.contains(hash)) {
        if (scratch.checked.size() >= 1024) scratch.checked.clear();
        build_key();
        scratch.checked[hash] = key;
      } else {
        if (scratch.seen.size() >= 4096) scratch.seen.clear();
        scratch.seen.insert(hash);
      }
    }
  }

  // Move the words. Cost, as the RTL spends it: a tile's SRAM port B carries both the words
  // its engine reads to send and the words its NI writes as they arrive, one a cycle, and
  // each send-list entry is read through it too; the busiest tile sets the phase, and the
  // farthest flit adds its hops.
  ExchangeCost cost;
  auto& sent = scratch.sent;
  auto& received = scratch.received;
  auto& sent_runs = scratch.runs;
  uint32_t max_hops = 0;
  for (uint32_t t = 0; t < n; ++t) {
    uint64_t runs = 0;  // runs of strided entries after their first
    const auto& l = lists[t];
    for (uint32_t e = 0; e < l.size(); ++e) {
      const SendRuns r = decode_send_entry(l, e);  // checked above
      if (r.bytes == 0) continue;
      runs += r.count - 1;
      uint8_t* dst = tiles_[r.node]->sram().data() + (r.dst - arch::kSramBase);
      const uint8_t* src = tiles_[t]->sram().data() + (r.src - arch::kSramBase);
      for (uint32_t k = 0; k < r.count; ++k, dst += r.dst_stride, src += r.src_stride) std::memcpy(dst, src, r.bytes);
      const uint64_t words = uint64_t{r.bytes / 4} * r.count;
      tiles_[r.node]->sync().recv_count += static_cast<uint32_t>(words);
      sent[t] += words;
      received[r.node] += words;
      cost.words += words;
      max_hops = std::max(max_hops, hops(target_, t, r.node));
    }
    tiles_[t]->sync().xchg_sent = static_cast<uint32_t>(sent[t]);
    sent_runs[t] = runs;
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
