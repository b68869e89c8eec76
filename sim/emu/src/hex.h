// "0x0000abcd": how the emulator's messages print addresses and words.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace tessera::emu {

inline std::string hex(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

}  // namespace tessera::emu
