// See noc_traffic.h.
#include "tessera/vlt/noc_traffic.h"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdarg>
#include <deque>
#include <numeric>
#include <random>

#include "tessera/arch/flit.h"
#include "tessera/vlt/noc_mesh.h"

namespace tessera::vlt {
namespace {

// data = tag * kTagMul (mod 2^32) spreads a word's tag over all 32 data bits; the inverse
// multiplier recovers it.
constexpr uint32_t kTagMul = 0x9E3779B1u;
constexpr uint32_t inverse_odd(uint32_t a) {
  uint32_t x = a;  // Newton's iteration: each step doubles the correct low bits
  for (int i = 0; i < 5; ++i) x *= 2 - a * x;
  return x;
}
constexpr uint32_t kTagInv = inverse_odd(kTagMul);
static_assert(kTagMul * kTagInv == 1u);

uint64_t splitmix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char* fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  const int n = std::vsnprintf(nullptr, 0, fmt, ap);
  va_end(ap);
  std::string out(n > 0 ? static_cast<size_t>(n) : 0, '\0');
  std::vsnprintf(out.data(), out.size() + 1, fmt, ap2);
  va_end(ap2);
  return out;
}

struct Word {
  enum State : uint8_t { kOffered, kInFlight, kOvertaken, kDelivered };
  NocFlit flit;
  int src = 0;  // the node that sent it (the flit has no source field)
  uint64_t inject_cycle = 0, deliver_cycle = 0;
  State state = kOffered;  // offered at its source's injection port, not yet accepted
};

// Where a node sits: tiles at (id % X, id / X), host node h at (-1, h).
struct Pos { int x, y; };
Pos node_pos(const NocShape& s, int n) {
  return n < s.tiles() ? Pos{n % s.x, n / s.x} : Pos{-1, n - s.tiles()};
}
// Routers a word passes from src to dst under XY routing.
int routers_on_path(const NocShape& s, int src, int dst) {
  Pos a = node_pos(s, src), b = node_pos(s, dst);
  // A host node enters and leaves through router (0, h).
  if (a.x < 0) a.x = 0;
  if (b.x < 0) b.x = 0;
  return std::abs(a.x - b.x) + std::abs(a.y - b.y) + 1;
}

std::string node_name(const NocShape& s, int n) {
  return n < s.tiles() ? format("tile %d", n) : format("host %d (node %d)", n - s.tiles(), n);
}

class Generator {
 public:
  Generator(NocPattern p, const NocShape& s, int node, uint64_t seed, int words, double rate)
      : p_(p), s_(s), node_(node), rng_(seed), left_(words), rate_(rate) {
    if (p_ == NocPattern::kAllToAll) {
      // words / nodes rounds, each a shuffled permutation of all nodes.
      const int rounds = std::max(1, words / s_.nodes());
      for (int r = 0; r < rounds; ++r) {
        std::vector<int> perm(s_.nodes());
        std::iota(perm.begin(), perm.end(), 0);
        std::shuffle(perm.begin(), perm.end(), rng_);
        plan_.insert(plan_.end(), perm.begin(), perm.end());
      }
      left_ = static_cast<int>(plan_.size());
    }
  }
  bool done() const { return left_ == 0; }
  // Whether the node starts a new word this cycle (it has none waiting), and to whom.
  bool next(uint64_t cycle, int& dst) {
    if (left_ == 0) return false;
    const int n = s_.nodes();
    std::uniform_int_distribution<int> any(0, n - 1);
    switch (p_) {
      case NocPattern::kUniform:
      case NocPattern::kStall:
        if (std::uniform_real_distribution<double>(0, 1)(rng_) >= rate_) return false;
        dst = any(rng_);
        break;
      case NocPattern::kAllToAll:
        dst = plan_[plan_.size() - left_];
        break;
      case NocPattern::kHotspot:
        // Tile 5 (an inner tile of a 4 x 4 mesh) and the last host node.
        dst = (rng_() & 1) ? std::min(5, s_.tiles() - 1) : n - 1;
        break;
      case NocPattern::kBurst:
        if (burst_left_ == 0) {
          if (cycle < idle_until_) return false;
          burst_left_ = std::uniform_int_distribution<int>(1, 64)(rng_);
          burst_dst_ = (rng_() & 1) ? any(rng_) : -1;  // one destination, or a random one per word
        }
        dst = burst_dst_ >= 0 ? burst_dst_ : any(rng_);
        if (--burst_left_ == 0) idle_until_ = cycle + std::uniform_int_distribution<int>(0, 300)(rng_);
        break;
      case NocPattern::kZeroLoad:
        return false;  // sequenced by the run loop
    }
    --left_;
    return true;
  }
  // A new word's random fields.
  void fill(NocFlit& f) {
    f.kind = static_cast<uint8_t>(rng_() & ((1u << arch::kFlitKindBits) - 1));
    f.addr = static_cast<uint32_t>(rng_() & ((1u << arch::kFlitAddrBits) - 1));
  }

