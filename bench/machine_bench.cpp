// Machine speed on the hand-built 16-tile matrix-vector product (repeated), ISS and native
// mode, 1 and 2 host threads: supersteps and simulated instructions per second of wall
// time (the machine is multi-threaded, so CPU time would hide the speed-up). Median of runs.
//
// Usage: machine_bench FIRMWARE_ELF [runs] [repeat]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "examples.h"
#include "tessera/arch/tile_map.h"
#include "tessera/emu/machine.h"

namespace {

using namespace tessera;

struct Result {
  double seconds = 0;
  uint64_t insns = 0, supersteps = 0;
};

Result run_once(const exe::ElfImage& fw, emu::Mode mode, unsigned threads, uint32_t repeat) {
  emu::MachineOptions o;
  o.target = arch::find_target("small");
  o.mode = mode;
  o.threads = threads;
  emu::Machine m(o);
  m.load_firmware(fw);
  handbuilt::MatVec16 mv(7, repeat);
  handbuilt::ProgramBuilder b(m.tile_count(),
                              {m.firmware(), arch::kSramBase + static_cast<uint32_t>(m.tile(0).sram().size())});
  mv.build(b);
  b.load(m);
  const auto t0 = std::chrono::steady_clock::now();
  const auto y = mv.run(m);
  Result r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (uint32_t t = 0; t < m.tile_count(); ++t) r.insns += m.tile(t).hart().instret();
  r.supersteps = m.superstep();
  if (y != mv.reference()) {
    std::fprintf(stderr, "machine_bench: wrong result\n");
    std::exit(1);
  }
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: machine_bench FIRMWARE_ELF [runs] [repeat]\n");
    return 2;
  }
  const auto fw = exe::read_elf_file(argv[1]);
  const int runs = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
  const uint32_t repeat = argc > 3 ? static_cast<uint32_t>(std::atoi(argv[3])) : 200;
  std::printf("16-tile matvec x%u on `small`, wall time, median of %d runs\n", repeat, runs);
  std::printf("%-7s %7s %10s %14s %16s %9s\n", "mode", "threads", "seconds", "supersteps/s", "M insn/s (ISS)", "speed-up");
  for (emu::Mode mode : {emu::Mode::kIss, emu::Mode::kNative}) {
    double one_thread = 0;
    for (unsigned threads : {1u, 2u}) {
      std::vector<Result> rs;
      for (int i = 0; i < runs; ++i) rs.push_back(run_once(fw, mode, threads, repeat));
      std::sort(rs.begin(), rs.end(), [](const Result& a, const Result& b) { return a.seconds < b.seconds; });
      const Result& r = rs[rs.size() / 2];
      if (threads == 1) one_thread = r.seconds;
      char insn[32] = "-";
      if (mode == emu::Mode::kIss) std::snprintf(insn, sizeof insn, "%.1f", r.insns / r.seconds / 1e6);
      std::printf("%-7s %7u %10.4f %14.0f %16s %8.2fx\n", mode == emu::Mode::kIss ? "iss" : "native", threads,
                  r.seconds, r.supersteps / r.seconds, insn, one_thread / r.seconds);
    }
  }
  return 0;
}
