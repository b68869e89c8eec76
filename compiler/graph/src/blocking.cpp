// Offsets of a blocked matrix variable (blocking.h).
#include "tessera/graph/blocking.h"

#include <algorithm>

namespace tessera::graph {

uint32_t Blocking::stored(uint32_t logical) const {
  if (!blocked()) return logical;
  const uint32_t r = logical / cols, c = logical % cols;
  const uint32_t i = row_block(r), j = col_block(c);
  const uint32_t w = col_begin(j + 1) - col_begin(j);
  return block_begin(i, j) + (r - row_begin(i)) * w + (c - col_begin(j));
}

uint32_t Blocking::logical(uint32_t s) const {
  if (!blocked()) return s;
  const uint32_t i = row_block(s / cols);
  const uint32_t h = row_begin(i + 1) - row_begin(i), o = s - row_begin(i) * cols;
  const uint32_t j = col_block(o / h);
  const uint32_t w = col_begin(j + 1) - col_begin(j), in = o - h * col_begin(j);
  return (row_begin(i) + in / w) * cols + col_begin(j) + in % w;
}

namespace {

// Elements [begin, end), offsets in stored order (`stored_order`) or logical, cut where a
// block's row ends (a run is contiguous both ways up to there).
std::vector<Blocking::Run> runs(const Blocking& b, uint32_t begin, uint32_t end, bool stored_order) {
  std::vector<Blocking::Run> out;
  for (uint32_t at = begin; at < end;) {
    const uint32_t l = stored_order ? b.logical(at) : at;
    uint32_t n = end - at;
    if (b.blocked()) {
      const uint32_t c = l % b.cols;
      n = std::min(n, b.col_begin(b.col_block(c) + 1) - c);
    }
    out.push_back({stored_order ? at : b.stored(l), l, n});
    at += n;
  }
  return out;
}

}  // namespace

std::vector<Blocking::Run> Blocking::logical_runs(uint32_t begin, uint32_t end) const {
  return runs(*this, begin, end, false);
}

std::vector<Blocking::Run> Blocking::stored_runs(uint32_t begin, uint32_t end) const {
  return runs(*this, begin, end, true);
}

bool Blocking::is_block(uint32_t r0, uint32_t r1, uint32_t c0, uint32_t c1, uint32_t& i, uint32_t& j) const {
  if (!blocked() || r0 >= r1 || c0 >= c1 || r1 > rows || c1 > cols) return false;
  i = row_block(r0), j = col_block(c0);
  return row_begin(i) == r0 && row_begin(i + 1) == r1 && col_begin(j) == c0 && col_begin(j + 1) == c1;
}

}  // namespace tessera::graph
