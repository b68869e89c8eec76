// ISS speed: instructions per second on an integer and an FP-heavy program, one host
// core, median of several runs; QEMU's time on the same ELF for scale where it is installed.
//
// Usage: iss_bench FIRMWARE_BENCH_DIR [runs]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tessera/arch/targets.h"
#include "tessera/emu/tile.h"

namespace {

struct Figure {
  uint64_t insns = 0;
  double median_s = 0;
};

Figure run_iss(const std::string& elf, int runs) {
  const auto image = tessera::emu::read_elf_file(elf);
  std::vector<double> times;
  Figure f;
  std::FILE* null = std::fopen("/dev/null", "w");
  for (int i = 0; i < runs; ++i) {
    tessera::emu::Tile tile(0, 1, tessera::arch::find_target("tiny")->sram_bytes);
    tile.set_console(null);
    tile.load_elf(image);
    const auto t0 = std::chrono::steady_clock::now();
    tile.hart().run(~0ull);
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    if (tile.hart().halt_info().kind != tessera::emu::Halt::Kind::kTohost || tile.hart().halt_info().code != 0) {
      std::fprintf(stderr, "iss_bench: %s did not pass on the ISS\n", elf.c_str());
      std::exit(1);
    }
    f.insns = tile.hart().instret();
  }
  std::fclose(null);
  std::sort(times.begin(), times.end());
  f.median_s = times[times.size() / 2];
  return f;
}

// Wall time of QEMU running `elf`, minus its start-up (measured on an immediate exit), or
// a negative number if QEMU is not installed.
double run_qemu(const std::string& elf, int runs) {
  if (std::system("command -v qemu-system-riscv32 >/dev/null 2>&1") != 0) return -1;
  std::vector<double> times;
  const std::string cmd = "qemu-system-riscv32 -machine spike -bios none -nographic -kernel " + elf + " >/dev/null";
  for (int i = 0; i < runs; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    if (std::system(cmd.c_str()) != 0) return -1;
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: iss_bench FIRMWARE_BENCH_DIR [runs]\n");
    return 2;
  }
  const std::string dir = argv[1];
  const int runs = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
  std::printf("ISS speed, one host core, median of %d runs\n", runs);
  std::printf("%-10s %14s %10s %12s %22s\n", "program", "instructions", "seconds", "M insn/s", "QEMU 7.2 (incl. start)");
  for (const char* prog : {"int_bench", "fp_bench"}) {
    const std::string elf = dir + "/" + prog + ".elf";
    const Figure f = run_iss(elf, runs);
    const double q = run_qemu(elf, runs);
    char qemu[48] = "n/a";
    if (q > 0) std::snprintf(qemu, sizeof qemu, "%.3f s (%.0f M/s)", q, f.insns / q / 1e6);
    std::printf("%-10s %14llu %10.3f %12.1f %22s\n", prog, static_cast<unsigned long long>(f.insns), f.median_s,
                f.insns / f.median_s / 1e6, qemu);
  }
  return 0;
}
