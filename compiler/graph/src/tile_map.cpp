// The tile map's runs (tile_map.h).
#include <iterator>

#include "tessera/graph/tile_map.h"

namespace tessera::graph {

std::map<uint32_t, TileMap::Run>::const_iterator TileMap::find(uint32_t i) const {
  auto it = runs_.upper_bound(i);
  if (it == runs_.begin()) return runs_.end();
  --it;
  return i < it->second.end ? it : runs_.end();
}

int32_t TileMap::tile_at(uint32_t i) const {
  const auto it = find(i);
  return it == runs_.end() ? -1 : static_cast<int32_t>(it->second.tile);
}

uint32_t TileMap::first_unmapped(uint32_t begin, uint32_t end) const {
  for (uint32_t i = begin; i < end;) {
    const auto it = find(i);
    if (it == runs_.end()) return i;
    i = it->second.end;
  }
  return end;
}

bool TileMap::none_mapped(uint32_t begin, uint32_t end) const {
  if (begin >= end) return true;
  auto it = runs_.upper_bound(begin);
  if (it != runs_.begin() && std::prev(it)->second.end > begin) return false;
  return it == runs_.end() || it->first >= end;
}

void TileMap::set(uint32_t begin, uint32_t end, uint32_t tile) {
  if (begin >= end) return;
  // Cut the runs that straddle begin or end, then drop everything inside.
  auto split = [&](uint32_t at) {
    auto it = runs_.upper_bound(at);
    if (it == runs_.begin()) return;
    --it;
    if (it->first < at && at < it->second.end) {
      runs_[at] = {it->second.end, it->second.tile};
      it->second.end = at;
    }
  };
  split(begin);
  split(end);
  runs_.erase(runs_.lower_bound(begin), runs_.lower_bound(end));
  // Merge with a neighbour on the same tile.
  auto it = runs_.emplace(begin, Run{end, tile}).first;
  if (it != runs_.begin()) {
    auto prev = std::prev(it);
    if (prev->second.end == begin && prev->second.tile == tile) {
      prev->second.end = end;
      runs_.erase(it);
      it = prev;
    }
  }
  auto next = std::next(it);
  if (next != runs_.end() && next->first == it->second.end && next->second.tile == tile) {
    it->second.end = next->second.end;
    runs_.erase(next);
  }
}

}  // namespace tessera::graph
