// `tessera profile`: runs one program on the emulator's cycle model or on the Verilated RTL
// (host-to-device streams from --input files, or zeros) and writes its timeline as a Chrome trace.
#include <CLI/CLI.hpp>
#include <fstream>
#include <list>
#include <memory>
#include <stdexcept>

#include "cli.h"
#include "inspect.h"
#include "open_device.h"
#include "paths.h"
#include "stream_files.h"
#include "tessera/arch/targets.h"
#include "tessera/exe/file.h"
#include "tessera/profile/exe_image.h"
#include "tessera/profile/timeline.h"
#include "tessera/profile/trace.h"
#include "tessera/registry/registry.h"
#include "tessera/runtime/engine.h"

namespace tessera::cli {

CLI::App* add_profile_command(CLI::App& app, ProfileArgs& a) {
  CLI::App* c = app.add_subcommand("profile", "run a program on the cycle model or the RTL and write its timeline (Chrome trace JSON)");
  c->add_option("model", a.model, "the executable (.tsx)")->required();
  c->add_option("--device", a.device, "emu (the instruction-set simulator's cycle model) or vlt (the Verilated RTL: cycles measured on it)")
      ->check(CLI::IsMember({"emu", "vlt"}));
  c->add_option("--program", a.program, "program to run (default: the first)");
  c->add_option("--input", a.inputs, "NAME=FILE: a host-to-device stream's transfers (.npy, or raw bytes; default zeros)");
  c->add_option("--tiles-per-track", a.tiles_per_track, "tiles per track (default: one per tile up to 64 tiles, else 64 tracks)")
      ->check(CLI::Range(1u, 1u << 20));
  c->add_flag("--all-tiles", a.all_tiles, "one track per tile, whatever the target");
  c->add_option("--threads", a.threads, "host threads for the emulator")->check(CLI::Range(1u, 1024u));
  c->add_option("--timeout-ms", a.timeout_ms, "the device counts as hung after this long without progress")
      ->check(CLI::Range(1u, 86'400'000u));
  c->add_option("--report", a.report, "also write the run report (JSON, as tessera run --report)");
  c->add_option("--png", a.png, "also draw the timeline as a picture (.png)");
  c->add_option("-o,--output", a.output, "the trace to write (.json)")->required();
  return c;
}

int profile(const ProfileArgs& a) {
  check_input_file(a.model, "profile");
  for (const std::string& arg : a.inputs) check_input_file(split(arg, "--input").file, "--input " + split(arg, "--input").name);
  check_output_file(a.output, "-o");
  if (!a.report.empty()) check_output_file(a.report, "--report");
  if (!a.png.empty()) {
    if (!a.png.ends_with(".png")) throw std::runtime_error("--png '" + a.png + "': the picture must be .png");
    check_output_file(a.png, "--png");
  }
  note("reading " + a.model);
  const exe::Executable e = exe::read_file(a.model);
  const exe::Program* program = &choose_program(e, a.model, a.program);
  const arch::Target* target = arch::find_target(e.target);
  if (!target) throw std::runtime_error("unknown target '" + e.target + "'");
  const profile::ExeImage image(e);

  // From the device registry: the emulator's ISS (its cycle model gives the per-tile
  // cycles) or the Verilated machine (the cycles measured on the RTL).
  const std::unique_ptr<device::Device> device = open_device(a.device, e, a.threads, {});
  runtime::EngineOptions eo;
  eo.progress = note;
  eo.profile_source = registry::profile_source(*device);
  if (!eo.profile_source) throw std::runtime_error("--device " + a.device + ": this device reports no cycles");
  runtime::Engine engine(*device, e, eo);
  engine.load();

  std::list<std::vector<std::byte>> buffers;
  std::vector<std::string> given;
  for (const std::string& arg : a.inputs) {
    const NameFile nf = split(arg, "--input");
    const exe::Stream* s = e.find_stream(nf.name);
    if (!s) throw std::runtime_error("--input " + nf.name + ": no stream of that name in " + a.model);
    engine.connect_stream(nf.name, std::span(buffers.emplace_back(read_stream_input(e, std::span(&program, 1), *s, nf))));
    given.push_back(nf.name);
  }
  for (uint32_t i : program->streams) {
    const exe::Stream& s = e.streams.at(i);
    if (s.in_device_memory() || std::find(given.begin(), given.end(), s.name) != given.end()) continue;
    given.push_back(s.name);
    if (s.direction == exe::StreamDirection::kHostToDevice)
      engine.connect_stream(s.name, [](std::span<std::byte> d) { std::fill(d.begin(), d.end(), std::byte{0}); });
    else
      engine.connect_stream(s.name, [](std::span<std::byte>) {});
  }
  note("profiling program '" + program->name + "' on " +
       (a.device == "vlt" ? std::string("the Verilated RTL") : std::string("the cycle model")));
  try {
    engine.run(program->name, std::chrono::milliseconds(a.timeout_ms));
  } catch (...) {
    if (!a.report.empty()) engine.write_report_json(a.report);
    throw;
  }
  if (!a.report.empty()) engine.write_report_json(a.report);
  const runtime::RunReport& r = engine.reports().back();
  if (r.profile.empty() && r.supersteps > 0)
    throw std::runtime_error("--device " + a.device + ": the run gave no per-superstep cycles");

  profile::TraceOptions to;
  to.group = a.all_tiles ? 1 : a.tiles_per_track;
  to.clock_mhz = target->clock_mhz;
  to.device = a.device;
  std::ofstream out(a.output);
  if (!out) throw std::runtime_error("cannot open '" + a.output + "' for writing");
  profile::write_chrome_trace(out, image, *program, r.profile, to);
  if (!out.flush()) throw std::runtime_error("writing '" + a.output + "' failed");
  if (!a.png.empty()) {
    profile::draw_timeline_png(image, *program, r.profile, profile::trace_group(e.tiles, to), to.clock_mhz, a.png,
                                a.device);
    note("wrote " + a.png);
  }
  uint64_t total = 0;
  for (const auto& s : r.profile) total += s.compute_cycles + s.exchange_cycles;
  note("wrote " + a.output + ": " + std::to_string(r.profile.size()) + " supersteps, " + std::to_string(total) +
       " cycles, " + std::to_string((e.tiles + profile::trace_group(e.tiles, to) - 1) / profile::trace_group(e.tiles, to)) +
       " tile tracks");
  return 0;
}

}  // namespace tessera::cli