 private:
  NocPattern p_;
  NocShape s_;
  int node_;
  std::mt19937_64 rng_;
  int left_;
  double rate_;
  std::vector<int> plan_;
  int burst_left_ = 0, burst_dst_ = -1;
  uint64_t idle_until_ = 0;
};

class Receiver {
 public:
  Receiver(NocPattern p, int node, uint64_t seed, bool long_stall) : p_(p), node_(node), rng_(seed),
      long_stall_(long_stall) {}
  bool ready(uint64_t cycle) {
    if (p_ != NocPattern::kStall) return true;
    // The long stall: ready low for 6000 cycles from cycle 200.
    if (long_stall_ && cycle >= 200 && cycle < 6200) return false;
    if (cycle >= until_) {
      ready_ = !ready_;
      until_ = cycle + (ready_ ? std::uniform_int_distribution<uint64_t>(1, 300)(rng_)
                               : std::uniform_int_distribution<uint64_t>(1, 500)(rng_));
    }
    return ready_;
  }

 private:
  NocPattern p_;
  int node_;
  std::mt19937_64 rng_;
  bool long_stall_;
  bool ready_ = false;
  uint64_t until_ = 0;
};

}  // namespace

const std::vector<std::string>& noc_pattern_names() {
  static const std::vector<std::string> kNames = {"uniform", "all_to_all", "hotspot", "stall", "burst", "zero_load"};
  return kNames;
}

const char* noc_pattern_name(NocPattern p) { return noc_pattern_names()[static_cast<int>(p)].c_str(); }

bool parse_noc_pattern(const std::string& name, NocPattern& out) {
  const auto& names = noc_pattern_names();
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) {
      out = static_cast<NocPattern>(i);
      return true;
    }
  }
  return false;
}

bool parse_noc_inject(const std::string& name, NocInject& out) {
  if (name == "none") out = NocInject::kNone;
  else if (name == "lose") out = NocInject::kLose;
  else if (name == "duplicate") out = NocInject::kDuplicate;
  else if (name == "stuck") out = NocInject::kStuck;
  else if (name == "reorder") out = NocInject::kReorder;
  else if (name == "withdraw") out = NocInject::kWithdraw;
  else return false;
  return true;
}

bool NocRunResult::has_error(const std::string& what) const {
  for (const auto& e : errors)
    if (e.find(what) != std::string::npos) return true;
  return false;
}

