// What the machine tests share: the `tiny` target and the tile firmware, read once through
// passes::firmware_options (its bytes and its layout, checked against the target).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/arch/targets.h"
#include "tessera/exe/elf.h"
#include "tessera/passes/passes.h"

namespace tessera::testing {

inline const arch::Target& tiny() { return *arch::find_target("tiny"); }

// Compile options for `tiny` with the firmware's bytes and layout.
inline const passes::CompileOptions& firmware_compile_options() {
  static const passes::CompileOptions o =
      passes::firmware_options(std::string(TESSERA_TILE_BIN_DIR) + "/runtime/tessera-firmware.elf", &tiny());
  return o;
}

inline const std::vector<uint8_t>& firmware_bytes() { return firmware_compile_options().firmware; }

inline const exe::ElfImage& firmware_elf() {
  static const exe::ElfImage elf = exe::parse_elf(firmware_bytes(), "firmware");
  return elf;
}

}  // namespace tessera::testing
