// tessera-vlt-machine: runs an executable (.tsx) for the verilated target on the machine RTL
// (VltMachine) through the host runtime's Engine, and with --compare also on the emulator
// (ISS), then checks that every device-to-host stream and every tensor is bit-identical.
// Host-to-device streams get a fixed pseudo-random pattern (--seed). Prints cycles and speed.
// With --cosim it runs both at once superstep by superstep (cosim.h), comparing every tile's
// memory at every release, host sync and the end; --inject corrupts one RTL word to see that
// work, --fst writes a waveform (a model verilated with TESSERA_VLT_MACHINE_TRACE=ON).
// The tool is built per verilated target: tessera-vlt-machine (tiny), tessera-vlt-machine-small.
//
//   tessera-vlt-machine model.tsx [--program NAME]... [--compare] [--seed N]
//   tessera-vlt-machine model.tsx --cosim [--calibrate] [--inject TILE:ADDR:VALUE@SUPERSTEP]
//   tessera-vlt-machine model.tsx --fst FILE
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <map>

#include "tessera/emu/machine.h"
#include "tessera/exe/file.h"
#include "tessera/runtime/engine.h"
#include "tessera/vlt/cosim.h"
#include "tessera/vlt/vlt_machine.h"

namespace {

using namespace tessera;

struct Result {
  std::map<std::string, std::vector<std::byte>> streams, tensors;
};

Result run(device::Device& dev, const exe::Executable& e, const std::vector<std::string>& programs, uint32_t seed) {
  runtime::Engine eng(dev, e);
  eng.load();
  std::map<std::string, std::vector<std::byte>> buffers;
  for (const exe::Stream& s : e.streams) {
    const uint64_t n = exe::transfer_bytes(s);
    std::vector<std::byte>& b = buffers[s.name];
    b.resize(n);
    if (s.direction == exe::StreamDirection::kHostToDevice) {
      uint32_t x = seed;
      for (std::byte& v : b) {
        x = x * 1664525u + 1013904223u;
        v = static_cast<std::byte>(x >> 24);
      }
    }
    eng.connect_stream(s.name, std::span(b));
  }
  Result r;
  for (const std::string& p : programs) {
    eng.run(p, std::chrono::minutes(10));
    for (const exe::Stream& s : e.streams)
      if (s.direction == exe::StreamDirection::kDeviceToHost) {
        auto& out = r.streams[p + "/" + s.name];
        out.insert(out.end(), buffers[s.name].begin(), buffers[s.name].end());
      }
  }
  for (const exe::Tensor& t : e.tensors) r.tensors[t.name] = eng.read_tensor(t.name);
  return r;
}

// Names of the entries that differ between a and b.
std::vector<std::string> differ(const std::map<std::string, std::vector<std::byte>>& a,
                                const std::map<std::string, std::vector<std::byte>>& b) {
  std::vector<std::string> d;
  for (const auto& [name, bytes] : a) {
    auto it = b.find(name);
    if (it == b.end() || it->second != bytes) d.push_back(name);
  }
  return d;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Runs an executable on the verilated machine RTL (and with --compare on the emulator)"};
  std::string path;
  std::vector<std::string> programs;
  bool compare = false;
  uint32_t seed = 1;
  bool cosim = false, calibrate = false;
  std::string inject, fst;
  app.add_option("executable", path, "the .tsx file")->required();
  app.add_flag("--cosim", cosim, "run on the emulator (ISS) and the RTL superstep by superstep, comparing every tile's memory");
  app.add_flag("--calibrate", calibrate, "with --cosim: print compute and barrier cycles of both per superstep");
  app.add_option("--inject", inject,
                 "with --cosim: TILE:ADDR:VALUE@SUPERSTEP writes VALUE at ADDR of TILE's RTL memory after that superstep's "
                 "release (numbers in C notation)");
  app.add_option("--fst", fst, "write a waveform of the RTL run to this FST file (model built with tracing)");
  app.add_option("--program", programs, "programs to run in order (default: the first)");
  app.add_flag("--compare", compare, "also run on the emulator (ISS) and compare every output bit for bit");
  app.add_option("--seed", seed, "seed of the host-to-device stream data");
  CLI11_PARSE(app, argc, argv);

  try {
    const exe::Executable e = exe::read_file(path);
    if (e.target != vlt::VltMachine::target().name) {
      std::fprintf(stderr, "tessera-vlt-machine: %s is for target '%s'; this model is '%s'\n", path.c_str(),
                   e.target.c_str(), std::string(vlt::VltMachine::target().name).c_str());
      return 2;
    }
    if (programs.empty()) programs.push_back(e.programs.at(0).name);
    const exe::ElfImage fw = exe::parse_elf(e.firmware, e.target + " firmware");

    if (cosim) {
      vlt::CosimOptions co;
      co.programs = programs;
      co.seed = seed;
      co.log = stdout;
      if (!inject.empty()) {
        long tile = 0, addr = 0, value = 0, step = 0;
        char tail = 0;
        if (std::sscanf(inject.c_str(), "%li:%li:%li@%li%c", &tile, &addr, &value, &step, &tail) != 4) {
          std::fprintf(stderr, "tessera-vlt-machine: --inject wants TILE:ADDR:VALUE@SUPERSTEP, not '%s'\n", inject.c_str());
          return 2;
        }
        co.after_superstep = [=](vlt::VltMachine& m, const std::string& p, uint32_t s) {
          if (static_cast<long>(s) != step || p != programs.front()) return;
          std::printf("cosim: injecting %#lx at tile %ld address %#lx of the RTL after superstep %ld\n", value, tile, addr,
                      step);
          m.poke_word(static_cast<uint32_t>(tile), static_cast<uint32_t>(addr), static_cast<uint32_t>(value));
        };
      }
      const vlt::CosimResult r = vlt::cosimulate(e, co);
      if (calibrate) vlt::print_calibration(r.steps, stdout);
      std::printf("cosim: %u comparisons, %llu RTL cycles in %.2f s\n", r.compared,
                  static_cast<unsigned long long>(r.rtl_cycles), r.seconds);
      if (!r.ok) {
        std::printf("cosim: FIRST DIFFERENCE: %s\n", r.error.c_str());
        return 1;
      }
      std::printf("cosim: equal at every superstep\n");
      return 0;
    }

    vlt::VltMachine rtl;
    if (!fst.empty()) rtl.trace_fst(fst);
    rtl.load_firmware(fw);
    const auto t0 = std::chrono::steady_clock::now();
    const Result got = run(rtl, e, programs, seed);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("RTL: %llu cycles in %.2f s (%.0f cycles/s)\n", static_cast<unsigned long long>(rtl.cycles()), s,
                rtl.cycles() / s);
    rtl.trace_close();
    if (!fst.empty()) std::printf("waveform: %s\n", fst.c_str());
    if (!compare) return 0;

    emu::MachineOptions o;
    o.target = &vlt::VltMachine::target();
    emu::Machine iss(o);
    iss.load_firmware(fw);
    const Result want = run(iss, e, programs, seed);
    const auto ds = differ(want.streams, got.streams), dt = differ(want.tensors, got.tensors);
    for (const auto& n : ds) std::printf("stream %s differs\n", n.c_str());
    for (const auto& n : dt) std::printf("tensor %s differs\n", n.c_str());
    if (!ds.empty() || !dt.empty()) return 1;
    std::printf("bit-identical to the emulator: %zu stream transfers, %zu tensors\n", want.streams.size(),
                want.tensors.size());
    return 0;
  } catch (const std::exception& ex) {
    std::fprintf(stderr, "tessera-vlt-machine: %s\n", ex.what());
    return 1;
  }
}
