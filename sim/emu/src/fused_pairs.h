// Pairs of integer ALU instructions the ISS runs as one handler: two adjacent instructions
// of a block whose ops are both in this list take one dispatch between them (hart.cpp).
// Every op here is an insns.def ALU op whose semantics are a plain `WX(value)`: no memory,
// no trap, no jump, nothing the cycle model or the block's end looks at.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "tessera/emu/block.h"
#include "tessera/emu/decode.h"

namespace tessera::emu {

// The list twice (a macro cannot expand itself within its own expansion, and the handlers
// are the list crossed with itself); kFusedOps checks that the two agree.
#define TESSERA_FUSED_OPS(X, a)                                                              \
  X(a, Lui) X(a, Auipc) X(a, Addi) X(a, Andi) X(a, Ori) X(a, Xori) X(a, Slli) X(a, Srli)      \
  X(a, Srai) X(a, Add) X(a, Sub) X(a, And) X(a, Or) X(a, Xor) X(a, Sll) X(a, Srl) X(a, Sltu) \
  X(a, Slt) X(a, Mul)
#define TESSERA_FUSED_OPS_2(X, a)                                                            \
  X(a, Lui) X(a, Auipc) X(a, Addi) X(a, Andi) X(a, Ori) X(a, Xori) X(a, Slli) X(a, Srli)      \
  X(a, Srai) X(a, Add) X(a, Sub) X(a, And) X(a, Or) X(a, Xor) X(a, Sll) X(a, Srl) X(a, Sltu) \
  X(a, Slt) X(a, Mul)

#define TESSERA_FUSED_OP_ENTRY(a, id) Op::id,
inline constexpr Op kFusedOps[] = {TESSERA_FUSED_OPS(TESSERA_FUSED_OP_ENTRY, _)};
inline constexpr Op kFusedOps2[] = {TESSERA_FUSED_OPS_2(TESSERA_FUSED_OP_ENTRY, _)};
#undef TESSERA_FUSED_OP_ENTRY
inline constexpr size_t kFusedCount = sizeof(kFusedOps) / sizeof(kFusedOps[0]);
static_assert(sizeof(kFusedOps2) == sizeof(kFusedOps));
consteval bool fused_lists_agree() {
  for (size_t i = 0; i < kFusedCount; ++i)
    if (kFusedOps[i] != kFusedOps2[i]) return false;
  return true;
}
static_assert(fused_lists_agree(), "TESSERA_FUSED_OPS and TESSERA_FUSED_OPS_2 must list the same ops in order");

// Each op's place in the list, or -1.
inline constexpr std::array<int8_t, static_cast<size_t>(Op::kCount)> kFusedSlot = [] {
  std::array<int8_t, static_cast<size_t>(Op::kCount)> slot{};
  slot.fill(-1);
  for (size_t i = 0; i < kFusedCount; ++i) slot[static_cast<size_t>(kFusedOps[i])] = static_cast<int8_t>(i);
  return slot;
}();

// The executor's handler for the pair (first, second), after the loop handlers in its table.
inline constexpr size_t kFusedHandlersBase = loop_handler_index(Op::Bgeu) + 1;
inline constexpr size_t fused_handler_index(int first, int second) {
  return kFusedHandlersBase + static_cast<size_t>(first) * kFusedCount + static_cast<size_t>(second);
}

}  // namespace tessera::emu
