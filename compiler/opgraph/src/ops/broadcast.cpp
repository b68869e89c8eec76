#include "broadcast.h"

namespace tessera::opgraph::detail {

std::optional<std::vector<uint32_t>> broadcast_shape(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<uint32_t> r(rank);
  for (size_t i = 0; i < rank; ++i) {
    const uint32_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const uint32_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) return std::nullopt;
    r[i] = da == 1 ? db : da;
  }
  return r;
}

std::vector<uint32_t> broadcast_index(const std::vector<uint32_t>& s, const std::vector<uint32_t>& result) {
  const size_t rank = result.size(), off = rank - s.size();
  std::vector<uint64_t> stride(rank, 0);  // of s, aligned right; 0 where s broadcasts
  uint64_t st = 1;
  for (size_t d = rank; d-- > off;) {
    stride[d] = s[d - off] == 1 ? 0 : st;
    st *= s[d - off];
  }
  uint64_t n = 1;
  for (uint32_t d : result) n *= d;
  std::vector<uint32_t> out(n);
  std::vector<uint32_t> idx(rank, 0);
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t k = 0;
    for (size_t d = 0; d < rank; ++d) k += idx[d] * stride[d];
    out[i] = static_cast<uint32_t>(k);
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < result[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

std::optional<BlockBroadcast> block_broadcast(const std::vector<uint32_t>& s, const std::vector<uint32_t>& result) {
  const size_t rank = result.size(), off = rank - s.size();
  // The dims where s is not 1 must be consecutive and equal the result's there.
  size_t first = rank, last = 0;
  for (size_t d = off; d < rank; ++d)
    if (s[d - off] != 1) {
      if (s[d - off] != result[d]) return std::nullopt;
      first = std::min(first, d);
      last = d;
    }
  BlockBroadcast b;
  if (first == rank) return b;  // a scalar
  for (size_t d = first; d <= last; ++d) {
    if (s[d - off] == 1 && result[d] != 1) return std::nullopt;  // a hole inside the run
    b.count *= result[d];
  }
  for (size_t d = last + 1; d < rank; ++d) b.inner *= result[d];
  return b;
}

}  // namespace tessera::opgraph::detail
