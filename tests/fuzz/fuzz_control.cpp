// libFuzzer harness: the control-program interpreter in native mode, with the codelets it
// calls. The input is a tile's memory from its base: the tile header (first byte's bit 0
// set: with the right magic and version forced in, so that most inputs get past it; bit 1
// set: the codelets' portable loops, not native mode's AVX2 kernels; bit 2 set: each turn
// first passes the supersteps ahead that do nothing, as the machine's turns do), the
// program, its tables, vertex states. The tile runs to up to 64 barriers; whatever the
// program says, every access stays inside the tile's 16 KiB (tile_ptr checks, ASan
// watches) and each run returns (the watchdog's deadline stops a loop without a barrier).
#include <chrono>
#include <cstdint>
#include <cstring>
#include <vector>

#include "runtime/native.h"
#include "runtime/native_simd.h"
#include "tessera/arch/control.h"
#include "tessera/arch/tile_map.h"

namespace {

class NullRegs final : public tessera::fw::NativeRegs {
 public:
  void store(uint32_t, uint32_t) override {}
  uint32_t load(uint32_t) override { return 0; }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessera;
  constexpr uint32_t kSram = 16 * 1024;
  if (size == 0) return 0;
  std::vector<uint8_t> sram(kSram, 0);
  std::memcpy(sram.data(), data + 1, std::min<size_t>(size - 1, kSram));
  if (data[0] & 1) {
    std::memcpy(sram.data(), &arch::kTileHeaderMagic, 4);
    std::memcpy(sram.data() + 4, &arch::kTileHeaderVersion, 4);
  }
  tessera::fw::simd::set_enabled((data[0] & 2) == 0);  // off where the CPU has no AVX2 either way
  NullRegs regs;
  fw::NativeTile tile;
  tile.sram = sram.data();
  tile.sram_bytes = kSram;
  tile.regs = &regs;
  tile.header = arch::kSramBase;
  const bool pass_idle = (data[0] & 4) != 0;
  for (int stop = 0; stop < 64; ++stop) {
    if (pass_idle && fw::native_pass_idle_supersteps(tile, 64) != 0) continue;  // arrived: the turn is over
    tile.deadline_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                           (std::chrono::steady_clock::now() + std::chrono::milliseconds(20)).time_since_epoch())
                           .count();
    if (fw::native_run_until_sync(tile) != fw::NativeStop::kSync) break;
  }
  return 0;
}
