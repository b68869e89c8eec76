// An executable loaded through the host runtime onto an emulated machine of its target, in
// the given mode, with the firmware in every tile: connect streams to `engine` and run.
#pragma once

#include "tessera/arch/targets.h"
#include "tessera/emu/machine.h"
#include "tessera/exe/elf.h"
#include "tessera/exe/executable.h"
#include "tessera/runtime/engine.h"

namespace tessera::testutil {

struct OnEmulator {
  OnEmulator(const exe::Executable& e, emu::Mode mode) : machine(options(e, mode)), engine(with_firmware(machine, e), e) {
    engine.load();
  }
  OnEmulator(const OnEmulator&) = delete;
  OnEmulator& operator=(const OnEmulator&) = delete;

  emu::Machine machine;
  runtime::Engine engine;

 private:
  static emu::MachineOptions options(const exe::Executable& e, emu::Mode mode) {
    emu::MachineOptions mo;
    mo.target = arch::find_target(e.target);
    mo.mode = mode;
    return mo;
  }
  static emu::Machine& with_firmware(emu::Machine& m, const exe::Executable& e) {
    m.load_firmware(exe::parse_elf(e.firmware, "firmware"));
    return m;
  }
};

}  // namespace tessera::testutil
