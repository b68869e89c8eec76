// `tessera run`: read the executable, make the device, load, connect --input/--output to
// streams or tensors, run one program, write the outputs and the report.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <list>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>

#include "cli.h"
#include "open_device.h"
#include "paths.h"
#include "stream_files.h"
#include "tessera/arch/targets.h"
#include "tessera/data/dataset.h"
#include "tessera/exe/file.h"
#include "tessera/registry/registry.h"
#include "tessera/runtime/engine.h"

namespace tessera::cli {

namespace {

void write_bytes(const std::string& path, std::span<const std::byte> data) {
  std::ofstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot open '" + path + "' for writing");
  f.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
  if (!f.flush()) throw std::runtime_error("writing '" + path + "' failed");
}

}  // namespace

const exe::Program& choose_program(const exe::Executable& e, const std::string& model, const std::string& name) {
  const exe::Program* p = name.empty() ? (e.programs.empty() ? nullptr : &e.programs.front()) : e.find_program(name);
  if (p) return *p;
  std::string known;
  for (const auto& q : e.programs) known += (known.empty() ? "" : ", ") + q.name;
  throw std::runtime_error(model + ": no program '" + name + "' (programs: " + (known.empty() ? "none" : known) + ")");
}

int run(const RunArgs& a) {
  // Every path first: a bad output path must not cost a run.
  for (const std::string& arg : a.inputs) check_input_file(split(arg, "--input").file, "--input " + split(arg, "--input").name);
  for (const std::string& arg : a.outputs) check_output_file(split(arg, "--output").file, "--output " + split(arg, "--output").name);
  if (!a.report.empty()) check_output_file(a.report, "--report");
  if (!a.reference_preds.empty()) check_input_file(a.reference_preds, "--reference-preds");
  if (!a.xclbin.empty()) check_input_file(a.xclbin, "--xclbin");
  note("reading " + a.model);
  const exe::Executable e = exe::read_file(a.model);
  // --program A,B: the programs in turn, one load (e.g. a training step, then inference on
  // the weights it left on the device).
  std::vector<const exe::Program*> programs;
  for (size_t at = 0; programs.empty() || at <= a.program.size();) {
    const size_t comma = std::min(a.program.find(',', at), a.program.size());
    if (!a.program.empty() && comma == at) throw std::runtime_error("--program " + a.program + ": an empty program name");
    programs.push_back(&choose_program(e, a.model, a.program.substr(at, comma - at)));
    at = comma + 1;
  }
  if (a.mnist_test && programs.size() > 1) throw std::runtime_error("--mnist-test runs one program: drop the others from --program");
  const exe::Program* program = programs.front();
  const std::unique_ptr<device::Device> device = open_device(a.device, e, a.threads, a.remote, a.xclbin);
  runtime::EngineOptions opts;
  opts.progress = note;
  opts.profile_source = registry::profile_source(*device);
  runtime::Engine engine(*device, e, opts);
  engine.load();

  // Inputs: host-to-device streams get the file as their buffer; tensors are written now.
  std::list<std::vector<std::byte>> buffers;  // stable addresses for the Engine's spans
  // Streams given files: every transfer of every program in the list, in turn.
  std::map<std::string, std::span<std::byte>> stream_buffers;
  auto transfers_of = [&](const exe::Program& p, const std::string& stream) {
    uint64_t n = 0;
    for (uint32_t i : p.streams) n += e.streams.at(i).name == stream;
    return n;
  };
  std::set<std::string> connected;
  // --mnist-test: the 2,000 test digits into stream "x"; "preds" is scored against labels.
  data::Dataset test;
  std::span<std::byte> preds;
  if (a.mnist_test) {
    for (const std::string& arg : a.inputs)
      if (arg.rfind("x=", 0) == 0) throw std::runtime_error("--mnist-test feeds stream x itself: drop --input x=...");
    for (const std::string& arg : a.outputs)
      if (arg.rfind("preds=", 0) == 0) throw std::runtime_error("--mnist-test scores stream preds itself: drop --output preds=...");
    test = data::load_mnist_split(a.mnist_dir, a.mnist_split).test;
    const exe::Stream* x = e.find_stream("x");
    const exe::Stream* p = e.find_stream("preds");
    if (!x || !p) throw std::runtime_error("--mnist-test: " + a.model + " has no 'x' and 'preds' streams (compile mnist-mlp)");
    uint64_t transfers = 0;
    for (uint32_t i : program->streams) transfers += e.streams.at(i).name == "preds";
    if (transfers * exe::transfer_bytes(*p) != test.labels.size() * 4)
      throw std::runtime_error("--mnist-test: the program classifies " + std::to_string(transfers * exe::transfer_bytes(*p) / 4) +
                               " images per run, the test set has " + std::to_string(test.labels.size()) +
                               " (compile with --batch B --batches N, B x N = 2000)");
    auto& xs = buffers.emplace_back(test.images.size() * 4);
    std::memcpy(xs.data(), test.images.data(), xs.size());
    engine.connect_stream("x", std::span(xs));
    preds = std::span(buffers.emplace_back(test.labels.size() * 4));
    engine.connect_stream("preds", preds);
    connected.insert({"x", "preds"});
  }
  for (const std::string& arg : a.inputs) {
    const NameFile nf = split(arg, "--input");
    const std::string& name = nf.name;
    if (const exe::Stream* s = e.find_stream(name)) {
      stream_buffers[name] = std::span(buffers.emplace_back(read_stream_input(e, programs, *s, nf)));
      engine.connect_stream(name, stream_buffers[name]);
      connected.insert(name);
    } else if (const exe::Tensor* t = e.find_tensor(name)) {
      uint64_t elements = 1;
      for (uint32_t d : t->shape) elements *= d;
      const std::vector<std::byte> data =
          is_npy(nf.file) ? read_npy_input(nf.file, name, t->dtype, t->shape, 1)
                          : read_input(nf, elements * exe::dtype_bytes(t->dtype), "tensor '" + name + "'");
      engine.write_tensor(name, std::span<const std::byte>(data));
    } else {
      throw std::runtime_error("--input " + name + ": no stream or tensor of that name in " + a.model);
    }
  }
  // Outputs: device-to-host streams get a buffer of every transfer the program makes.
  std::vector<std::pair<NameFile, std::span<std::byte>>> stream_outputs;
  std::vector<NameFile> tensor_outputs;
  for (const std::string& arg : a.outputs) {
    const NameFile nf = split(arg, "--output");
    if (const exe::Stream* s = e.find_stream(nf.name)) {
      if (s->direction != exe::StreamDirection::kDeviceToHost)
        throw std::runtime_error("--output " + nf.name + ": stream '" + nf.name + "' is host-to-device; use --input");
      uint64_t transfers = 0;
      for (const exe::Program* p : programs) transfers += transfers_of(*p, nf.name);
      if (transfers == 0)
        throw std::runtime_error("--output " + nf.name + ": program '" + (a.program.empty() ? program->name : a.program) +
                                 "' does not use this stream");
      auto& buf = buffers.emplace_back(transfers * exe::transfer_bytes(*s));
      stream_buffers[nf.name] = std::span(buf);
      engine.connect_stream(nf.name, std::span(buf));
      connected.insert(nf.name);
      stream_outputs.push_back({nf, std::span(buf)});
    } else if (e.find_tensor(nf.name) || e.find_device_parameter(nf.name)) {
      tensor_outputs.push_back(nf);  // a device parameter: a weight kept in device memory
    } else {
      throw std::runtime_error("--output " + nf.name + ": no stream, tensor or device parameter of that name in " + a.model);
    }
  }
  // The programs' other streams: inputs are required; unrequested outputs are dropped.
  for (const exe::Program* p : programs)
    for (uint32_t i : p->streams) {
      const exe::Stream& s = e.streams.at(i);
      if (connected.count(s.name) || s.in_device_memory()) continue;
      if (s.direction == exe::StreamDirection::kHostToDevice)
        throw std::runtime_error("program '" + p->name + "' reads stream '" + s.name + "': give --input " + s.name +
                                 "=FILE");
      engine.connect_stream(s.name, [](std::span<std::byte>) {});
      connected.insert(s.name);
    }

  for (size_t k = 0; k < programs.size(); ++k) {
    const exe::Program* p = programs[k];
    // With several programs, each reads and writes its own transfers of a stream's buffer.
    for (const auto& [name, buf] : stream_buffers) {
      if (programs.size() == 1) break;
      const uint64_t bytes = exe::transfer_bytes(*e.find_stream(name)), mine = transfers_of(*p, name);
      uint64_t before = 0;
      for (size_t j = 0; j < k; ++j) before += transfers_of(*programs[j], name);
      if (mine) engine.connect_stream(name, buf.subspan(before * bytes, mine * bytes));
    }
    note("running program '" + p->name + "' on " + a.device);
    try {
      engine.run(p->name, std::chrono::milliseconds(a.timeout_ms));
    } catch (...) {
      if (!a.report.empty()) engine.write_report_json(a.report);  // the failed run is in it
      throw;
    }
    const runtime::RunReport& r = engine.reports().back();
    char line[256];
    std::snprintf(line, sizeof line, "program '%s' done: %u supersteps, %u host syncs, %.3f s; %llu bytes to and from the host",
                  r.program.c_str(), r.supersteps, r.host_syncs, r.wall_seconds, static_cast<unsigned long long>(r.host_bytes));
    if (r.device_memory_bytes)
      std::snprintf(line + std::strlen(line), sizeof line - std::strlen(line), ", %llu to and from device memory",
                    static_cast<unsigned long long>(r.device_memory_bytes));
    note(line);
  }
  const runtime::RunReport& r = engine.reports().back();

  if (a.mnist_test) {
    std::vector<uint32_t> p(test.labels.size());
    std::memcpy(p.data(), preds.data(), p.size() * 4);
    uint32_t right = 0;
    for (size_t i = 0; i < p.size(); ++i) right += p[i] == test.labels[i];
    std::printf("MNIST test digits: %u/%zu classified correctly, accuracy %.2f%%\n", right, p.size(), 100.0 * right / p.size());
    std::printf("%zu images in %.3f s on %s: %.0f images/s\n", p.size(), r.wall_seconds, a.device.c_str(),
                p.size() / r.wall_seconds);
    if (!a.reference_preds.empty()) {
      const std::vector<std::byte> ref = read_input_file(a.reference_preds, "--reference-preds", p.size());
      if (ref.size() != p.size()) throw std::runtime_error(a.reference_preds + ": expected " + std::to_string(p.size()) + " predictions");
      uint32_t same = 0;
      for (size_t i = 0; i < p.size(); ++i) same += p[i] == static_cast<uint32_t>(ref[i]);
      std::printf("agreement with the reference predictions: %u/%zu (%.2f%%)\n", same, p.size(), 100.0 * same / p.size());
    }
  }
  for (const auto& [nf, data] : stream_outputs) {
    const exe::Stream& s = *e.find_stream(nf.name);
    if (is_npy(nf.file)) write_npy_output(nf.file, s.dtype, s.shape, data.size() / std::max<uint64_t>(exe::transfer_bytes(s), 1), data);
    else write_bytes(nf.file, data);
  }
  for (const NameFile& nf : tensor_outputs) {
    const exe::Tensor* t = e.find_tensor(nf.name);
    const exe::DeviceParameter* p = e.find_device_parameter(nf.name);
    if (is_npy(nf.file)) write_npy_output(nf.file, t ? t->dtype : p->dtype, t ? t->shape : p->shape, 1, engine.read_tensor(nf.name));
    else write_bytes(nf.file, engine.read_tensor(nf.name));
  }
  if (!a.report.empty()) engine.write_report_json(a.report);
  return 0;
}

}  // namespace tessera::cli
