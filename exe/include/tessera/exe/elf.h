// Reading bare-metal RV32 executables: validated, so that a malformed file is an error
// naming what is wrong and where, never a crash.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace tessera::exe {

class ElfError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ElfSegment {
  uint32_t addr = 0;
  uint32_t mem_bytes = 0;      // the rest beyond data.size() is zero-filled
  std::vector<uint8_t> data;
};

struct ElfImage {
  uint32_t entry = 0;
  std::vector<ElfSegment> segments;
  std::map<std::string, uint32_t, std::less<>> symbols;  // global and local symbols by name

  // The address of `name`, or 0 if the image has no such symbol.
  uint32_t symbol(std::string_view name) const;
};

// Parses an ELF32 little-endian RISC-V executable. `name` labels error messages.
// Throws ElfError.
ElfImage parse_elf(std::span<const uint8_t> bytes, const std::string& name);
ElfImage read_elf_file(const std::string& path);

// Copies the loadable segments into an SRAM of `sram_bytes` at `sram_base` (zeroing the
// bss parts); throws ElfError if a segment lies outside it.
void place_elf(const ElfImage& image, uint8_t* sram, uint32_t sram_base, uint32_t sram_bytes);

}  // namespace tessera::exe
