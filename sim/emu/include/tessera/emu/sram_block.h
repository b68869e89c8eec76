// The tiles' SRAM: one zeroed block of host memory for a machine's tiles, each tile's part
// page-aligned, on transparent huge pages where the host gives them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TESSERA_SRAM_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(TESSERA_SRAM_ASAN)
#define TESSERA_SRAM_ASAN 1
#endif

namespace tessera::emu {

class SramBlock {
 public:
  // `tiles` parts of `bytes` each, zeroed, every page written once (so that a run does not
  // take the page faults of its first writes). Throws std::bad_alloc if the host has no
  // memory for them.
  SramBlock(size_t tiles, size_t bytes);
  ~SramBlock();
  SramBlock(const SramBlock&) = delete;
  SramBlock& operator=(const SramBlock&) = delete;

  std::span<uint8_t> tile(size_t i) { return {base_ + i * stride_, bytes_}; }

  // Whether each part is followed by a page that AddressSanitizer reports when read (a
  // native codelet reading past its tile's SRAM, caught as with separate allocations).
#ifdef TESSERA_SRAM_ASAN
  static constexpr bool kGuarded = true;
#else
  static constexpr bool kGuarded = false;
#endif

 private:
  size_t bytes_, stride_, size_;
  size_t map_size_ = 0;
  uint8_t* map_ = nullptr;   // the mapping
  uint8_t* base_ = nullptr;  // tile 0's part: the first huge page boundary in it
};

}  // namespace tessera::emu
