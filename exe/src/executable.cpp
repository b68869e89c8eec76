// The small helpers of the in-memory executable: dtypes, lookups by name, FNV-1a.
#include "tessera/exe/executable.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace tessera::exe {

uint32_t dtype_bytes(DType t) {
  switch (t) {
    case DType::kF32:
    case DType::kI32:
    case DType::kU32: return 4;
    case DType::kU8: return 1;
  }
  return 0;  // not a DType: callers treat 0 as invalid
}

uint64_t transfer_bytes(const Stream& s) {
  uint64_t n = dtype_bytes(s.dtype);
  for (uint32_t d : s.shape) n *= d;
  return n;
}

const char* direction_name(StreamDirection d) {
  switch (d) {
    case StreamDirection::kHostToDevice: return "host->device";
    case StreamDirection::kDeviceToHost: return "device->host";
    case StreamDirection::kDeviceMemoryToDevice: return "device memory->device";
    case StreamDirection::kDeviceToDeviceMemory: return "device->device memory";
  }
  return "?";
}

const char* dtype_name(DType t) {
  switch (t) {
    case DType::kF32: return "f32";
    case DType::kI32: return "i32";
    case DType::kU32: return "u32";
    case DType::kU8: return "u8";
  }
  return "?";
}

namespace {
// Linear lookup: a few hundred names at most, and only at load or by name from the user.
template <typename T>
const T* find_named(const std::vector<T>& items, const std::string& name) {
  auto it = std::find_if(items.begin(), items.end(), [&](const T& x) { return x.name == name; });
  return it == items.end() ? nullptr : &*it;
}
}  // namespace

const Tensor* Executable::find_tensor(const std::string& name) const { return find_named(tensors, name); }
const Program* Executable::find_program(const std::string& name) const { return find_named(programs, name); }
const Stream* Executable::find_stream(const std::string& name) const { return find_named(streams, name); }
const DeviceParameter* Executable::find_device_parameter(const std::string& name) const {
  return find_named(device_parameters, name);
}

uint32_t fnv1a(const uint8_t* data, size_t size, uint32_t h) {
  for (size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 16777619u;
  return h;
}

uint32_t checksum(const uint8_t* data, size_t size, uint32_t h) {
  constexpr uint64_t kP = 0x100000001b3ull, kQ = 0x9e3779b97f4a7c15ull;  // FNV-64's prime; odd
  // One step: a bijection of the lane for each word, and of the word for each lane (one
  // changed word always changes the lane). The word's product and the carries of the add
  // make a change's effect on the lane depend on the lane itself, so a later change cannot
  // undo it by a fixed pattern (a plain `(lane ^ w) * P` carries a flip of bit 63 unchanged,
  // and a second flip of bit 63 four words on undid it).
  const auto step = [](uint64_t lane, uint64_t w) { return std::rotl(lane + w * kQ, 31) * kP; };
  uint64_t lane[4] = {h ^ kQ, (h + 1) * kQ, (h + 2) * kQ, (h + 3) * kQ};
  size_t i = 0;
  for (; i + 32 <= size; i += 32)
    for (int l = 0; l < 4; ++l) {
      uint64_t w;
      std::memcpy(&w, data + i + 8 * l, 8);  // little-endian hosts only, as the reader
      lane[l] = step(lane[l], w);
    }
  for (; i < size; ++i) lane[3] = step(lane[3], data[i]);
  uint64_t x = size * kQ;
  for (const uint64_t v : lane) x = step(x, v);
  x ^= x >> 33, x *= kQ, x ^= x >> 29;  // the high bits' differences reach the low half
  return static_cast<uint32_t>(x ^ (x >> 32));
}

}  // namespace tessera::exe
