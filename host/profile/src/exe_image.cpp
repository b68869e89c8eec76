// ExeImage: the executable's segments read as tile memory; the control program walked.
#include "tessera/profile/exe_image.h"

#include <algorithm>
#include <cstring>

#include "tessera/arch/control.h"

namespace tessera::profile {

ExeImage::ExeImage(const exe::Executable& e) : e_(e), runs_(e.tiles) {
  for (const exe::Segment& s : e.segments) {
    if (s.tile >= e.tiles) throw ProfileError("segment on tile " + std::to_string(s.tile) + " of " + std::to_string(e.tiles));
    runs_[s.tile].push_back({s.addr, static_cast<uint32_t>(s.bytes.size()), s.bytes.data()});
  }
  for (auto& r : runs_) std::sort(r.begin(), r.end(), [](const Run& a, const Run& b) { return a.addr < b.addr; });
  if (e.tiles > 0) {
    if (word(0, e.header_addr) != arch::kTileHeaderMagic)
      throw ProfileError("tile 0: no tile header at 0x" + std::to_string(e.header_addr));
    num_compute_sets_ = word(0, e.header_addr + offsetof(arch::TileHeader, num_compute_sets));
  }
}

const ExeImage::Run* ExeImage::find(uint32_t tile, uint32_t addr) const {
  if (tile >= runs_.size()) return nullptr;
  const auto& r = runs_[tile];
  auto it = std::upper_bound(r.begin(), r.end(), addr, [](uint32_t a, const Run& x) { return a < x.addr; });
  if (it == r.begin()) return nullptr;
  --it;
  return addr >= it->addr && uint64_t(addr) + 4 <= uint64_t(it->addr) + it->size ? &*it : nullptr;
}

bool ExeImage::has_word(uint32_t tile, uint32_t addr) const { return find(tile, addr) != nullptr; }

uint32_t ExeImage::word(uint32_t tile, uint32_t addr) const {
  const Run* r = find(tile, addr);
  if (!r) {
    char b[96];
    std::snprintf(b, sizeof b, "tile %u: address 0x%08x is not loaded by any segment", tile, addr);
    throw ProfileError(b);
  }
  uint32_t w;
  std::memcpy(&w, r->data + (addr - r->addr), 4);
  return w;
}

namespace {

constexpr uint32_t kNoStep = UINT32_MAX;

// The memory planner's numbering of one program's steps (exe::LiveRange), per word: each
// Execute, Exchange and HostSync, and each If (its condition's broadcast), in word order,
// a Repeat's body once, both branches of an If. Other words: kNoStep.
struct Numbering {
  std::vector<uint32_t> step_at;
  uint32_t steps = 0;

  Numbering(const ExeImage& img, const exe::Program& p) : step_at(p.words, kNoStep) {
    if (p.tile_program.empty()) return;
    for (uint32_t i = 0; i < p.words;) {
      const uint32_t op = img.word(0, p.tile_program[0] + 4 * i);
      switch (op) {
        case arch::kCtlExecute: case arch::kCtlExchange: case arch::kCtlHostSync: step_at[i] = steps++, i += 2; break;
        case arch::kCtlRepeat: i += 3; break;  // the body follows inline
        case arch::kCtlIf: step_at[i] = steps++, i += 4; break;  // then the branches inline
        case arch::kCtlSync: ++i; break;
        default: i = p.words; break;  // kCtlEnd (bad opcodes are the walk's to report)
      }
    }
    if (p.steps && p.steps != steps)  // 0: not recorded (an executable built by hand)
      throw ProfileError("program '" + p.name + "': its control program has " + std::to_string(steps) +
                         " planner steps, the executable records " + std::to_string(p.steps));
  }
};

struct Walker {
  const ExeImage& img;
  uint32_t base, words;
  size_t max_steps;
  std::vector<StepPlan>& out;
  StepPlan cur;
  const Numbering& num;
  uint32_t first_step;

  void planner_step(uint32_t i) {
    if (i < num.step_at.size() && num.step_at[i] != kNoStep) cur.planner_steps.push_back(first_step + num.step_at[i]);
  }

