// Hand-assembled machine programs: the control program, per-tile tables, vertex states and
// tensors laid out in tile memory by hand, as the compiler will do it automatically. Used
// by the multi-tile examples and tests before the compiler exists, and as their reference.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/arch/control.h"
#include "tessera/device/device.h"
#include "tessera/exe/firmware_layout.h"

namespace tessera::handbuilt {

// The tile memory a builder lays out: the firmware's (from its ELF's symbols, as the machine
// reports it) up to firmware.firmware_end, the builder's from there to sram_end.
struct Layout {
  exe::FirmwareLayout firmware;
  uint32_t sram_end = 0;  // one past the last SRAM address
};

class ProgramBuilder {
 public:
  ProgramBuilder(uint32_t tiles, const Layout& layout);

  // The global control program (copied to every tile).
  std::vector<uint32_t>& program() { return program_; }

  // Tile memory: allocate words (zeroed unless written) and write them.
  uint32_t alloc(uint32_t tile, uint32_t words);
  uint32_t put(uint32_t tile, const std::vector<uint32_t>& words);  // alloc + write
  void write(uint32_t tile, uint32_t addr, const std::vector<uint32_t>& words);

  // Tables. Indices are dense from 0; every tile has every compute set, exchange, stream
  // and condition (empty where it has no work).
  void add_vertex(uint32_t tile, uint32_t compute_set, uint32_t codelet, const std::vector<uint32_t>& state);
  void add_send(uint32_t tile, uint32_t exchange, uint32_t src, uint32_t bytes, uint32_t dst_tile, uint32_t dst_addr);
  // A strided entry: the entry with kSendRepeat, then `repeat` as its next slot, unchecked.
  void add_send(uint32_t tile, uint32_t exchange, uint32_t src, uint32_t bytes, uint32_t dst_tile, uint32_t dst_addr,
                const arch::SendRepeat& repeat);
  void expect(uint32_t tile, uint32_t exchange, uint32_t words);  // adds to RECV_EXPECT
  void expect_host(uint32_t tile, uint32_t stream, uint32_t words);
  void set_condition(uint32_t tile, uint32_t cond, uint32_t addr);

  // Lays out the tables and writes everything through the device's DMA (the cores must be
  // held in reset, firmware already loaded).
  void load(device::Device& dev);

  // What load() writes: every run of words, the tables and each tile's TileHeader among
  // them. The tables are laid out on the first call of image() or load(); later calls reuse
  // that layout (to_executable.h turns it into an exe::Executable).
  struct Run {
    uint32_t tile = 0, addr = 0;
    std::vector<uint32_t> words;
  };
  std::vector<Run> image();
  // After image(): where tile `tile`'s copy of the program lies, and how long it is.
  uint32_t program_addr(uint32_t tile) const { return tiles_.at(tile).program_addr; }
  uint32_t program_words() const { return static_cast<uint32_t>(program_.size()); }
  uint32_t tile_count() const { return static_cast<uint32_t>(tiles_.size()); }
  // Bytes allocated on `tile` above the firmware (tables, program, state, tensors).
  uint32_t used_bytes(uint32_t tile) const { return tiles_.at(tile).next - layout_.firmware.firmware_end; }
  const Layout& layout() const { return layout_; }

  // Changes one tile's copy of the program (for tests of broken programs) before load().
  void patch_program(uint32_t tile, uint32_t word_index, uint32_t value);

 private:
  struct Tile {
    uint32_t next;  // bump allocator
    std::vector<std::pair<uint32_t, std::vector<uint32_t>>> data;
    std::vector<std::vector<arch::Vertex>> compute_sets;
    std::vector<std::vector<arch::SendEntry>> exchanges;
    std::vector<uint32_t> recv;
    std::vector<uint32_t> stream_recv;
    std::vector<uint32_t> conditions;
    std::vector<std::pair<uint32_t, uint32_t>> program_patches;
    uint32_t program_addr = 0;
  };
  void lay_out();  // once: tables and headers into `data`
  template <typename T>
  static T& at(std::vector<T>& v, uint32_t i) {
    if (v.size() <= i) v.resize(i + 1);
    return v[i];
  }

  Layout layout_;
  std::vector<Tile> tiles_;
  std::vector<uint32_t> program_;
  bool laid_out_ = false;
};

// Reads `words` words at `addr` on `tile` through DMA.
std::vector<uint32_t> read_words(device::Device& dev, uint32_t tile, uint32_t addr, uint32_t words);
void write_words(device::Device& dev, uint32_t tile, uint32_t addr, const std::vector<uint32_t>& words);

// Runs a loaded program to its end: start, then serve host syncs with `on_host_sync`
// (called with the sync's index, 0, 1, ...; it moves data and returns), ring the doorbell.
// Throws std::runtime_error naming the device's error, or the tiles that did not arrive if
// the device hangs past `timeout_ms`.
template <typename F>
void run(device::Device& dev, F&& on_host_sync, int timeout_ms = 20000);

// "tiles 3, 7 did not arrive at the barrier of superstep 12", from the ARRIVED registers.
std::string describe_not_arrived(device::Device& dev);
// The first error as the ERR_* registers and the backend's detail tell it.
std::string describe_error(device::Device& dev);

}  // namespace tessera::handbuilt

#include "program_runner.inl"
