// Where the tile firmware puts things, from its ELF's symbols (firmware/runtime/link.ld); the
// same on every tile. The compiler plans memory from firmware_end up, the devices load the
// firmware and guard its memory, the runtime checks an executable's header address: all
// read this one type.
#pragma once

#include <cstdint>
#include <string>

#include "tessera/exe/elf.h"

namespace tessera::exe {

struct FirmwareLayout {
  uint32_t entry = 0;         // the ELF's entry point (_start)
  uint32_t header = 0;        // tessera_tile_header
  uint32_t text_end = 0;      // __text_end: end of code and read-only data
  uint32_t stack_bottom = 0;  // __stack_bottom
  uint32_t stack_top = 0;     // __stack_top (sp starts here)
  uint32_t firmware_end = 0;  // __firmware_end: the first address the loader may use

  uint32_t stack_bytes() const { return stack_top - stack_bottom; }
};

// The layout from `firmware`'s symbols. Throws ElfError naming `name` and the first symbol
// missing, or the symbols out of order (the header, code and stack must lie below
// firmware_end, the stack's bottom below its top).
FirmwareLayout firmware_layout(const ElfImage& firmware, const std::string& name = "firmware");

}  // namespace tessera::exe
