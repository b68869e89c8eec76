// Shared set-up of the machine tests: the firmware, a 16-tile machine in either mode, and
// the hand-built programs loaded onto it.
#pragma once

#include <gtest/gtest.h>

#include <memory>

#include "examples.h"
#include "program_builder.h"
#include "tessera/arch/device_regs.h"
#include "tessera/arch/tile_map.h"
#include "tessera/emu/machine.h"

namespace tessera::testing {

inline const exe::ElfImage& firmware_elf() {
  static const exe::ElfImage elf = exe::read_elf_file(std::string(TESSERA_TILE_BIN_DIR) + "/runtime/tessera-firmware.elf");
  return elf;
}

inline std::unique_ptr<emu::Machine> make_machine(emu::Mode mode, unsigned threads = 1, const char* target = "small") {
  emu::MachineOptions o;
  o.target = arch::find_target(target);
  o.mode = mode;
  o.threads = threads;
  o.pooled_exchange_entries = 0;  // the tests' exchanges are small: run them on the pool too
  auto m = std::make_unique<emu::Machine>(o);
  m->load_firmware(firmware_elf());
  return m;
}

inline handbuilt::Layout layout_of(emu::Machine& m) {
  return {m.firmware(), arch::kSramBase + static_cast<uint32_t>(m.tile(0).sram().size())};
}

inline const char* mode_name(emu::Mode m) { return m == emu::Mode::kIss ? "iss" : "native"; }

}  // namespace tessera::testing
