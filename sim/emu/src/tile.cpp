// The tile register block as the emulator implements it. Barrier and exchange registers
// latch into SyncState, which the machine acts on when every tile has arrived (the
// emulator applies exchanges at the barrier, so XCHG_DONE never has to wait).
#include "tessera/emu/tile.h"

#include <algorithm>

#include "tessera/arch/tile_map.h"

namespace tessera::emu {

Tile::Tile(uint32_t id, uint32_t tile_count, uint32_t sram_bytes)
    : id_(id),
      tile_count_(tile_count),
      own_(std::make_unique<SramBlock>(1, sram_bytes)),
      sram_(own_->tile(0)),
      hart_(sram_.data(), sram_bytes, this) {
  hart_.mirror_halt(&sync_->halted);
}

Tile::Tile(uint32_t id, uint32_t tile_count, std::span<uint8_t> sram, SyncState& sync)
    : id_(id),
      tile_count_(tile_count),
      sram_(sram),
      hart_(sram_.data(), static_cast<uint32_t>(sram.size()), this),
      sync_(&sync) {
  hart_.mirror_halt(&sync_->halted);
}

void Tile::reset(uint32_t entry) {
  hart_.reset(entry);
  hart_.set_tohost(0, 0);
  *sync_ = {};  // halted as the hart: false
}

void Tile::load_elf(const exe::ElfImage& image) {
  exe::place_elf(image, sram_.data(), arch::kSramBase, static_cast<uint32_t>(sram_.size()));
  hart_.reset(image.entry);
  // HTIF words count only if all 8 bytes of each lie in SRAM.
  auto in_sram = [&](uint32_t addr) {
    const uint32_t off = addr - arch::kSramBase;
    return addr && off < sram_.size() && sram_.size() - off >= 8 && !(addr & 7);
  };
  const uint32_t tohost = image.symbol("tohost"), fromhost = image.symbol("fromhost");
  hart_.set_tohost(in_sram(tohost) ? tohost : 0, in_sram(fromhost) ? fromhost : 0);
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
    case arch::kTileRegSync:
      if (sync_->arrived) return Access::kStall;  // blocks until the barrier releases
      v = hart_.superstep;
      return Access::kOk;
    case arch::kTileRegXchgList: v = sync_->xchg_list; return Access::kOk;
    case arch::kTileRegXchgEntries: v = sync_->xchg_entries; return Access::kOk;
    case arch::kTileRegXchgDone: v = sync_->xchg_sent; return Access::kOk;
    case arch::kTileRegRecvExpect: v = sync_->recv_expect; return Access::kOk;
    case arch::kTileRegRecvCount: v = sync_->recv_count; return Access::kOk;
    default: return Access::kFault;
  }
}

TileBus::Access Tile::store(uint32_t offset, uint32_t value) {
  switch (offset) {
    case arch::kTileRegConsole: std::fputc(static_cast<int>(value & 0xff), console_); return Access::kOk;
    case arch::kTileRegSync:
      if (!sync_->arrived) {
        sync_->arrived = true;
        sync_->kind = value;
        sync_->arrival_cycle = hart_.cycle();
      }
      return Access::kOk;
    case arch::kTileRegXchgList: sync_->xchg_list = value; return Access::kOk;
    case arch::kTileRegXchgEntries: sync_->xchg_entries = value; return Access::kOk;
    case arch::kTileRegXchgStart: sync_->xchg_started = true; return Access::kOk;
    case arch::kTileRegRecvExpect: sync_->recv_expect = value; return Access::kOk;
    case arch::kTileRegExit:
      hart_.halt({Halt::Kind::kExit, value, hart_.pc(), 0});
      return Access::kOk;
    default: return Access::kFault;
  }
}

}  // namespace tessera::emu
