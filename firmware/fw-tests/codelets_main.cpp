// fw-codelets.elf: the codelet suite (codelet_suite.h) on the tile's RISC-V core, as a
// stand-alone HTIF program (firmware/link.ld, common/crt0.S). Prints one line per result
// word, "TAG INDEX VALUE" (index and value in hex, 8 digits), then "done"; the host test
// (tests/firmware) runs the same suite natively and compares.
#include "common/tile_io.h"
#include "fw-tests/codelet_suite.h"

namespace {

// The suite's memory: inputs, state records and outputs (tile addresses into .bss).
uint32_t g_arena[4 * 1024];  // 16 KiB: each case gives its memory back (Mark)

struct PrintSink {
  void word(const char* tag, uint32_t index, uint32_t value) {
    tile_puts(tag);
    tile_putchar(' ');
    tile_puthex(index);
    tile_putchar(' ');
    tile_puthex(value);
    tile_putchar('\n');
  }
  void before(uint32_t, uint32_t) {}
  void after(uint32_t, uint32_t) {}
};

}  // namespace

int main() {
  PrintSink sink;
  tessera::fw::suite::run_codelet_suite(static_cast<uint32_t>(reinterpret_cast<uintptr_t>(g_arena)),
                                        sizeof(g_arena), sink);
  tile_puts("done\n");
  return 0;
}
