// libFuzzer harness: the ELF loader, then the ISS on what loaded. Any input either fails
// with ElfError or loads and runs 5,000 instructions on one tile; the guest may do
// anything (jump anywhere, store anywhere, trap in its trap handler) but never touch the
// host's memory outside the tile's SRAM (ASan watches) nor hang.
#include <cstdint>
#include <cstdio>
#include <span>

#include "tessera/emu/tile.h"
#include "tessera/exe/elf.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessera::emu;
  using namespace tessera::exe;
  static std::FILE* devnull = std::fopen("/dev/null", "w");
  ElfImage image;
  try {
    image = parse_elf(std::span<const uint8_t>(data, size), "fuzz.elf");
  } catch (const ElfError&) {
    return 0;
  }
  Tile tile(0, 1, 64 * 1024);
  tile.set_console(devnull);
  try {
    tile.load_elf(image);
  } catch (const ElfError&) {
    return 0;
  }
  // Both cycle models: timing changes the code path of every instruction.
  tile.hart().set_timing(size & 1);
  tile.hart().run(5000);
  return 0;
}
