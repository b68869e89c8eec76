// ISS speed: instructions per second on an integer and an FP-heavy program, one host
// core, median of several runs, with the cycle model on (as the machine runs) and off;
// QEMU's time on the same ELF for scale where it is installed. Times are the thread's CPU
// time, which a shared machine disturbs less than wall time. QEMU's time is its CPU time
// (every thread), start-up included, which flatters the ISS a little; its wall time too.
// timed/QEMU: the timed ISS's speed as a multiple of QEMU's.
//
// Usage: iss_bench FIRMWARE_BENCH_DIR [runs]
// With $BENCH_RECORDS set, appends its figures there as bench/record.sh does.
#include <sys/resource.h>
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

struct Qemu {
  double cpu_s = -1, wall_s = -1;  // medians; negative: QEMU is not installed
};

double children_cpu_seconds() {
  rusage ru;
  getrusage(RUSAGE_CHILDREN, &ru);
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

// QEMU running `elf`, start-up included: its CPU time (all its threads, from the waited-for
// children's usage) and its wall time. On a loaded machine the CPU time is the fair anchor
// for the ISS's thread CPU time.
Qemu run_qemu(const std::string& elf, int runs) {
  if (std::system("command -v qemu-system-riscv32 >/dev/null 2>&1") != 0) return {};
  std::vector<double> cpu, wall;
  const std::string cmd = "qemu-system-riscv32 -machine spike -bios none -nographic -kernel " + elf + " >/dev/null";
  for (int i = 0; i < runs; ++i) {
    const double c0 = children_cpu_seconds();
    const auto t0 = std::chrono::steady_clock::now();
    if (std::system(cmd.c_str()) != 0) return {};
    wall.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    cpu.push_back(children_cpu_seconds() - c0);
  }
  std::sort(cpu.begin(), cpu.end());
  std::sort(wall.begin(), wall.end());
  return {cpu[cpu.size() / 2], wall[wall.size() / 2]};
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
  std::printf("%-10s %13s %6s %16s %16s %26s %12s %9s\n", "program", "instructions", "CPI", "timed M insn/s",
              "untimed M insn/s", "QEMU 7.2 CPU (w/ start)", "QEMU wall", "timed/QEMU");
  for (const char* prog : {"int_bench", "fp_bench"}) {
    const std::string elf = dir + "/" + prog + ".elf";
    const Figure timed = run_iss(elf, runs, true), untimed = run_iss(elf, runs, false);
    const Qemu qm = run_qemu(elf, runs);
    const double q = qm.cpu_s;
    char qemu[48] = "n/a", qwall[24] = "n/a", ratio[16] = "n/a";
    if (q > 0) {
      std::snprintf(qemu, sizeof qemu, "%.3f s (%.0f M/s)", q, timed.insns / q / 1e6);
      std::snprintf(qwall, sizeof qwall, "%.3f s", qm.wall_s);
      std::snprintf(ratio, sizeof ratio, "%.2fx", q / timed.median_s);
    }
    if (const char* records = std::getenv("BENCH_RECORDS"); records && *records && q > 0) {
      // Goals (issue 20): the timed ISS at QEMU's speed on fp_bench, half of it on int_bench.
      if (std::FILE* f = std::fopen(records, "a")) {
        std::fprintf(f, "ISS, one tile, cycle model on\t%s\tM insn/s\t%.1f\tQEMU 7.2 (CPU time, with start-up)\t%.1f\trate\t%s\n",
                     prog, timed.insns / timed.median_s / 1e6, timed.insns / q / 1e6,
                     std::string(prog) == "fp_bench" ? "1.0" : "0.5");
        std::fprintf(f, "ISS, one tile, cycle model off\t%s\tM insn/s\t%.1f\tQEMU 7.2 (CPU time, with start-up)\t%.1f\trate\t\n",
                     prog, untimed.insns / untimed.median_s / 1e6, timed.insns / q / 1e6);
        std::fclose(f);
      }
    }
    std::printf("%-10s %13llu %6.2f %16.1f %16.1f %26s %12s %9s\n", prog, static_cast<unsigned long long>(timed.insns),
                static_cast<double>(timed.cycles) / static_cast<double>(timed.insns), timed.insns / timed.median_s / 1e6,
                untimed.insns / untimed.median_s / 1e6, qemu, qwall, ratio);
  }
  return 0;
}
