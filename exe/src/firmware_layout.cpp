// The firmware's layout from its ELF symbols, checked.
#include "tessera/exe/firmware_layout.h"

#include <cstdio>

namespace tessera::exe {
namespace {

std::string hex(uint32_t v) {
  char s[16];
  std::snprintf(s, sizeof s, "0x%08x", v);
  return s;
}

}  // namespace

FirmwareLayout firmware_layout(const ElfImage& firmware, const std::string& name) {
  auto need = [&](const char* symbol) {
    const auto it = firmware.symbols.find(symbol);
    if (it == firmware.symbols.end() || it->second == 0)
      throw ElfError(name + ": the firmware ELF has no symbol '" + symbol + "'");
    return it->second;
  };
  FirmwareLayout l;
  l.entry = firmware.entry;
  l.header = need("tessera_tile_header");
  l.text_end = need("__text_end");
  l.stack_bottom = need("__stack_bottom");
  l.stack_top = need("__stack_top");
  l.firmware_end = need("__firmware_end");
  auto order = [&](const char* a, uint32_t va, const char* b, uint32_t vb) {
    if (va > vb)
      throw ElfError(name + ": the firmware's " + a + " (" + hex(va) + ") lies above its " + b + " (" + hex(vb) + ")");
  };
  order("entry", l.entry, "__text_end", l.text_end);
  order("__text_end", l.text_end, "__firmware_end", l.firmware_end);
  order("__stack_bottom", l.stack_bottom, "__stack_top", l.stack_top);
  order("__stack_top", l.stack_top, "__firmware_end", l.firmware_end);
  if (l.header >= l.firmware_end)
    throw ElfError(name + ": the firmware's tessera_tile_header (" + hex(l.header) + ") is not below its __firmware_end (" +
                   hex(l.firmware_end) + ")");
  return l;
}

}  // namespace tessera::exe
