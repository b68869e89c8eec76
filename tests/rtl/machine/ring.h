// The machine tests' shared pieces: the emulator and the Verilated `tiny` machine with the
// build's firmware, the four-tile ring program, and a run of a hand-built program to the end
// or an error with the ERR_* registers and chosen regions read back.
#pragma once

#include <chrono>
#include <memory>
#include <span>
#include <vector>

#include "program_builder.h"
#include "examples.h"
#include "tessera/arch/device_regs.h"
#include "tessera/emu/machine.h"
#include "tessera/vlt/vlt_machine.h"
#include "firmware_fixture.h"
#include "to_executable.h"

namespace tessera::testing {

inline std::unique_ptr<emu::Machine> make_emu(emu::Mode mode) {
  emu::MachineOptions o;
  o.target = &tiny();
  o.mode = mode;
  auto m = std::make_unique<emu::Machine>(o);
  m->load_firmware(firmware_elf());
  return m;
}
inline std::unique_ptr<vlt::VltMachine> make_vlt() {
  auto m = std::make_unique<vlt::VltMachine>();
  m->load_firmware(firmware_elf());
  return m;
}

// A ring on the four tiles: every tile sends its 4-word `out` to the next tile's `in`
// (exchange 0), then copies `in` to `out` (compute set 0), `rounds` times; tests/machine's
// errors_test.cpp has the 16-tile original.
struct Ring {
  static constexpr uint32_t kWords = 4;
  std::vector<uint32_t> in, out;
  handbuilt::ProgramBuilder b;

  explicit Ring(uint32_t rounds = 3) : b(4, handbuilt::firmware_layout(firmware_elf(), tiny())) {
    for (uint32_t t = 0; t < 4; ++t) {
      in.push_back(b.alloc(t, kWords));
      out.push_back(b.put(t, {t * 16 + 1, t * 16 + 2, t * 16 + 3, t * 16 + 4}));
    }
    for (uint32_t t = 0; t < 4; ++t) {
      b.add_send(t, 0, out[t], kWords * 4, (t + 1) % 4, in[(t + 1) % 4]);
      b.expect((t + 1) % 4, 0, kWords);
      b.add_vertex(t, 0, handbuilt::kCodelet_copy, {out[t], in[t], kWords});
    }
    b.program() = {arch::kCtlRepeat, rounds, 4, arch::kCtlExchange, 0, arch::kCtlExecute, 0, arch::kCtlEnd};
  }
};

// Loads `r` onto `dev`, runs it to the end or an error; returns the events and the ERR_*
// registers (tile, superstep, cause, detail).
struct RunResult {
  uint32_t events = 0, err_tile = 0, err_superstep = 0, err_cause = 0, err_pc = 0, err_tval = 0, err_detail = 0;
  std::vector<uint32_t> outs;
  bool operator==(const RunResult&) const = default;
};
struct Region {
  uint32_t tile, addr, words;
};
inline RunResult run_program(device::Device& dev, handbuilt::ProgramBuilder& b, const std::vector<Region>& read) {
  dev.write_reg(arch::kDevRegControl, device::kControlReset);
  b.load(dev);
  dev.write_reg(arch::kDevRegControl, device::kControlStart);
  RunResult res;
  res.events = dev.wait_event(device::kEventAllHalted | device::kEventError, std::chrono::seconds(60));
  res.err_tile = dev.read_reg(arch::kDevRegErrTile);
  res.err_superstep = dev.read_reg(arch::kDevRegErrSuperstep);
  res.err_cause = dev.read_reg(arch::kDevRegErrCause);
  res.err_detail = dev.read_reg(arch::kDevRegErrDetail);
  res.err_pc = dev.read_reg(arch::kDevRegErrPc);
  res.err_tval = dev.read_reg(arch::kDevRegErrTval);
  for (const Region& r : read) {
    std::vector<uint32_t> w(r.words);
    const device::DmaSegment s{r.tile, r.addr, r.words * 4, 0};
    dev.dma_read({&s, 1}, std::as_writable_bytes(std::span(w)));
    res.outs.insert(res.outs.end(), w.begin(), w.end());
  }
  return res;
}
inline RunResult run_ring(device::Device& dev, Ring& r) {
  std::vector<Region> read;
  for (uint32_t t = 0; t < 4; ++t) read.push_back({t, r.out[t], Ring::kWords});
  return run_program(dev, r.b, read);
}

}  // namespace tessera::testing
