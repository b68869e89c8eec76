#include "synthetic.h"

#include "tessera/arch/arch_hash.h"
#include "tessera/arch/targets.h"

namespace tessera::exe::testing {

Executable synthetic() {
  const arch::Target& t = *arch::find_target("small");
  Executable e;
  e.target = std::string(t.name);
  e.target_hash = t.hash;
  e.arch_hash = arch::kArchHash;
  e.tiles = t.tiles;
  e.header_addr = kHeader;
  const std::string fw = "\x7f" "ELF fake tessera firmware, not a real ELF\0 with a NUL inside";
  e.firmware.assign(fw.begin(), fw.end());
  e.firmware.resize(e.firmware.size() + 64, 0xA5);
  e.firmware_hash = fnv1a(e.firmware.data(), e.firmware.size());

  // Per tile: a 32-byte header and two programs of 8 words.
  for (uint32_t tile = 0; tile < e.tiles; ++tile) {
    std::vector<uint8_t> header(32);
    for (size_t i = 0; i < header.size(); ++i) header[i] = uint8_t(tile * 7 + i);
    e.segments.push_back({tile, kHeader, header});
    e.segments.push_back({tile, 0x80005000, std::vector<uint8_t>(64, uint8_t(0x10 + tile))});
  }
  e.segments.push_back({3, 0x80010000, {1, 2, 3, 4, 5, 6, 7, 8}});  // constant data on one tile

  // w1: f32 [4, 8] split over tiles 0..3; bias: i32 [5] on one tile; bytes: u8 [12] in two runs.
  Tensor w1{"w1", DType::kF32, {4, 8}, {}, true, {}};
  for (uint32_t i = 0; i < 4; ++i) w1.intervals.push_back({i, 0x80008000, i * 8, 8});
  e.tensors.push_back(w1);
  e.tensors.push_back({"bias", DType::kI32, {5}, {{4, 0x80008100, 0, 5}}, true, {}});
  e.tensors.push_back({"bytes", DType::kU8, {3, 4}, {{5, 0x80008200, 0, 8}, {6, 0x80008200, 8, 4}}, false,
                       {{2, 5}, {LiveRange::kWholeRun - 1, LiveRange::kWholeRun - 1}}});  // live ranges
  e.tensors[1].live = {{}};  // the whole run

  e.streams.push_back({"input", 0, StreamDirection::kHostToDevice, DType::kF32, {2, 4},
                       {{0, 0x80009000, 0, 4}, {1, 0x80009000, 4, 4}}});
  e.streams.push_back({"output", 1, StreamDirection::kDeviceToHost, DType::kU32, {3}, {{15, 0x8001FFF4, 0, 3}}});
  // Weights from device memory: 4 words at byte 64 of a 96-byte image.
  e.streams.push_back({"weights", 2, StreamDirection::kDeviceMemoryToDevice, DType::kF32, {4}, {{2, 0x80009000, 0, 4}}, 64});
  for (uint32_t i = 0; i < 96; ++i) e.device_memory.push_back(uint8_t(i * 5 + 1));
  // The stream's 4 words as a 2 x 2 parameter kept there, transposed: each column a run of
  // 2 rows of 1 element at stride 2, column 1 first in device memory.
  e.device_parameters.push_back({"w_dram", DType::kF32, {2, 2}, {{72, 0, 1, 2, 2}, {64, 1, 1, 2, 2}}});

  for (const char* name : {"infer", "train"}) {
    Program p{name, 8, {}, {}, 0, 0};
    for (uint32_t tile = 0; tile < e.tiles; ++tile) p.tile_program.push_back(0x80005000 + (name[0] == 't' ? 32 : 0));
    p.streams = name[0] == 't' ? std::vector<uint32_t>{0, 1, 0} : std::vector<uint32_t>{0, 1};
    p.first_step = name[0] == 't' ? 3 : 0, p.steps = name[0] == 't' ? 0xFFFFFFF0u : 3;
    e.programs.push_back(p);
  }

  e.op_names = {"matmul", "add", "relu", ""};
  e.layer_names = {"fc1", "fc2"};
  for (uint32_t v = 0; v < 100; ++v) e.vertices.push_back({v % 16, v / 16, v % 4, v % 2});
  for (uint32_t tile = 0; tile < e.tiles; ++tile)
    e.memory.push_back({1000 + tile, 2048, 64, 100 * tile, 12, 16, 4096 + tile});
  e.supersteps = 7;
  e.exchange_bytes = (1ull << 40) + 3;  // exercises the 64-bit field
  return e;
}

std::vector<uint8_t> edited(const Executable& e, const std::function<void(fb::Executable&)>& edit) {
  std::vector<uint8_t> bytes = serialize(e);
  edit(*fb::GetMutableExecutable(bytes.data()));
  if (!detail::seal(bytes)) throw std::logic_error("edited(): buffer no longer verifies");
  return bytes;
}

std::string load_error(const std::vector<uint8_t>& bytes) {
  try {
    deserialize(bytes, "model.tsx");
    return "";
  } catch (const ExeError& err) {
    return err.what();
  }
}

}  // namespace tessera::exe::testing
