// The tile map's runs (tile_map.h).
#include "tessera/graph/tile_map.h"

#include <algorithm>

namespace tessera::graph {

std::vector<TileMap::Run>::const_iterator TileMap::first_ending_after(uint32_t i) const {
  return std::partition_point(runs_.begin(), runs_.end(), [i](const Run& r) { return r.end <= i; });
}

const TileMap::Run* TileMap::find(uint32_t i) const {
  const auto it = first_ending_after(i);
  return it != runs_.end() && it->begin <= i ? &*it : nullptr;
}

int32_t TileMap::tile_at(uint32_t i) const {
  const Run* r = find(i);
  return r ? static_cast<int32_t>(r->tile) : -1;
}

uint32_t TileMap::first_unmapped(uint32_t begin, uint32_t end) const {
  for (auto it = first_ending_after(begin); begin < end; ++it) {
    if (it == runs_.end() || it->begin > begin) return begin;
    begin = it->end;
  }
  return end;
}

bool TileMap::none_mapped(uint32_t begin, uint32_t end) const {
  if (begin >= end) return true;
  const auto it = first_ending_after(begin);
  return it == runs_.end() || it->begin >= end;
}

void TileMap::set(uint32_t begin, uint32_t end, uint32_t tile) {
  if (begin >= end) return;
  if (runs_.empty() || runs_.back().end <= begin) {  // in element order: append or extend
    if (!runs_.empty() && runs_.back().end == begin && runs_.back().tile == tile) runs_.back().end = end;
    else runs_.push_back({begin, end, tile});
    return;
  }
  // The runs [lo, hi) meet [begin, end): they give way to the new run, keeping their parts
  // outside it; then the new run merges with neighbours on the same tile.
  auto lo = std::partition_point(runs_.begin(), runs_.end(), [&](const Run& r) { return r.end <= begin; });
  auto hi = std::partition_point(lo, runs_.end(), [&](const Run& r) { return r.begin < end; });
  Run parts[3];
  size_t n = 0;
  if (lo != hi && lo->begin < begin) parts[n++] = {lo->begin, begin, lo->tile};
  const size_t mid = n;
  parts[n++] = {begin, end, tile};
  if (lo != hi && std::prev(hi)->end > end) parts[n++] = {end, std::prev(hi)->end, std::prev(hi)->tile};
  const size_t at = static_cast<size_t>(lo - runs_.begin());
  runs_.erase(lo, hi);
  runs_.insert(runs_.begin() + static_cast<std::ptrdiff_t>(at), parts, parts + n);
  size_t i = at + mid;
  if (i + 1 < runs_.size() && runs_[i + 1].begin == runs_[i].end && runs_[i + 1].tile == tile) {
    runs_[i].end = runs_[i + 1].end;
    runs_.erase(runs_.begin() + static_cast<std::ptrdiff_t>(i) + 1);
  }
  if (i > 0 && runs_[i - 1].end == runs_[i].begin && runs_[i - 1].tile == tile) {
    runs_[i - 1].end = runs_[i].end;
    runs_.erase(runs_.begin() + static_cast<std::ptrdiff_t>(i));
  }
}

}  // namespace tessera::graph