NocRunResult run_noc_traffic(const NocRunOptions& opt, std::FILE* log) {
  const NocShape s = NocMesh::shape();
  const int n_nodes = s.nodes();
  NocRunResult res;
  auto error = [&](std::string msg) {
    if (log && static_cast<int>(res.errors.size()) < opt.max_errors_shown) std::fprintf(log, "ERROR: %s\n", msg.c_str());
    res.errors.push_back(std::move(msg));
  };

  int words = opt.words_per_node;
  double rate = opt.rate;
  switch (opt.pattern) {
    case NocPattern::kUniform: words = words ? words : 3000; rate = rate > 0 ? rate : 0.25; break;
    case NocPattern::kAllToAll: words = words ? words : 40 * n_nodes; break;
    case NocPattern::kHotspot: words = words ? words : 600; break;
    case NocPattern::kStall: words = words ? words : 1500; rate = rate > 0 ? rate : 0.2; break;
    case NocPattern::kBurst: words = words ? words : 3000; break;
    case NocPattern::kZeroLoad: words = n_nodes; break;
  }
  // Role 0: generators, role 1: receivers; one independent stream per node and role.
  auto node_seed = [&](int node, int role) { return splitmix(opt.seed ^ splitmix(static_cast<uint64_t>(node) * 2 + role + 1)); };
  std::vector<Generator> gens;
  std::vector<Receiver> rcvs;
  const int long_staller = std::min(6, s.tiles() - 1);
  const int stuck_node = std::min(9, s.tiles() - 1);
  for (int n = 0; n < n_nodes; ++n) {
    gens.emplace_back(opt.pattern, s, n, node_seed(n, 0), words, rate);
    rcvs.emplace_back(opt.pattern, n, node_seed(n, 1), n == long_staller);
  }
  // Zero-load sequence: every (src, dst) pair once, one word in the mesh at a time.
  std::vector<std::pair<int, int>> zl_pairs;
  size_t zl_next = 0;
  if (opt.pattern == NocPattern::kZeroLoad)
    for (int a = 0; a < n_nodes; ++a)
      for (int b = 0; b < n_nodes; ++b) zl_pairs.emplace_back(a, b);
  std::vector<std::vector<uint32_t>> zl_lat(s.x + s.y + 1);

  std::vector<Word> all;
  std::vector<std::deque<uint32_t>> pair_q(static_cast<size_t>(n_nodes) * n_nodes);
  std::vector<int64_t> pending(n_nodes, -1);     // the word a node offers (valid held)
  std::vector<uint64_t> pending_since(n_nodes, 0);
  std::vector<char> offered(n_nodes, 0);  // valid at the node's injection port this cycle
  bool withdrawn = false;                 // --inject withdraw has dropped its offer
  std::vector<uint64_t> inflight_to(n_nodes, 0);
  std::vector<uint8_t> ready(n_nodes, 0), ready_plan(n_nodes, 0);
  std::vector<uint32_t> latencies;
  uint64_t in_network = 0, deliveries = 0, last_delivery = 0;
  // The delivery a test mode tampers with: one in the middle of the run.
  const uint64_t tamper_at = 100 + opt.seed % 100;
  NocFlit held;        // kReorder: the word held back, and where it was delivered
  int held_node = -1;

  auto word_name = [&](uint32_t tag) {
    const NocFlit& f = all[tag].flit;
    return format("word #%u (%s -> %s, addr 0x%05x)", tag, node_name(s, all[tag].src).c_str(), node_name(s, f.dst).c_str(),
                  f.addr);
  };

  auto score = [&](int node, const NocFlit& f, uint64_t cycle) {
    const uint32_t tag = f.data * kTagInv;
    if (tag >= all.size() || all[tag].state == Word::kOffered) {
      error(format("word corrupted: %s received %s, which no node sent (cycle %" PRIu64 ")",
                   node_name(s, node).c_str(), to_string(f).c_str(), cycle));
      return;
    }
    Word& w = all[tag];
    if (w.state == Word::kDelivered) {
      error(format("word duplicated: %s delivered again to %s at cycle %" PRIu64 " (first at cycle %" PRIu64 ")",
                   word_name(tag).c_str(), node_name(s, node).c_str(), cycle, w.deliver_cycle));
      return;
    }
    if (!(f == w.flit))
      error(format("word corrupted: %s sent as %s, delivered as %s", word_name(tag).c_str(),
                   to_string(w.flit).c_str(), to_string(f).c_str()));
    if (node != w.flit.dst)
      error(format("word misrouted: %s delivered to %s", word_name(tag).c_str(), node_name(s, node).c_str()));
    auto& q = pair_q[static_cast<size_t>(w.src) * n_nodes + w.flit.dst];
    if (w.state == Word::kOvertaken) {
      error(format("word out of order: %s delivered at cycle %" PRIu64 " after a later word of its pair",
                   word_name(tag).c_str(), cycle));
    } else {
      // Words of the pair sent earlier and still missing were overtaken: lost, or late.
      while (!q.empty() && q.front() != tag) {
        all[q.front()].state = Word::kOvertaken;
        q.pop_front();
      }
      if (!q.empty()) q.pop_front();
    }
    w.state = Word::kDelivered;
    w.deliver_cycle = cycle;
    latencies.push_back(static_cast<uint32_t>(cycle - w.inject_cycle));
    if (opt.pattern == NocPattern::kZeroLoad)
      zl_lat[routers_on_path(s, w.src, w.flit.dst)].push_back(static_cast<uint32_t>(cycle - w.inject_cycle));
  };

  NocMesh mesh;
  mesh.reset();
  const auto t0 = std::chrono::steady_clock::now();
  uint64_t cycle = 0, idle = 0, drain = 0;
  bool deadlocked = false;
  for (;; ++cycle) {
    // Offer words.
    for (int n = 0; n < n_nodes; ++n) {
      int dst = -1;
      bool start = false;
      if (pending[n] < 0) {
        if (opt.pattern == NocPattern::kZeroLoad) {
          if (zl_next < zl_pairs.size() && zl_pairs[zl_next].first == n && in_network == 0 &&
              std::none_of(pending.begin(), pending.end(), [](int64_t p) { return p >= 0; })) {
            dst = zl_pairs[zl_next++].second;
            start = true;
          }
        } else {
          start = gens[n].next(cycle, dst);
        }
      }
      if (start) {
        Word w;
        w.src = n;
        w.flit.dst = static_cast<uint16_t>(dst);
        w.flit.data = static_cast<uint32_t>(all.size()) * kTagMul;
        gens[n].fill(w.flit);
        pending[n] = static_cast<int64_t>(all.size());
        pending_since[n] = cycle;
        all.push_back(w);
      }
      offered[n] = pending[n] >= 0;
      if (opt.inject == NocInject::kWithdraw && !withdrawn && offered[n] && pending_since[n] < cycle) {
        offered[n] = false;  // a flit offered last cycle and not taken: valid falls (a contract violation)
        withdrawn = true;
      }
      mesh.set_inject(n, offered[n], offered[n] ? all[pending[n]].flit : NocFlit{});
      ready_plan[n] = rcvs[n].ready(cycle);
      ready[n] = ready_plan[n] && !(opt.inject == NocInject::kStuck && n == stuck_node);
      mesh.set_eject_ready(n, ready[n]);
    }
    mesh.eval();
    bool moved = false, waits_for_stall = false;
    for (int n = 0; n < n_nodes; ++n) {
      if (mesh.eject_valid(n) && !ready_plan[n]) waits_for_stall = true;
      if (offered[n] && mesh.inject_ready(n)) {
        Word& w = all[pending[n]];
        w.inject_cycle = cycle;
        w.state = Word::kInFlight;
        pair_q[static_cast<size_t>(w.src) * n_nodes + w.flit.dst].push_back(static_cast<uint32_t>(pending[n]));
        ++in_network;
        ++inflight_to[w.flit.dst];
        pending[n] = -1;
        moved = true;
      }
    }
    for (int n = 0; n < n_nodes; ++n) {
      if (!(mesh.eject_valid(n) && ready[n])) continue;
      const NocFlit f = mesh.eject_flit(n);
      moved = true;
      last_delivery = cycle;
      const uint32_t tag = f.data * kTagInv;
      const int dst = tag < all.size() ? all[tag].flit.dst : n;
      if (in_network == 0 || inflight_to[dst] == 0) {
        error(format("word duplicated or invented: %s received %s with nothing in flight to it (cycle %" PRIu64 ")",
                     node_name(s, n).c_str(), to_string(f).c_str(), cycle));
      } else {
        --in_network;
        --inflight_to[dst];
      }
      ++deliveries;
      if (deliveries == tamper_at && opt.inject == NocInject::kLose) {
        res.injected_word = tag;
        if (log) std::fprintf(log, "test mode: dropping %s before scoring\n", word_name(tag).c_str());
        continue;
      }
      if (opt.inject == NocInject::kReorder && tag < all.size()) {
        const auto& q = pair_q[static_cast<size_t>(all[tag].src) * n_nodes + all[tag].flit.dst];
        if (held_node < 0 && res.injected_word < 0 && deliveries >= tamper_at && q.size() >= 2) {
          // Hold this word back until the next word of its pair has been scored.
          res.injected_word = tag;
          held_node = n;
          held = f;
          if (log) std::fprintf(log, "test mode: scoring %s after the next word of its pair\n", word_name(tag).c_str());
          continue;
        }
        if (held_node >= 0 && all[tag].src == all[held.data * kTagInv].src && f.dst == held.dst) {
          score(n, f, cycle);
          score(held_node, held, cycle);
          held_node = -1;
          continue;
        }
      }
      score(n, f, cycle);
      if (deliveries == tamper_at && opt.inject == NocInject::kDuplicate) {
        res.injected_word = tag;
        if (log) std::fprintf(log, "test mode: scoring %s twice\n", word_name(tag).c_str());
        score(n, f, cycle);
      }
    }
    mesh.clock();

    // Watchdog. A cycle counts when nothing moved while flits are in flight, unless a
    // receiver holding ready low on purpose is offered a flit: then the mesh is waiting for
    // it (flits behind it may wait too). A mesh that is merely slow moves something every
    // few cycles; one whose flits are all stuck or gone does not.
    if (moved || in_network == 0) idle = 0;
    else if (!waits_for_stall) ++idle;
    if (idle >= opt.deadlock_cycles) {
      // Stuck ports: ejection ports offering a flit nobody takes, then injection ports
      // offering a word the mesh does not take (nothing moved, so none has moved since).
      std::string stuck;
      for (int n = 0; n < n_nodes; ++n)
        if (mesh.eject_valid(n) && !ready[n])
          stuck += format("; %s: ejection port valid, not taken", node_name(s, n).c_str());
      for (int n = 0; n < n_nodes; ++n)
        if (pending[n] >= 0)
          stuck += format("; %s: injection port valid, not ready for %" PRIu64 " cycles", node_name(s, n).c_str(),
                          cycle + 1 - pending_since[n]);
      std::string to;
      for (int n = 0; n < n_nodes; ++n)
        if (inflight_to[n]) to += format(" %s: %" PRIu64 ",", node_name(s, n).c_str(), inflight_to[n]);
      if (!to.empty()) to.pop_back();
      if (stuck.empty()) {
        // No port offers or waits: the words the scoreboard still expects are not in the
        // mesh any more. Each is reported below as lost.
        if (log)
          std::fprintf(log, "the mesh has been quiet for %" PRIu64 " cycles (at cycle %" PRIu64 ") with %" PRIu64
                       " words outstanding and no port busy\n", idle, cycle, in_network);
      } else {
        error(format("deadlock: no flit moved for %" PRIu64 " cycles (at cycle %" PRIu64 ") with %" PRIu64
                     " flits in flight; in flight to%s%s",
                     idle, cycle, in_network, to.c_str(), stuck.c_str()));
        deadlocked = true;
      }
      break;
    }
    const bool gens_done = opt.pattern == NocPattern::kZeroLoad
                               ? zl_next == zl_pairs.size()
                               : std::all_of(gens.begin(), gens.end(), [](const Generator& g) { return g.done(); });
    if (gens_done && in_network == 0 && std::none_of(pending.begin(), pending.end(), [](int64_t p) { return p >= 0; })) {
      // Everything is delivered; a few more cycles with every receiver ready must bring nothing.
      if (++drain > 64) break;
    }
    if (cycle >= opt.max_cycles) {
      error(format("timeout: %" PRIu64 " cycles, %" PRIu64 " flits still in flight", cycle, in_network));
      break;
    }
  }
  res.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  if (!deadlocked) {
    for (uint32_t tag = 0; tag < all.size(); ++tag) {
      if (all[tag].state == Word::kInFlight || all[tag].state == Word::kOvertaken)
        error(format("word lost: %s, sent at cycle %" PRIu64 ", never delivered", word_name(tag).c_str(),
                     all[tag].inject_cycle));
    }
  }

  res.cycles = last_delivery + 1;
  res.words = all.size();
  res.delivered = deliveries;
  if (!latencies.empty()) {
    std::vector<uint32_t> l = latencies;
    std::nth_element(l.begin(), l.begin() + l.size() / 2, l.end());
    res.latency_median = l[l.size() / 2];
    res.latency_max = *std::max_element(l.begin(), l.end());
    res.latency_mean = std::accumulate(l.begin(), l.end(), 0.0) / l.size();
  }
  res.accepted_per_cycle = static_cast<double>(res.words) / static_cast<double>(res.cycles);
  for (auto& v : zl_lat) res.zero_load_latency.push_back(v.empty() ? 0 : *std::max_element(v.begin(), v.end()));
  if (opt.pattern == NocPattern::kZeroLoad) {
    // Zero load: every word of one path length must take the same time.
    for (size_t r = 0; r < zl_lat.size(); ++r)
      if (!zl_lat[r].empty() && *std::min_element(zl_lat[r].begin(), zl_lat[r].end()) != res.zero_load_latency[r])
        error(format("zero-load latency over %zu routers varies", r));
  }
  if (log && static_cast<int>(res.errors.size()) > opt.max_errors_shown)
    std::fprintf(log, "... %zu errors in all\n", res.errors.size());
  return res;
}

}  // namespace tessera::vlt
