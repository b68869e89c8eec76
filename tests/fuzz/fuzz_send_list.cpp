// libFuzzer harness: the emulator's reading of a send list (tessera/emu/send_list.h), plain
// and strided entries. The input is tile 0's list, 16-byte slots. Every entry is either a
// bad send list (an XCHG_* error naming tile 0 and the entry's slot, after which the
// exchange stops) or runs that the exchange may move: checked here again from the format's
// rules, word by word on the extremes, so a run the reader lets through outside SRAM, over
// the firmware, onto a missing node or over another run of its entry stops the fuzzer.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "tessera/arch/device_regs.h"
#include "tessera/arch/tile_map.h"
#include "tessera/emu/send_list.h"

namespace {

[[noreturn]] void broken(const char* what, uint32_t e) {
  std::fprintf(stderr, "fuzz_send_list: %s (slot %u)\n", what, e);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessera;
  constexpr uint32_t kSramBytes = 64 * 1024, kListAddr = arch::kSramBase + 0x8000;
  const emu::SendListBounds bounds{4, 1, arch::kSramBase + kSramBytes, arch::kSramBase + 0x2000};
  std::vector<arch::SendEntry> list(std::min<size_t>(size / sizeof(arch::SendEntry), 4096));
  if (list.empty()) return 0;
  std::memcpy(list.data(), data, list.size() * sizeof(arch::SendEntry));
  for (uint32_t e = 0; e < list.size(); ++e) {
    const uint32_t first = e;
    emu::SendRuns r;
    if (auto bad = emu::read_send_entry(list, kListAddr, 0, e, bounds, r)) {
      if (bad->what.rfind("tile 0 send entry " + std::to_string(first), 0) != 0) broken("an error not naming the entry", first);
      if (bad->code < arch::kDevErrXchgDoubleWrite || bad->code > arch::kDevErrXchgBadSource) broken("not an XCHG_* error", first);
      return 0;
    }
    const bool strided = list[first].dst_node & arch::kSendRepeat;
    if (e != first + (strided ? 1u : 0u)) broken("the repeat slot not consumed", first);
    if (r.count == 0 || ((r.src | r.dst | r.bytes | r.src_stride | r.dst_stride) & 3)) broken("a bad count or alignment", first);
    if (r.node >= bounds.tiles) broken("a node that is no tile", first);
    const uint64_t last = r.count - 1;
    const uint64_t src_end = r.src + last * r.src_stride + r.bytes, dst_end = r.dst + last * r.dst_stride + r.bytes;
    if (r.src < arch::kSramBase || src_end > bounds.sram_end) broken("a source run outside SRAM", first);
    if (r.dst < arch::kSramBase || dst_end > bounds.sram_end) broken("a destination run outside SRAM", first);
    if (r.bytes && r.dst < bounds.firmware_end) broken("a write into the firmware", first);
    if (r.bytes && r.count > 1 && r.dst_stride < r.bytes) broken("runs that overlap", first);
  }
  return 0;
}
