// The tiles' SRAM in one mapping. Native mode reads the tiles' SRAM as host memory: a
// classifier's weights stream through it at the memory's bandwidth and the exchange copies
// between tiles all over it. With 4 KiB pages, 1,472 tiles of 624 KiB take about 230,000
// page faults to set up and a TLB miss every 4 KiB read; on 2 MiB pages, 512 times fewer.
// Under AddressSanitizer a poisoned page after each tile's part still catches a native
// codelet that reads past its tile's SRAM, as separate allocations did.
#include "tessera/emu/sram_block.h"

#include <sys/mman.h>

#include <new>

#ifdef TESSERA_SRAM_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace tessera::emu {
namespace {

constexpr size_t kPage = 4096;
constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kGuard = SramBlock::kGuarded ? kPage : 0;

size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

}  // namespace

SramBlock::SramBlock(size_t tiles, size_t bytes)
    : bytes_(bytes), stride_(round_up(bytes, kPage) + kGuard), size_(round_up(tiles * stride_, kHugePage)) {
  if (size_ == 0) return;
  // A huge page more than asked, so that the block can start on a huge page's boundary.
  map_size_ = size_ + kHugePage;
  void* p = mmap(nullptr, map_size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  map_ = static_cast<uint8_t*>(p);
  base_ = map_ + (round_up(reinterpret_cast<uintptr_t>(map_), kHugePage) - reinterpret_cast<uintptr_t>(map_));
#ifdef MADV_HUGEPAGE
  madvise(base_, size_, MADV_HUGEPAGE);  // a hint: without it (or without THP) 4 KiB pages, the same bytes
#endif
  // Anonymous pages read as zero; one write a page maps the tiles' now rather than in a run.
  for (size_t off = 0; off < tiles * stride_; off += kPage) static_cast<volatile uint8_t*>(base_)[off] = 0;
#ifdef TESSERA_SRAM_ASAN
  for (size_t i = 0; i < tiles; ++i) ASAN_POISON_MEMORY_REGION(base_ + i * stride_ + bytes_, stride_ - bytes_);
#endif
}

SramBlock::~SramBlock() {
  if (!map_) return;
#ifdef TESSERA_SRAM_ASAN
  ASAN_UNPOISON_MEMORY_REGION(base_, size_);
#endif
  munmap(map_, map_size_);
}

}  // namespace tessera::emu
