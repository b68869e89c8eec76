// tessera-demo16: runs the hand-built 16-tile programs on the emulated `small` machine and
// prints their results against plain C++, and the cycles of every superstep.
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>

#include <CLI/CLI.hpp>

#include "examples.h"
#include "tessera/arch/tile_map.h"
#include "tessera/emu/machine.h"

namespace {

using namespace tessera;

std::unique_ptr<emu::Machine> machine(const std::string& firmware, emu::Mode mode, unsigned threads) {
  emu::MachineOptions o;
  o.target = arch::find_target("small");
  o.mode = mode;
  o.threads = threads;
  auto m = std::make_unique<emu::Machine>(o);
  m->load_firmware(exe::read_elf_file(firmware));
  return m;
}

handbuilt::Layout layout(emu::Machine& m) {
  return {m.firmware(), arch::kSramBase + static_cast<uint32_t>(m.tile(0).sram().size())};
}

void print_profile(const emu::Machine& m) {
  std::printf("  %-9s %-9s %14s %16s %8s   %s\n", "superstep", "kind", "compute cyc", "exch+sync cyc", "words",
              "per-tile compute cycles (tile 0..15)");
  uint64_t total = 0;
  for (const auto& p : m.profile()) {
    std::printf("  %-9u %-9s %14llu %16llu %8llu  ", p.superstep, p.kind ? "host sync" : "exchange",
                static_cast<unsigned long long>(p.compute_cycles), static_cast<unsigned long long>(p.exchange_cycles),
                static_cast<unsigned long long>(p.exchange_words));
    for (uint32_t c : p.tile_cycles) std::printf(" %u", c);
    std::printf("\n");
    total += p.compute_cycles + p.exchange_cycles;
  }
  std::printf("  total %llu cycles\n", static_cast<unsigned long long>(total));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Runs the hand-built 16-tile matrix-vector product and all-reduce on the emulator."};
  std::string firmware, mode_name = "iss";
  unsigned threads = 1;
  app.add_option("--firmware", firmware, "tessera-firmware.elf")->required();
  app.add_option("--mode", mode_name, "iss or native")->check(CLI::IsMember({"iss", "native"}));
  app.add_option("--threads", threads, "host threads for compute phases");
  CLI11_PARSE(app, argc, argv);
  const emu::Mode mode = mode_name == "iss" ? emu::Mode::kIss : emu::Mode::kNative;
  bool ok = true;
  try {
    auto m = machine(firmware, mode, threads);
    handbuilt::MatVec16 mv(7);
    handbuilt::ProgramBuilder b(m->tile_count(), layout(*m));
    mv.build(b);
    b.load(*m);
    const auto y = mv.run(*m);
    const auto want = mv.reference();
    const auto exact = mv.exact();
    uint32_t same = 0;
    double max_err = 0;
    for (size_t i = 0; i < y.size(); ++i) {
      same += std::bit_cast<uint32_t>(y[i]) == std::bit_cast<uint32_t>(want[i]);
      max_err = std::max(max_err, std::fabs(y[i] - exact[i]));
    }
    std::printf("matvec 64x64 on 16 tiles (%s mode): y[0..3] = %.6f %.6f %.6f %.6f\n", mode_name.c_str(), y[0], y[1],
                y[2], y[3]);
    std::printf("  %u/%zu elements bit-identical to plain C++; max |error| vs double %.2e\n", same, y.size(), max_err);
    ok &= same == y.size();
    if (mode == emu::Mode::kIss) print_profile(*m);

    auto m2 = machine(firmware, mode, threads);
    handbuilt::AllReduce16 ar(11, true);
    handbuilt::ProgramBuilder b2(m2->tile_count(), layout(*m2));
    ar.build(b2);
    b2.load(*m2);
    const auto got = ar.run(*m2);
    const auto ref = ar.reference();
    uint32_t tiles_ok = 0;
    for (const auto& v : got) tiles_ok += std::equal(v.begin(), v.end(), ref.begin(), [](float a, float b) {
      return std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(b);
    });
    std::printf("all-reduce of 16 x 64 floats, 3 rounds + relu: v[0..3] = %.6f %.6f %.6f %.6f\n", got[0][0], got[0][1],
                got[0][2], got[0][3]);
    std::printf("  %u/16 tiles bit-identical to plain C++\n", tiles_ok);
    ok &= tiles_ok == 16;
    if (mode == emu::Mode::kIss) print_profile(*m2);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tessera-demo16: %s\n", e.what());
    return 1;
  }
  return ok ? 0 : 1;
}
