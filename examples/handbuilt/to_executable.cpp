#include "to_executable.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "tessera/arch/arch_hash.h"
#include "tessera/arch/tile_map.h"

namespace tessera::handbuilt {

Layout firmware_layout(const exe::ElfImage& firmware, const arch::Target& target) {
  return {exe::firmware_layout(firmware), arch::kSramBase + target.sram_bytes};
}

exe::Executable to_executable(ProgramBuilder& b, const arch::Target& target, const std::vector<uint8_t>& firmware_elf,
                              const std::string& program_name) {
  if (b.tile_count() != target.tiles)
    throw std::runtime_error("to_executable: the builder has " + std::to_string(b.tile_count()) + " tiles, target '" +
                             std::string(target.name) + "' has " + std::to_string(target.tiles));
  const exe::FirmwareLayout fw = exe::firmware_layout(exe::parse_elf(firmware_elf, "firmware"));
  if (fw.header != b.layout().firmware.header || fw.firmware_end != b.layout().firmware.firmware_end)
    throw std::runtime_error(
        "to_executable: the builder was laid out for another firmware (its header or end differs)");
  exe::Executable e;
  e.target = std::string(target.name);
  e.target_hash = target.hash;
  e.arch_hash = arch::kArchHash;
  e.tiles = target.tiles;
  e.header_addr = b.layout().firmware.header;
  e.firmware = firmware_elf;
  e.firmware_hash = exe::fnv1a(firmware_elf.data(), firmware_elf.size());
  for (ProgramBuilder::Run& r : b.image()) {
    exe::Segment s{r.tile, r.addr, std::vector<uint8_t>(r.words.size() * 4)};
    std::memcpy(s.bytes.data(), r.words.data(), s.bytes.size());
    e.segments.push_back(std::move(s));
  }
  exe::Program p{program_name, b.program_words(), {}, {}, 0, 0};  // no planner steps recorded
  for (uint32_t t = 0; t < target.tiles; ++t) p.tile_program.push_back(b.program_addr(t));
  e.programs.push_back(std::move(p));
  const uint32_t stack = b.layout().firmware.stack_bytes();
  for (uint32_t t = 0; t < target.tiles; ++t) {
    exe::TileMemory m;
    m.stack = stack;
    m.code = b.layout().firmware.firmware_end - arch::kSramBase - stack;
    m.tensors = b.used_bytes(t);
    e.memory.push_back(m);
  }
  return e;
}

exe::Executable matvec16_executable(MatVec16& mv, const arch::Target& target, const std::vector<uint8_t>& firmware_elf,
                                    const std::function<void(ProgramBuilder&)>& edit) {
  using K = MatVec16;
  ProgramBuilder b(target.tiles, firmware_layout(exe::parse_elf(firmware_elf, "firmware"), target));
  mv.build(b);
  if (edit) edit(b);
  exe::Executable e = to_executable(b, target, firmware_elf, "matvec");
  const auto& addr = mv.tile_addrs();

  // x: block c of x on top-row tile c; y: tile (r, c) holds rows 16r + 4c .. +4.
  std::vector<exe::Interval> x, y, a;
  for (uint32_t c = 0; c < 4; ++c) x.push_back({c, addr[c].x, c * K::kBlock, K::kBlock});
  for (uint32_t t = 0; t < K::kTiles; ++t) y.push_back({t, addr[t].y, (t / 4) * K::kBlock + (t % 4) * K::kSlice, K::kSlice});
  // A: row i of block (r, c) is elements (16r + i) * 64 + 16c .. +16.
  for (uint32_t t = 0; t < K::kTiles; ++t)
    for (uint32_t i = 0; i < K::kBlock; ++i)
      a.push_back({t, addr[t].a + i * K::kBlock * 4, ((t / 4) * K::kBlock + i) * K::kN + (t % 4) * K::kBlock, K::kBlock});
  auto by_offset = [](std::vector<exe::Interval>& v) {
    std::sort(v.begin(), v.end(), [](const exe::Interval& p, const exe::Interval& q) { return p.offset < q.offset; });
  };
  by_offset(y);
  by_offset(a);
  e.streams = {{"x", 0, exe::StreamDirection::kHostToDevice, exe::DType::kF32, {K::kN}, x},
               {"y", 1, exe::StreamDirection::kDeviceToHost, exe::DType::kF32, {K::kN}, y}};
  e.programs[0].streams = {0, 1};
  // No live ranges: built without the memory planner, each tensor is live for the whole run.
  e.tensors = {{"A", exe::DType::kF32, {K::kN, K::kN}, a, true, {}},
               {"x", exe::DType::kF32, {K::kN}, x, false, {}},
               {"y", exe::DType::kF32, {K::kN}, y, false, {}}};
  // Host sync, `repeat` x (broadcast + scatter), host sync; bytes: x down 3 rows of 4
  // columns, and every tile's 4 slices of its partial.
  e.supersteps = 2 + 2 * mv.repeat;
  e.exchange_bytes = uint64_t{mv.repeat} * (4 * 3 * K::kBlock * 4 + K::kTiles * 4 * K::kSlice * 4);
  return e;
}

}  // namespace tessera::handbuilt
