// .npy files for tessera run (stream_files.h).
#include "stream_files.h"

#include <stdexcept>

#include "paths.h"
#include "tessera/npy/npy.h"

namespace tessera::cli {

namespace {

std::vector<uint32_t> batched(std::vector<uint32_t> shape, uint64_t transfers) {
  if (transfers == 1) return shape;
  if (shape.empty()) return {static_cast<uint32_t>(transfers)};
  shape[0] = static_cast<uint32_t>(shape[0] * transfers);
  return shape;
}

std::string type_text(exe::DType t, const std::vector<uint32_t>& shape) {
  npy::Array a;
  a.dtype = t;
  a.shape = shape;
  return npy::describe(a);
}

}  // namespace

NameFile split(const std::string& arg, const char* option) {
  const size_t eq = arg.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == arg.size())
    throw std::runtime_error(std::string(option) + " '" + arg + "': expected NAME=FILE");
  return {arg.substr(0, eq), arg.substr(eq + 1)};
}

std::vector<std::byte> read_input(const NameFile& nf, uint64_t want, const std::string& what) {
  const std::string option = "--input " + nf.name;
  std::vector<std::byte> b = read_input_file(nf.file, option, static_cast<size_t>(want));
  if (b.size() != want)
    throw std::runtime_error(option + " '" + nf.file + "': " + std::to_string(b.size()) + " bytes, but " + what + " takes " +
                             std::to_string(want));
  return b;
}

std::vector<std::byte> read_stream_input(const exe::Executable& e, std::span<const exe::Program* const> programs,
                                         const exe::Stream& s, const NameFile& nf) {
  const std::string& name = nf.name;
  if (s.direction != exe::StreamDirection::kHostToDevice)
    throw std::runtime_error("--input " + name + ": stream '" + name + "' is device-to-host; use --output");
  uint64_t transfers = 0;
  std::string names;
  for (const exe::Program* p : programs) {
    for (uint32_t i : p->streams) transfers += e.streams.at(i).name == name;
    names += (names.empty() ? "" : ",") + p->name;
  }
  if (transfers == 0) throw std::runtime_error("--input " + name + ": program '" + names + "' does not use this stream");
  if (is_npy(nf.file)) return read_npy_input(nf.file, name, s.dtype, s.shape, transfers);
  return read_input(nf, transfers * exe::transfer_bytes(s),
                    "stream '" + name + "' (" + std::to_string(transfers) + " transfers of " +
                        std::to_string(exe::transfer_bytes(s)) + " bytes)");
}

bool is_npy(const std::string& file) { return file.size() > 4 && file.compare(file.size() - 4, 4, ".npy") == 0; }

std::vector<std::byte> read_npy_input(const std::string& file, const std::string& name, exe::DType dtype,
                                      const std::vector<uint32_t>& shape, uint64_t transfers) {
  npy::Array a = npy::read_file(file);
  std::vector<uint32_t> stacked = shape;
  stacked.insert(stacked.begin(), static_cast<uint32_t>(transfers));
  const bool fits = a.dtype == dtype && (a.shape == batched(shape, transfers) || (transfers > 1 && a.shape == stacked));
  if (!fits)
    throw std::runtime_error("--input " + name + ": " + file + " holds " + npy::describe(a) + ", the stream takes " +
                             type_text(dtype, batched(shape, transfers)) +
                             (transfers > 1 ? " (" + std::to_string(transfers) + " transfers of " + type_text(dtype, shape) + ")" : ""));
  return std::move(a.data);
}

void write_npy_output(const std::string& file, exe::DType dtype, const std::vector<uint32_t>& shape, uint64_t transfers,
                      std::span<const std::byte> data) {
  npy::Array a;
  a.dtype = dtype;
  a.shape = batched(shape, transfers);
  a.data.assign(data.begin(), data.end());
  npy::write_file(file, a);
}

}  // namespace tessera::cli
