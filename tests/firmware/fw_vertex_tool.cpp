// fw_vertex_tool: runs one vertex of any codelet as tessera-firmware.elf runs it: a control
// program of one Execute on one tile, either on the ISS (the RISC-V build of the firmware on
// an emulated tile) or in native mode, for tests/firmware/cnn_torch_check.py (which compares
// the CNN codelets with PyTorch). All words little-endian u32.
//
//   fw_vertex_tool iss|native CODELET
//   stdin:  B, then B buffers (each: its length L in words, then L words); F, then F state
//           fields (each: a kind, 0 = the value itself or 1 = the address of buffer `value`,
//           then the value)
//   stdout: the B buffers after the run, back to back (lengths as given)
// Exit status 0, or 2 with a message (bad input, a trap, a fault).
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/native.h"
#include "scenarios.h"
#include "tessera/emu/tile.h"
#include "tessera/exe/elf.h"

namespace {

using namespace tessera;
using namespace tessera::fwtest;

constexpr uint32_t kSramBytes = 1u << 20;

uint32_t read_word() {
  uint32_t w;
  if (std::fread(&w, 4, 1, stdin) != 1) throw std::runtime_error("short input");
  return w;
}

struct NullRegs : fw::NativeRegs {
  void store(uint32_t, uint32_t) override {}
  uint32_t load(uint32_t) override { return 0; }
};

uint32_t word_at(const std::vector<uint8_t>& sram, uint32_t addr) {
  uint32_t v;
  std::memcpy(&v, sram.data() + (addr - kSramBase), 4);
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc != 3 || (std::string(argv[1]) != "iss" && std::string(argv[1]) != "native"))
      throw std::runtime_error("usage: fw_vertex_tool iss|native CODELET < buffers and fields");
    const bool iss = std::string(argv[1]) == "iss";
    if (fw::codelet_index(argv[2]) == fw::tessera_codelet_count)
      throw std::runtime_error(std::string("no codelet ") + argv[2]);
    const exe::ElfImage elf = exe::read_elf_file(TESSERA_FIRMWARE_ELF);
    std::vector<uint8_t> sram(kSramBytes);
    exe::place_elf(elf, sram.data(), kSramBase, kSramBytes);
    TileImage image(sram, elf.symbol(fw::kSymTileHeader), elf.symbol(fw::kSymFirmwareEnd));
    std::vector<uint32_t> addr, len;
    const uint32_t buffers = read_word();
    for (uint32_t b = 0; b < buffers; ++b) {
      len.push_back(read_word());
      if (len.back() > kSramBytes / 4) throw std::runtime_error("buffer too large");
      std::vector<uint32_t> w(len.back());
      for (uint32_t& x : w) x = read_word();
      addr.push_back(image.put(w));
    }
    std::vector<uint32_t> state(read_word());
    for (uint32_t& f : state) {
      const uint32_t kind = read_word(), value = read_word();
      if (kind == 1 && value >= buffers) throw std::runtime_error("field names buffer " + std::to_string(value));
      f = kind == 1 ? addr[value] : value;
    }
    image.program = {kCtlExecute, 0, kCtlEnd};
    image.compute_sets = {{image.vertex(argv[2], state)}};
    image.write_header(image.write());

    std::vector<uint8_t> after;
    if (iss) {
      emu::Tile tile(0, 1, kSramBytes);
      tile.set_console(stderr);
      tile.load_elf(elf);
      std::memcpy(tile.sram().data(), sram.data(), kSramBytes);
      const emu::StopReason why = tile.hart().run(4'000'000'000ull);
      const emu::Halt& h = tile.hart().halt_info();
      if (why != emu::StopReason::kHalted || h.kind != emu::Halt::Kind::kExit || h.code != 0)
        throw std::runtime_error("the ISS did not halt cleanly (code " + std::to_string(h.code) + ")");
      after.assign(tile.sram().begin(), tile.sram().end());
    } else {
      NullRegs regs;
      fw::NativeTile t;
      t.sram = sram.data();
      t.sram_bytes = kSramBytes;
      t.regs = &regs;
      t.header = elf.symbol(fw::kSymTileHeader);
      for (int i = 0; i < 4 && fw::native_run_until_sync(t) == fw::NativeStop::kSync; ++i) {
      }
      if (!t.halted || t.exit_code != 0)
        throw std::runtime_error("native mode halted with EXIT " + std::to_string(t.exit_code));
      after = sram;
    }
    for (uint32_t b = 0; b < buffers; ++b)
      for (uint32_t i = 0; i < len[b]; ++i) {
        const uint32_t w = word_at(after, addr[b] + 4 * i);
        std::fwrite(&w, 4, 1, stdout);
      }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fw_vertex_tool: %s\n", e.what());
    return 2;
  }
}
