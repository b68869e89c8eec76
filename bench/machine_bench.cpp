// Machine speed on the hand-built 16-tile matrix-vector product (repeated) on `small`, on
// devices from the registry (default: emu and emu-native) with 1 and 2 host threads: wall
// time and supersteps (the device's SUPERSTEP register at the end of the run) per second of
// wall time (the emulator is multi-threaded, so CPU time would hide the speed-up). Median of
// runs, each on a device opened and loaded afresh (not timed); every run's y is checked
// against the reference.
//
// Usage: machine_bench FIRMWARE_ELF [runs] [repeat] [--device URI]... [--threads N]...
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "examples.h"
#include "tessera/arch/targets.h"
#include "tessera/registry/registry.h"
#include "tessera/runtime/engine.h"
#include "to_executable.h"

namespace {

using namespace tessera;

struct Result {
  double seconds = 0;
  uint32_t supersteps = 0;
};

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open the firmware");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

Result run_once(const std::string& uri, unsigned threads, const std::vector<uint8_t>& firmware, uint32_t repeat) {
  const arch::Target& small = *arch::find_target("small");
  handbuilt::MatVec16 mv(7, repeat);
  const exe::Executable e = handbuilt::matvec16_executable(mv, small, firmware);
  registry::Options o;
  o.threads = threads;
  auto dev = registry::open(uri, o);
  dev->configure(e.target, std::as_bytes(std::span(e.firmware)));
  runtime::Engine engine(*dev, e);
  engine.load();
  std::vector<float> x = mv.x, y(mv.x.size());
  engine.connect_stream("x", std::span(x));
  engine.connect_stream("y", std::span(y));
  engine.run("matvec", std::chrono::minutes(10));
  if (y != mv.reference()) throw std::runtime_error(uri + ": wrong result");
  const runtime::RunReport& r = engine.reports().back();
  return {r.wall_seconds, r.supersteps};
}

int usage() {
  std::fprintf(stderr, "usage: machine_bench FIRMWARE_ELF [runs] [repeat] [--device URI]... [--threads N]...\n"
                       "  devices: %s (default: emu emu-native); threads default: 1 2\n",
               registry::usages().c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> positional, devices;
  std::vector<unsigned> thread_counts;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if ((a == "--device" || a == "--threads") && i + 1 < argc) {
      const std::string v = argv[++i];
      if (a == "--device") {
        try {
          registry::check_uri(v);
        } catch (const std::exception& e) {
          std::fprintf(stderr, "machine_bench: %s\n", e.what());
          return 2;
        }
        devices.push_back(v);
      } else {
        const int n = std::atoi(v.c_str());
        if (n < 1 || n > 256) {
          std::fprintf(stderr, "machine_bench: --threads %s: a count from 1 to 256\n", v.c_str());
          return 2;
        }
        thread_counts.push_back(static_cast<unsigned>(n));
      }
    } else if (a.starts_with("-")) {
      return usage();
    } else {
      positional.push_back(a);
    }
  }
  if (positional.empty() || positional.size() > 3) return usage();
  if (devices.empty()) devices = {"emu", "emu-native"};
  if (thread_counts.empty()) thread_counts = {1, 2};
  const int runs = positional.size() > 1 ? std::max(1, std::atoi(positional[1].c_str())) : 5;
  const uint32_t repeat =
      positional.size() > 2 ? static_cast<uint32_t>(std::max(1, std::atoi(positional[2].c_str()))) : 200;
  try {
    const std::vector<uint8_t> firmware = read_file(positional[0]);
    std::printf("16-tile matvec x%u on `small`, wall time, median of %d runs\n", repeat, runs);
    std::printf("%-28s %7s %10s %11s %14s %9s\n", "device", "threads", "seconds", "supersteps", "supersteps/s",
                "speed-up");
    for (const std::string& uri : devices) {
      double first = 0;
      for (unsigned threads : thread_counts) {
        std::vector<Result> rs;
        for (int i = 0; i < runs; ++i) rs.push_back(run_once(uri, threads, firmware, repeat));
        std::sort(rs.begin(), rs.end(), [](const Result& a, const Result& b) { return a.seconds < b.seconds; });
        const Result& r = rs[rs.size() / 2];
        if (first == 0) first = r.seconds;
        std::printf("%-28s %7u %10.4f %11u %14.0f %8.2fx\n", uri.c_str(), threads, r.seconds, r.supersteps,
                    r.supersteps / r.seconds, first / r.seconds);
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "machine_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
