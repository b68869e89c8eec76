// The platform layer of tile code: the only place that knows whether it runs on a tile's
// RISC-V core or on the host (the emulator's native mode). Everything above it (the
// control-program interpreter, the codelets) is written once against these functions:
//
//   tile_ptr<T>(addr, count)  a tile address -> a pointer to `count` objects of type T
//   extent(a, b, ...)         the count of an array of a x b x ...: exact, or too many for
//                             any SRAM, never a product that wrapped
//   reg_write<OFFSET>(value)  store to the tile register block (arch/tile_map.toml)
//   reg_read<OFFSET>()        load from it
//   tile_halt(code)           write EXIT and never return
//   tile_header_addr()        tile address of this tile's TileHeader
//   tile_should_yield()       native mode's watchdog: true when the host's deadline for
//                             this run has passed (the interpreter then returns between
//                             two ops); always false on RISC-V
//
// RISC-V: tile addresses are the core's addresses, so tile_ptr is a cast and the registers
// are single lw/sw instructions off x0 (the block is the top 2 KiB of the address space).
//
// Host (native mode): a thread-local "current tile" (bound by native_run_until_sync, see
// native.h) holds the tile's SRAM as a host buffer and a register port. tile_ptr
// translates an SRAM address into that buffer and checks the whole range [addr,
// addr + count * sizeof(T)) against it and the alignment of T. A bad range halts the tile
// as the hardware would trap on the first bad access: EXIT = kExitTrap | cause, where the
// cause is what RISC-V reports for that access: 4 (load address misaligned) or 6 (store)
// when addr is not aligned to T, else 5 (load access fault) or 7 (store access fault)
// when the range is not inside SRAM. Loads are `const T`, stores non-const T: a codelet
// that only reads a region must ask for a const pointer. (A codelet that faults part way
// on the core may have written some outputs first; native mode faults before any.)
// A `count` of 0 asks for nothing and never faults; the pointer is then null.
#pragma once

#include <stdint.h>

#include "tessera/arch/control.h"
#include "tessera/arch/tile_map.h"

#if !defined(__riscv)
#include <type_traits>
#endif

