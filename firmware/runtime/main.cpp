// The firmware's main loop on the tile (RISC-V only; native mode drives the interpreter
// from runtime/native.cpp instead): run the control program to each barrier, wait there
// with one blocking SYNC read, and halt with EXIT 0 when the program ends.
#include "runtime/interpreter.h"
#include "runtime/platform.h"

namespace tessera::fw {
namespace {
RunState g_run_state;  // in .bss: zero, i.e. at the start of the program
}  // namespace

extern "C" [[noreturn]] void tessera_main() {
  for (;;) {
    if (run_until_sync(g_run_state) == StepResult::kEnd) tile_halt(0);
    (void)reg_read<arch::kTileRegSync>();  // blocks until the barrier releases
  }
}

}  // namespace tessera::fw
