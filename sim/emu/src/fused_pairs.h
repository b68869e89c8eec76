// Pairs of integer ALU instructions the ISS runs as one handler: two adjacent instructions
// of a block that form a pair of this list take one dispatch between them (hart.cpp).
//
// Only the pairs that run often get a handler, not every pair of ALU ops: each handler is
// a label of the executor's one big function, and clang with the fuzz build's
// instrumentation slows down far more than in proportion to their number (361 pairs,
// every pair of 19 ops, took it over 20 minutes on hart.cpp; docs/speed.md). The list is
// the pairs the benchmarks (bench/) run, counted pair by pair as blocks take them
// (int_bench: addi+xor 7.4 M, srli+and 6.6 M, andi+sub 6.6 M, addi+addi 5.4 M, mul+add
// 2.8 M, slli+add 1.4 M, then eight under 0.5 M; fp_bench: addi+addi 6.7 M, add+addi,
// xor+add, slli+addi), with `lui` + `addi` (a constant) beside `auipc` + `addi`. The 13
// pairs beyond these that an earlier list of 30 had saved no host instruction on either
// benchmark. Every op here must be an insns.def op of format U, I, Shift or R, whose
// semantics are a plain `WX(value)`: no memory, no trap, no jump, nothing the cycle model
// or the block's end looks at (alu_value in hart.cpp checks it at compile time).
#pragma once

#include <cstddef>
#include <cstdint>

#include "tessera/emu/block.h"
#include "tessera/emu/decode.h"

namespace tessera::emu {

// X(first, second) for each pair, in the order of their handlers.
#define TESSERA_FUSED_PAIRS(X)                                                               \
  X(Addi, Addi) X(Addi, Xor) X(Addi, Add) X(Add, Addi) X(Add, Srli) X(Add, Srai)             \
  X(Srli, And) X(Andi, Sub) X(Sub, Sub) X(Slli, Add) X(Slli, Addi) X(Xor, Add) X(Mul, Add)    \
  X(Mul, Addi) X(Mul, Srai) X(Lui, Addi) X(Auipc, Addi)

struct FusedPair {
  Op first, second;
};

#define TESSERA_FUSED_PAIR_ENTRY(a, b) FusedPair{Op::a, Op::b},
inline constexpr FusedPair kFusedPairs[] = {TESSERA_FUSED_PAIRS(TESSERA_FUSED_PAIR_ENTRY)};
#undef TESSERA_FUSED_PAIR_ENTRY
inline constexpr size_t kFusedCount = sizeof(kFusedPairs) / sizeof(kFusedPairs[0]);

consteval bool fused_pairs_distinct() {
  for (size_t i = 0; i < kFusedCount; ++i)
    for (size_t j = 0; j < i; ++j)
      if (kFusedPairs[i].first == kFusedPairs[j].first && kFusedPairs[i].second == kFusedPairs[j].second)
        return false;
  return true;
}
static_assert(fused_pairs_distinct(), "TESSERA_FUSED_PAIRS lists a pair twice");

// The pair (first, second)'s place in kFusedPairs, or -1. Used when a block takes its
// handlers, not per instruction run.
inline constexpr int fused_pair_index(Op first, Op second) {
  for (size_t i = 0; i < kFusedCount; ++i)
    if (kFusedPairs[i].first == first && kFusedPairs[i].second == second) return static_cast<int>(i);
  return -1;
}

// The executor's handler for pair i, after the loop handlers in its table.
inline constexpr size_t kFusedHandlersBase = loop_handler_index(Op::Bgeu) + 1;
inline constexpr size_t fused_handler_index(int pair) { return kFusedHandlersBase + static_cast<size_t>(pair); }

}  // namespace tessera::emu