namespace tessera::fw {

// The number of elements of an array with these extents, for tile_ptr's count: the exact
// product while it is below 2^32, else 2^32 (more elements than any SRAM has bytes, so
// tile_ptr faults), 0 when an extent is 0. Never a product that wrapped to a small count:
// 2 * 2977518503 * 3097670771 is 10 modulo 2^64, and h * wd in 32 bits is 0 for 65536 x
// 65536. (No division: the tile has no 64-bit one.)
constexpr uint64_t kExtentTooMany = uint64_t{1} << 32;
constexpr uint64_t extent(uint64_t a) { return a; }
template <class... Rest>
constexpr uint64_t extent(uint64_t a, uint64_t b, Rest... rest) {
  uint64_t p = 0;
  if (a != 0 && b != 0) {
    p = (a >= kExtentTooMany || b >= kExtentTooMany) ? kExtentTooMany : a * b;  // < 2^64
    if (p > kExtentTooMany) p = kExtentTooMany;
  }
  return extent(p, static_cast<uint64_t>(rest)...);
}

// True when one of the extents is 0: an empty array (cheaper than extent() == 0 on the tile).
template <class... E>
constexpr bool no_elements(E... extents) {
  return ((extents == 0) || ...);
}

#if defined(__riscv)

extern "C" arch::TileHeader tessera_tile_header;  // runtime/header.cpp, placed by link.ld

template <class T>
inline T* tile_ptr(uint32_t addr, uint64_t count = 1) {
  (void)count;
  return reinterpret_cast<T*>(static_cast<uintptr_t>(addr));
}

// One sw/lw off x0: the register block sits at -2048..-1 as a 12-bit immediate. The
// "memory" clobber keeps every tile-memory access on its side of a barrier or EXIT.
template <uint32_t kOffset>
inline void reg_write(uint32_t value) {
  static_assert(kOffset < arch::kRegsBytes && kOffset % 4 == 0);
  asm volatile("sw %0, %1(zero)"
               :
               : "r"(value), "i"(static_cast<int32_t>(kOffset) - 2048)
               : "memory");
}

template <uint32_t kOffset>
inline uint32_t reg_read() {
  static_assert(kOffset < arch::kRegsBytes && kOffset % 4 == 0);
  uint32_t value;
  asm volatile("lw %0, %1(zero)"
               : "=r"(value)
               : "i"(static_cast<int32_t>(kOffset) - 2048)
               : "memory");
  return value;
}

[[noreturn]] inline void tile_halt(uint32_t code) {
  reg_write<arch::kTileRegExit>(code);
  for (;;) asm volatile("wfi");  // EXIT halts the core; never reached
}

inline uint32_t tile_header_addr() {
  return static_cast<uint32_t>(reinterpret_cast<uintptr_t>(&tessera_tile_header));
}

// The core is stopped from outside (the host resets it); it never gives up by itself.
constexpr bool tile_should_yield() { return false; }

#else  // the host: native mode

class NativeRegs;

namespace native_detail {

// The tile the calling thread is running (bound by native_run_until_sync and
// NativeTileBinding in native.h; null outside them).
struct Context {
  uint8_t* sram;
  uint32_t sram_bytes;
  NativeRegs* regs;
  uint32_t header;  // tile address of the TileHeader
  int64_t deadline_ns;  // steady_clock time (ns) after which the interpreter yields; 0: never
};
extern thread_local constinit Context* current;  // constinit: no TLS init hook per access

[[noreturn]] void no_context();
[[noreturn]] void halt(uint32_t code);                   // EXIT code, then unwinds to the binder
[[noreturn]] void fault(uint32_t cause, uint32_t addr);  // halt(kExitTrap | cause)
void store(uint32_t offset, uint32_t value);
uint32_t load(uint32_t offset);
bool past_deadline(int64_t deadline_ns);  // steady_clock now >= deadline_ns

inline Context& context() {
  Context* c = current;
  if (!c) no_context();
  return *c;
}

}  // namespace native_detail

// tile_ptr's checks without the fault: the place of [addr, addr + count * sizeof(T)) when
// addr is aligned to T and the range lies inside SRAM, else null (also for a count of 0).
template <class T>
inline T* tile_ptr_or_null(uint32_t addr, uint64_t count = 1) {
  const native_detail::Context& c = native_detail::context();
  const uint64_t offset = static_cast<uint64_t>(addr) - arch::kSramBase;  // huge if addr < base
  // count <= sram_bytes < 2^32 before the multiply, so nothing overflows.
  if (count == 0 || addr % alignof(T) != 0 || addr < arch::kSramBase || count > c.sram_bytes ||
      offset + count * sizeof(T) > c.sram_bytes)
    return nullptr;
  return reinterpret_cast<T*>(c.sram + offset);
}

template <class T>
inline T* tile_ptr(uint32_t addr, uint64_t count = 1) {
  if (count == 0) return nullptr;
  if (T* p = tile_ptr_or_null<T>(addr, count)) return p;
  constexpr bool kLoad = std::is_const_v<T>;
  native_detail::fault(addr % alignof(T) != 0 ? (kLoad ? 4 : 6) : (kLoad ? 5 : 7), addr);
}

template <uint32_t kOffset>
inline void reg_write(uint32_t value) {
  static_assert(kOffset < arch::kRegsBytes && kOffset % 4 == 0);
  native_detail::store(kOffset, value);
}

template <uint32_t kOffset>
inline uint32_t reg_read() {
  static_assert(kOffset < arch::kRegsBytes && kOffset % 4 == 0);
  return native_detail::load(kOffset);
}

[[noreturn]] inline void tile_halt(uint32_t code) { native_detail::halt(code); }

inline uint32_t tile_header_addr() { return native_detail::context().header; }

// The clock is read at every 16th op of the thread's tiles: a read costs about as much as a
// short op's step (1.8% of ResNet-18's run when read at every op), and a tile that loops
// without a barrier still yields within 16 ops of the deadline.
inline bool tile_should_yield() {
  const int64_t d = native_detail::context().deadline_ns;
  thread_local constinit uint32_t ops = 0;
  return d != 0 && (++ops & 15) == 0 && native_detail::past_deadline(d);
}

#endif

}  // namespace tessera::fw
