// Shared set-up of the runtime tests: the firmware, a machine of a target in either mode,
// and MatVec16 as an executable.
#pragma once

#include <gtest/gtest.h>

#include <bit>
#include <fstream>
#include <iterator>
#include <memory>

#include "examples.h"
#include "tessera/emu/machine.h"
#include "tessera/runtime/engine.h"
#include "to_executable.h"

namespace tessera::testing {

inline const std::vector<uint8_t>& firmware_bytes() {
  static const std::vector<uint8_t> bytes = [] {
    std::ifstream f(std::string(TESSERA_TILE_BIN_DIR) + "/runtime/tessera-firmware.elf", std::ios::binary);
    return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  }();
  return bytes;
}

inline const arch::Target& small() { return *arch::find_target("small"); }

// A machine configured with the firmware (the emulator learns its layout from the ELF).
inline std::unique_ptr<emu::Machine> make_machine(emu::Mode mode, const char* target = "small") {
  emu::MachineOptions o;
  o.target = arch::find_target(target);
  o.mode = mode;
  auto m = std::make_unique<emu::Machine>(o);
  m->load_firmware(exe::parse_elf(firmware_bytes(), "firmware"));
  return m;
}

// Bit patterns, so that comparisons are bit for bit (and NaN-safe).
inline std::vector<uint32_t> bits(const std::vector<float>& f) {
  std::vector<uint32_t> b;
  for (float v : f) b.push_back(std::bit_cast<uint32_t>(v));
  return b;
}

}  // namespace tessera::testing
