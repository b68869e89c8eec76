// The tile header: the loader fills it in (found by this symbol in the ELF) before it
// releases the core; the interpreter reads it through tile_header_addr(). It lives in a
// NOLOAD section of its own (link.ld), so crt0's .bss clearing does not touch it.
#include "tessera/arch/control.h"

extern "C" {
__attribute__((section(".tile_header"), aligned(64), used))
tessera::arch::TileHeader tessera_tile_header;
}
