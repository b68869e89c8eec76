#include "native_tiles.h"

namespace tessera::emu {

NativeTiles::NativeTiles(std::vector<std::unique_ptr<Tile>>& tiles, bool pass_idle)
    : tiles_(tiles), pass_idle_(pass_idle), native_(tiles.size()), headers_(tiles.size()) {
  for (auto& t : tiles_) regs_.push_back(std::make_unique<Regs>(*t));
}

void NativeTiles::reset(uint32_t header) {
  for (size_t i = 0; i < tiles_.size(); ++i) {
    fw::NativeTile& n = native_[i].tile;
    n = fw::NativeTile{};
    n.sram = tiles_[i]->sram().data();
    n.sram_bytes = static_cast<uint32_t>(tiles_[i]->sram().size());
    n.regs = regs_[i].get();
    n.header = header;
    headers_[i] = reinterpret_cast<uintptr_t>(n.sram) + header - arch::kSramBase;
  }
}

void NativeTiles::run_until_sync(uint32_t t, int64_t deadline_ns) {
  fw::NativeTile& tile = native_[t].tile;
  if (pass_idle_) {
    if (const uint32_t passed = fw::native_pass_idle_supersteps(tile, kMostIdle)) {
      tiles_[t]->sync().idle_barriers = passed - 1;
      return;
    }
  }
  tile.deadline_ns = deadline_ns;
  fw::native_run_until_sync(tile);
}

}  // namespace tessera::emu
