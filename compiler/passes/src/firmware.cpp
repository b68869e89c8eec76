// The firmware a compile builds against: its ELF bytes and the layout its symbols give.
#include <fstream>
#include <iterator>

#include "tessera/arch/targets.h"
#include "tessera/arch/tile_map.h"
#include "tessera/exe/elf.h"
#include "tessera/exe/firmware_layout.h"
#include "tessera/passes/passes.h"

namespace tessera::passes {

CompileOptions firmware_options(const std::string& elf_path, const arch::Target* target) {
  std::ifstream in(elf_path, std::ios::binary);
  if (!in) throw std::runtime_error(elf_path + ": cannot open the firmware (pass --firmware)");
  CompileOptions o;
  o.firmware.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  const exe::ElfImage fw = exe::parse_elf(o.firmware, elf_path);
  o.layout = exe::firmware_layout(fw, elf_path);
  if (target && o.layout.firmware_end - arch::kSramBase >= target->sram_bytes)
    throw std::runtime_error("the firmware '" + elf_path + "' (" +
                             std::to_string(o.layout.firmware_end - arch::kSramBase) +
                             " bytes up to __firmware_end) leaves no room on the " +
                             std::to_string(target->sram_bytes) + "-byte tiles of target '" +
                             std::string(target->name) + "'");
  return o;
}

}  // namespace tessera::passes
