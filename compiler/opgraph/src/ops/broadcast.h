// Numpy broadcasting for the element-wise ops: the result's shape, and how an operand of
// another shape maps onto the result's elements.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace tessera::opgraph::detail {

// The broadcast shape of a and b, or nothing if they do not broadcast.
std::optional<std::vector<uint32_t>> broadcast_shape(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b);

// For each element of `result` (row-major), the index of the element of an operand of
// shape `s` that numpy broadcasting pairs it with.
std::vector<uint32_t> broadcast_index(const std::vector<uint32_t>& s, const std::vector<uint32_t>& result);

// An operand that broadcasts as a block: element i of the result reads element
// (i / inner) % count of it (count = its element count). Holds for s equal to the result
// (count = all, inner = 1), a scalar, and any s that equals the result on one run of
// consecutive dims and is 1 elsewhere (e.g. [C,1,1] against [N,C,H,W]).
struct BlockBroadcast {
  uint32_t count = 1, inner = 1;
};
std::optional<BlockBroadcast> block_broadcast(const std::vector<uint32_t>& s, const std::vector<uint32_t>& result);

}  // namespace tessera::opgraph::detail
