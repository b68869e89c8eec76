// Building the ISS's decoded blocks and their cycle-model schedules (block.h).
#include "tessera/emu/block.h"

#include <algorithm>
#include <cstring>

#include "tessera/arch/tile_map.h"

namespace tessera::emu {
namespace {

using arch::kSramBase;

bool is_csr(Op op) {
  const Format f = op_format(op);
  return op != Op::kIllegal && (f == Format::Csr || f == Format::CsrI);
}

// Instructions after which the next pc is not simply the next word, or is decided late.
bool ends_block(Op op) {
  switch (op) {
    case Op::kIllegal: case Op::Mret: case Op::Ecall: case Op::Ebreak: case Op::FenceI: return true;
    default: break;
  }
  const Format f = op_format(op);
  return f == Format::B || f == Format::J || f == Format::Jr || is_csr(op);
}

// The cycle model of hart.cpp run over the block from cycle 0, with every source from
// before the block taken as ready at once. The executor checks that assumption on entry.
void schedule(Block& b) {
  constexpr uint64_t kUnwritten = ~0ull;
  uint64_t ready[kSlotCount];
  bool live[kSlotCount] = {};
  std::fill(std::begin(ready), std::end(ready), kUnwritten);
  uint64_t cycle = 0, fflags = 0;
  std::vector<SlotTime> live_in, results;
  b.writes_fflags = false;
  for (uint32_t i = 0; i < b.len; ++i) {
    const Decoded& d = b.insns[i];
    uint64_t issue = cycle;
    for (uint8_t s : d.src)
      if (s != kSlotNone && ready[s] != kUnwritten) issue = std::max(issue, ready[s]);
    for (uint8_t s : d.src) {
      if (s == kSlotNone || ready[s] != kUnwritten || live[s]) continue;
      live[s] = true;
      live_in.push_back({s, static_cast<uint32_t>(issue)});
    }
    cycle = issue + d.lat.issue;
    if (d.dst != kSlotSink) ready[d.dst] = issue + d.lat.result;
    if (d.dst2 == kSlotFflags) {
      b.writes_fflags = true;
      fflags = std::max(fflags, issue + d.lat.result);
    }
  }
  for (uint8_t s = 0; s < kSlotCount; ++s)
    if (ready[s] != kUnwritten) results.push_back({s, static_cast<uint32_t>(ready[s])});
  auto split = [](const std::vector<SlotTime>& all, uint8_t pad, uint8_t* slot, uint32_t* at,
                  std::vector<SlotTime>& rest) {
    rest.clear();
    for (size_t i = 0; i < all.size(); ++i) {
      if (i < Block::kFixed) slot[i] = all[i].slot, at[i] = all[i].cycle;
      else rest.push_back(all[i]);
    }
    for (size_t i = all.size(); i < Block::kFixed; ++i) slot[i] = pad, at[i] = 0;
  };
  split(live_in, kSlotNone, b.live_slot, b.live_cycle, b.live_in_rest);
  split(results, kSlotSink, b.result_slot, b.result_cycle, b.results_rest);
  b.fixed_results = static_cast<uint32_t>(std::min<size_t>(results.size(), Block::kFixed));
  b.last_ready = static_cast<uint32_t>(fflags);
  for (const SlotTime& r : results) b.last_ready = std::max(b.last_ready, r.cycle);
  b.more_results = b.writes_fflags || !b.results_rest.empty();
  b.cycles = static_cast<uint32_t>(cycle);
  b.fflags_ready = static_cast<uint32_t>(fflags);
  b.taken_penalty = b.insns[b.len - 1].lat.taken_penalty;
}

}  // namespace

void build_block(Block& b, const uint8_t* sram, uint32_t sram_bytes, uint32_t start) {
  b.start = start;
  b.insns.clear();
  bool has_csr = false;
  for (uint32_t off = start; off < sram_bytes && b.insns.size() < Block::kMaxInsns; off += 4) {
    uint32_t raw;
    std::memcpy(&raw, sram + off, 4);
    const Decoded d = decode(raw);
    // A CSR access starts a block of its own: the blocks before it keep their schedule.
    if (is_csr(d.op) && !b.insns.empty()) break;
    BlockInsn bi;
    static_cast<Decoded&>(bi) = d;
    bi.pc = kSramBase + off;
    b.insns.push_back(bi);
    has_csr |= is_csr(d.op);
    if (ends_block(d.op)) break;
  }
  b.len = static_cast<uint32_t>(b.insns.size());
  b.start_pc = kSramBase + start;
  b.end_pc = kSramBase + start + 4 * b.len;
  b.scheduled = !has_csr;
  schedule(b);
  const BlockInsn& last = b.insns[b.len - 1];
  b.self_loop = b.scheduled && op_format(last.op) == Format::B && last.pc + static_cast<uint32_t>(last.imm) == b.start_pc;
  b.loop_cycles = b.cycles + b.taken_penalty;
  b.loop_settles = b.last_ready <= b.loop_cycles;
  b.quick_cycles[0] = b.scheduled && b.last_ready <= b.cycles ? b.cycles : 0;
  b.quick_cycles[1] = b.scheduled && b.last_ready <= b.loop_cycles ? b.loop_cycles : 0;
  BlockInsn end;
  end.op = kOpBlockEnd;
  b.insns.push_back(end);
  b.table = nullptr;
}

bool block_matches(const Block& b, const uint8_t* sram) {
  for (uint32_t i = 0; i < b.len; ++i) {
    uint32_t raw;
    std::memcpy(&raw, sram + b.start + 4 * i, 4);
    if (raw != b.insns[i].raw) return false;
  }
  return true;
}

}  // namespace tessera::emu
