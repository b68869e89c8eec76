// The firmware a compile builds against: its ELF bytes and the layout its symbols give.
#include <fstream>
#include <iterator>

#include "tessera/arch/targets.h"
#include "tessera/arch/tile_map.h"
#include "tessera/exe/elf.h"
#include "tessera/passes/passes.h"

namespace tessera::passes {

CompileOptions firmware_options(const std::string& elf_path, const arch::Target* target) {
  std::ifstream in(elf_path, std::ios::binary);
  if (!in) throw std::runtime_error(elf_path + ": cannot open the firmware (pass --firmware)");
  CompileOptions o;
  o.firmware.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  const emu::ElfImage fw = emu::parse_elf(o.firmware, elf_path);
  o.layout = {fw.symbol("tessera_tile_header"), fw.symbol("__firmware_end")};
  if (!o.layout.header || o.layout.firmware_end <= o.layout.header ||
      (target && o.layout.firmware_end - arch::kSramBase >= target->sram_bytes))
    throw std::runtime_error("the firmware '" + elf_path + "' lacks tessera_tile_header/__firmware_end" +
                             (target ? " or does not fit " + std::string(target->name) : std::string()));
  return o;
}

}  // namespace tessera::passes
