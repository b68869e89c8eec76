// The tile register block as the emulator implements it. Registers of the exchange, sync
// and host mailbox belong to the multi-tile machine and fault on a lone tile.
#include "tessera/emu/tile.h"

#include <algorithm>

#include "tessera/arch/tile_map.h"

namespace tessera::emu {

Tile::Tile(uint32_t id, uint32_t tile_count, uint32_t sram_bytes)
    : id_(id), tile_count_(tile_count), sram_(sram_bytes), hart_(sram_.data(), sram_bytes, this) {}

void Tile::reset() {
  std::fill(sram_.begin(), sram_.end(), 0);
  hart_.reset(arch::kSramBase);
  hart_.set_tohost(0, 0);
}

void Tile::load_elf(const ElfImage& image) {
  place_elf(image, sram_.data(), arch::kSramBase, static_cast<uint32_t>(sram_.size()));
  hart_.reset(image.entry);
  hart_.set_tohost(image.symbol("tohost"), image.symbol("fromhost"));
}

TileBus::Access Tile::load(uint32_t offset, uint32_t& v) {
  const TrapLatch& latch = hart_.trap_latch();
  switch (offset) {
    case arch::kTileRegTileId: v = id_; return Access::kOk;
    case arch::kTileRegTileCount: v = tile_count_; return Access::kOk;
    case arch::kTileRegCycleLo: v = static_cast<uint32_t>(hart_.cycle()); return Access::kOk;
    case arch::kTileRegCycleHi: v = static_cast<uint32_t>(hart_.cycle() >> 32); return Access::kOk;
    case arch::kTileRegSuperstep: v = hart_.superstep; return Access::kOk;
    case arch::kTileRegSramBytes: v = static_cast<uint32_t>(sram_.size()); return Access::kOk;
    case arch::kTileRegTrapValid: v = latch.valid; return Access::kOk;
    case arch::kTileRegTrapCause: v = latch.cause; return Access::kOk;
    case arch::kTileRegTrapPc: v = latch.pc; return Access::kOk;
    case arch::kTileRegTrapTval: v = latch.tval; return Access::kOk;
    case arch::kTileRegTrapSuperstep: v = latch.superstep; return Access::kOk;
    default: return Access::kFault;
  }
}

TileBus::Access Tile::store(uint32_t offset, uint32_t value) {
  switch (offset) {
    case arch::kTileRegConsole: std::fputc(static_cast<int>(value & 0xff), console_); return Access::kOk;
    case arch::kTileRegExit:
      hart_.halt({Halt::Kind::kExit, value, hart_.pc(), 0});
      return Access::kOk;
    default: return Access::kFault;
  }
}

}  // namespace tessera::emu
