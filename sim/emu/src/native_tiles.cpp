#include "native_tiles.h"

namespace tessera::emu {

NativeTiles::NativeTiles(std::vector<std::unique_ptr<Tile>>& tiles) : tiles_(tiles), native_(tiles.size()) {
  for (auto& t : tiles_) regs_.push_back(std::make_unique<Regs>(*t));
}

void NativeTiles::reset(uint32_t header) {
  for (size_t i = 0; i < tiles_.size(); ++i) {
    native_[i] = fw::NativeTile{};
    native_[i].sram = tiles_[i]->sram().data();
    native_[i].sram_bytes = static_cast<uint32_t>(tiles_[i]->sram().size());
    native_[i].regs = regs_[i].get();
    native_[i].header = header;
  }
}

void NativeTiles::run_until_sync(uint32_t t, int64_t deadline_ns) {
  native_[t].deadline_ns = deadline_ns;
  fw::native_run_until_sync(native_[t]);
}

}  // namespace tessera::emu
