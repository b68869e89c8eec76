// Where each interval lies within its block (private to plan_memory and fold_sends): the
// intervals of one variable on one tile with one live range are placed as one block, in
// element order, each 8-byte aligned within it. Two elements of one block are then a fixed
// number of bytes apart whatever address the block gets.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "tessera/graph/graph.h"
#include "tessera/passes/ir.h"

namespace tessera::passes {

// The bytes an interval of `elements` words takes in its block (8-byte aligned); plan_memory
// places them so, and check_fit counts them so.
inline uint32_t interval_bytes(uint32_t elements) { return (elements * 4 + 7) & ~7u; }

struct Packing {
  struct Slot {
    uint32_t block = 0, offset = 0;  // the interval's block, and its byte offset there
  };
  struct Place {
    uint32_t block = 0, offset = 0;  // an element's block, and its byte offset there
  };
  const std::vector<std::vector<graph::Interval>>* intervals = nullptr;  // per variable, in element order
  std::vector<std::vector<Slot>> slots;                                 // per variable, per interval

  // The place of element `e` of variable `var` (which must be mapped).
  Place place(uint32_t var, uint32_t e) const {
    const auto& ivs = (*intervals)[var];
    const auto it = std::partition_point(ivs.begin(), ivs.end(), [&](const graph::Interval& iv) { return iv.end <= e; });
    const Slot& s = slots[var][static_cast<size_t>(it - ivs.begin())];
    return {s.block, s.offset + (e - it->begin) * 4};
  }
};

// fold_sends.cpp: consecutive transfers of each send list that repeat one run at even
// strides within one block on each side become one strided transfer.
void fold_sends(ExchangePlan& x, const Packing& p);

}  // namespace tessera::passes
