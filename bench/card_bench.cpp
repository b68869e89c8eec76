// The card's data paths as card-sim models them (host/card, docs/alveo.md): host-to-device
// (dma_write through every host node: tess_h2d's flits, one 32-bit word a beat, and the fences) and device-to-host
// (dma_read: read requests out, replies into tess_d2h's ring) in bytes per kernel clock, for
// transfers of several sizes spread over every tile, on the Verilated `tiny` and `small`
// kernels. The movers are modelled as keeping up with their streams; card-memory latency,
// XRT's launch overhead and PCIe are not in these figures (docs/alveo.md).
//
//   card_bench FIRMWARE.elf
#include <chrono>
#include <cstdio>
#include <vector>

#include "tessera/arch/targets.h"
#include "tessera/arch/tile_map.h"
#include "tessera/card/card_sim.h"

using namespace tessera;

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: card_bench FIRMWARE.elf\n");
    return 2;
  }
  try {
    const exe::ElfImage fw = exe::read_elf_file(argv[1]);
    std::printf("%-6s %6s %10s | %12s %8s | %12s %8s\n", "target", "tiles", "bytes/tile", "H2D cycles", "B/clock",
                "D2H cycles", "B/clock");
    for (const char* target : {"tiny", "small"}) {
      const arch::Target& t = *arch::find_target(target);
      auto card = card::make_card_sim(target, fw, stdout);
      for (uint32_t per_tile : {64u, 1024u, 16384u}) {
        std::vector<device::DmaSegment> segs;
        for (uint32_t tile = 0; tile < t.tiles; ++tile)
          segs.push_back({tile, arch::kSramBase + 0x4000, per_tile, uint64_t{tile} * per_tile});
        std::vector<uint32_t> host(size_t{t.tiles} * per_tile / 4);
        for (size_t i = 0; i < host.size(); ++i) host[i] = static_cast<uint32_t>(i * 2654435761u);
        const card::CardTraffic before = card->traffic();
        card->dma_write(segs, std::as_bytes(std::span(host)));
        std::vector<uint32_t> back(host.size());
        card->dma_read(segs, std::as_writable_bytes(std::span(back)));
        if (back != host) {
          std::fprintf(stderr, "card_bench: %s: the words read back differ\n", target);
          return 1;
        }
        const card::CardTraffic& a = card->traffic();
        const double hc = double(a.h2d_cycles - before.h2d_cycles), dc = double(a.d2h_cycles - before.d2h_cycles);
        const double bytes = double(t.tiles) * per_tile;
        std::printf("%-6s %6u %10u | %12.0f %8.2f | %12.0f %8.2f\n", target, t.tiles, per_tile, hc, bytes / hc, dc,
                    bytes / dc);
      }
    }
    std::printf("(writes through every host node, reads through node 0; a beat carries one 32-bit word, so each\n"
                " stream's ceiling is 4 B/clock: tiny has 1 host node, small 2)\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "card_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
