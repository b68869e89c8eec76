// .npy files for tessera run (stream_files.h).
#include "stream_files.h"

#include <stdexcept>

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
