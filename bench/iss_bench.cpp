// ISS speed: instructions per second on an integer and an FP-heavy program, one host
// core, median of several runs, with the cycle model on (as the machine runs) and off;
// QEMU's time on the same ELF for scale where it is installed. Times are the thread's CPU
// time, which a shared machine disturbs less than wall time.
//
// Usage: iss_bench FIRMWARE_BENCH_DIR [runs]
#include <time.h>

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
  uint64_t insns = 0, cycles = 0;
  double median_s = 0;
};

double cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

Figure run_iss(const std::string& elf, int runs, bool timing) {
  const auto image = tessera::exe::read_elf_file(elf);
  std::vector<double> times;
  Figure f;
  std::FILE* null = std::fopen("/dev/null", "w");
  for (int i = 0; i < runs; ++i) {
    tessera::emu::Tile tile(0, 1, tessera::arch::find_target("tiny")->sram_bytes);
    tile.set_console(null);
    tile.load_elf(image);
    tile.hart().set_timing(timing);
    const double t0 = cpu_seconds();
    tile.hart().run(~0ull);
    times.push_back(cpu_seconds() - t0);
    if (tile.hart().halt_info().kind != tessera::emu::Halt::Kind::kTohost || tile.hart().halt_info().code != 0) {
      std::fprintf(stderr, "iss_bench: %s did not pass on the ISS\n", elf.c_str());
      std::exit(1);
    }
    f.insns = tile.hart().instret();
    f.cycles = tile.hart().cycle();
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
  std::printf("ISS speed, one host core, CPU time, median of %d runs\n", runs);
  std::printf("%-10s %13s %6s %16s %16s %24s\n", "program", "instructions", "CPI", "timed M insn/s", "untimed M insn/s",
              "QEMU 7.2 wall (w/ start)");
  for (const char* prog : {"int_bench", "fp_bench"}) {
    const std::string elf = dir + "/" + prog + ".elf";
    const Figure timed = run_iss(elf, runs, true), untimed = run_iss(elf, runs, false);
    const double q = run_qemu(elf, runs);
    char qemu[48] = "n/a";
    if (q > 0) std::snprintf(qemu, sizeof qemu, "%.3f s (%.0f M/s)", q, timed.insns / q / 1e6);
    std::printf("%-10s %13llu %6.2f %16.1f %16.1f %24s\n", prog, static_cast<unsigned long long>(timed.insns),
                static_cast<double>(timed.cycles) / static_cast<double>(timed.insns), timed.insns / timed.median_s / 1e6,
                untimed.insns / untimed.median_s / 1e6, qemu);
  }
  return 0;
}
