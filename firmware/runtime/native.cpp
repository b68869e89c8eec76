// Native mode (native.h): the host side of platform.h (the thread's current tile, its
// register port, halting by unwinding) and the entry points the machine calls.
#include "runtime/native.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "codelets/codelets.h"

namespace tessera::fw {

namespace native_detail {

constinit thread_local Context* current = nullptr;

void no_context() {
  std::fprintf(stderr,
               "tessera firmware (native): tile code called with no current tile "
               "(use native_run_until_sync or NativeTileBinding)\n");
  std::abort();
}

void store(uint32_t offset, uint32_t value) {
  Context& c = context();
  if (c.regs) c.regs->store(offset, value);
}

uint32_t load(uint32_t offset) {
  Context& c = context();
  return c.regs ? c.regs->load(offset) : 0;
}

bool past_deadline(int64_t deadline_ns) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch()).count() >= deadline_ns;
}

void halt(uint32_t code) {
  store(arch::kTileRegExit, code);
  throw NativeHalt(code);
}

void fault(uint32_t cause, uint32_t addr) {
  (void)addr;  // the hardware latches it; the machine learns the cause from EXIT
  halt(arch::kExitTrap | cause);
}

}  // namespace native_detail

NativeHalt::NativeHalt(uint32_t c) : std::runtime_error("tile halted"), code(c) {}

NativeTileBinding::NativeTileBinding(NativeTile& tile)
    : context_{tile.sram, tile.sram_bytes, tile.regs, tile.header, tile.deadline_ns},
      previous_(native_detail::current) {
  native_detail::current = &context_;
}

NativeTileBinding::~NativeTileBinding() { native_detail::current = previous_; }

namespace {

// Runs `body` with `tile` bound; a halt inside it marks the tile halted.
template <class Body>
NativeStop run_bound(NativeTile& tile, Body&& body) {
  if (tile.halted) return NativeStop::kHalted;
  NativeTileBinding bind(tile);
  try {
    return body();
  } catch (const NativeHalt& h) {
    tile.halted = true;
    tile.exit_code = h.code;
    return NativeStop::kHalted;
  }
}

}  // namespace

NativeStop native_run_until_sync(NativeTile& tile) {
  return run_bound(tile, [&] {
    const StepResult r = run_until_sync(tile.state);
    if (r == StepResult::kEnd) {  // tile_halt(0) without its throw: every tile ends every run here
      native_detail::store(arch::kTileRegExit, 0);
      tile.halted = true;
      tile.exit_code = 0;
      return NativeStop::kHalted;
    }
    return r == StepResult::kYield ? NativeStop::kYield : NativeStop::kSync;
  });
}

uint32_t native_pass_idle_supersteps(NativeTile& tile, uint32_t most) {
  if (tile.halted) return 0;
  NativeTileBinding bind(tile);
  return pass_idle_supersteps(tile.state, most);
}

NativeStop native_run_codelet(NativeTile& tile, uint32_t index, uint32_t state_addr) {
  return run_bound(tile, [&] {
    if (index >= tessera_codelet_count) tile_halt(arch::kExitBadProgram);
    tessera_codelet_table[index].fn(state_addr);
    return NativeStop::kSync;
  });
}

}  // namespace tessera::fw