  uint32_t at(uint32_t i) const {
    if (i >= words) throw ProfileError("control program runs past its " + std::to_string(words) + " words");
    return img.word(0, base + 4 * i);
  }
  bool full() const { return out.size() >= max_steps; }
  void barrier(StepPlan::Kind k, uint32_t operand) {
    cur.kind = k, cur.operand = operand;
    out.push_back(std::move(cur));
    cur = {};
  }
  // Counts the barriers of [i, end) without recording them.
  uint64_t count(uint32_t i, uint32_t end) const {
    uint64_t n = 0;
    while (i < end) {
      switch (at(i)) {
        case arch::kCtlExecute: i += 2; break;
        case arch::kCtlExchange: case arch::kCtlHostSync: ++n, i += 2; break;
        case arch::kCtlSync: ++n, ++i; break;
        case arch::kCtlRepeat: n += uint64_t(at(i + 1)) * count(i + 3, i + 3 + at(i + 2)), i += 3 + at(i + 2); break;
        case arch::kCtlIf: {
          const uint32_t t = at(i + 2), e = at(i + 3);
          n += std::max(count(i + 4, i + 4 + t), count(i + 4 + t, i + 4 + t + e));
          i += 4 + t + e;
          break;
        }
        default: return n;
      }
    }
    return n;
  }
  // Walks [i, end); false once the program's End is reached.
  bool walk(uint32_t i, uint32_t end, int depth) {
    if (depth > static_cast<int>(arch::kCtlMaxNesting)) throw ProfileError("control program nests too deep");
    while (i < end && !full()) {
      const uint32_t op = at(i);
      switch (op) {
        case arch::kCtlEnd: return false;
        case arch::kCtlExecute: planner_step(i), cur.compute_sets.push_back(at(i + 1)), i += 2; break;
        case arch::kCtlExchange: planner_step(i), barrier(StepPlan::kExchange, at(i + 1)), i += 2; break;
        case arch::kCtlHostSync: planner_step(i), barrier(StepPlan::kHostSync, at(i + 1)), i += 2; break;
        case arch::kCtlSync: barrier(StepPlan::kSync, 0), ++i; break;
        case arch::kCtlRepeat: {
          const uint32_t n = at(i + 1), body = at(i + 2);
          for (uint32_t k = 0; k < n && !full(); ++k)
            if (!walk(i + 3, i + 3 + body, depth + 1)) return false;
          i += 3 + body;
          break;
        }
        case arch::kCtlIf: {
          const uint32_t t = at(i + 2), e = at(i + 3);
          planner_step(i);
          const bool then = count(i + 4, i + 4 + t) >= count(i + 4 + t, i + 4 + t + e);
          if (!(then ? walk(i + 4, i + 4 + t, depth + 1) : walk(i + 4 + t, i + 4 + t + e, depth + 1))) return false;
          i += 4 + t + e;
          break;
        }
        default: throw ProfileError("control program: bad opcode " + std::to_string(op) + " at word " + std::to_string(i));
      }
    }
    return true;
  }
};

}  // namespace

std::vector<StepPlan> ExeImage::steps(const exe::Program& p, size_t max_steps) const {
  std::vector<StepPlan> out;
  if (p.tile_program.empty()) return out;
  const Numbering num(*this, p);
  Walker w{*this, p.tile_program[0], p.words, max_steps, out, {}, num, p.first_step};
  w.walk(0, p.words, 0);
  if (!w.full()) w.barrier(StepPlan::kEnd, 0);
  return out;
}

std::vector<uint32_t> ExeImage::compute_set_steps() const {
  std::vector<uint32_t> first(num_compute_sets_, kNoStep);
  for (const exe::Program& p : e_.programs) {
    const Numbering num(*this, p);
    for (uint32_t i = 0; i < p.words; ++i)
      if (num.step_at[i] != kNoStep && word(0, p.tile_program[0] + 4 * i) == arch::kCtlExecute) {
        const uint32_t cs = word(0, p.tile_program[0] + 4 * i + 4);
        if (cs < first.size()) first[cs] = std::min(first[cs], p.first_step + num.step_at[i]);
      }
  }
  return first;
}

std::vector<ExeImage::Vertex> ExeImage::vertices(uint32_t tile, uint32_t cs) const {
  if (cs >= num_compute_sets_) throw ProfileError("compute set " + std::to_string(cs) + " of " + std::to_string(num_compute_sets_));
  const uint32_t table = word(tile, e_.header_addr + offsetof(arch::TileHeader, compute_sets));
  const uint32_t entry = table + cs * sizeof(arch::ComputeSetEntry);
  const uint32_t list = word(tile, entry), count = word(tile, entry + 4);
  std::vector<Vertex> v(count);
  for (uint32_t i = 0; i < count; ++i) v[i] = {word(tile, list + 8 * i), word(tile, list + 8 * i + 4)};
  return v;
}

std::vector<std::string> compute_set_names(const exe::Executable& e, uint32_t compute_sets) {
  std::vector<std::string> names(compute_sets);
  for (const exe::VertexOrigin& v : e.vertices)
    if (v.compute_set < compute_sets && names[v.compute_set].empty() && v.layer < e.layer_names.size())
      names[v.compute_set] = e.layer_names[v.layer];
  for (uint32_t i = 0; i < compute_sets; ++i)
    names[i] = (names[i].empty() ? "" : names[i] + " ") + "cs " + std::to_string(i);
  return names;
}

}  // namespace tessera::profile
