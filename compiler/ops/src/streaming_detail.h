// What the streamed ops share (streaming.cpp, streamed_weight.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/graph/blocking.h"
#include "tessera/graph/graph.h"

namespace tessera::ops::detail {

// Columns [n0, n1) of `b` (row-major k x n) as the words of a k x (n1 - n0) matrix stored as
// `bl` says (graph/blocking.h; not blocked: row-major).
std::vector<uint32_t> chunk_words(const graph::Blocking& bl, uint32_t k, const std::vector<float>& b, uint32_t n,
                                  uint32_t n0, uint32_t n1);

// A one-word read from device memory: its host sync is where what was issued before lands.
graph::Program fence(graph::Graph& g, const std::string& name);

// Chunks read one ahead (double buffering): issue[0], then for each chunk c issue[c + 1] (a
// fence for the last) and work[c]. A read lands by the next host sync, so chunk c has landed
// once chunk c + 1's read (or the fence) has been issued, and is read while c + 1 is in flight.
void one_chunk_ahead(graph::Graph& g, graph::Program& prog, std::vector<graph::Program> issue,
                     std::vector<graph::Program> work, const std::string& name);

}  // namespace tessera::ops::detail
