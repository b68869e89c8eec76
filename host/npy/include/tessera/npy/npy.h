// numpy's .npy files (format versions 1.0, 2.0 and 3.0): one array of f32, i32, u32 or u8
// elements, little-endian, C order. What `tessera run` reads inputs from and writes
// outputs to, and what the ONNX tests compare with PyTorch through.
//
//   npy::Array a = npy::read_file("x.npy");          // f32[2,3] ...
//   std::vector<float> v = a.floats();
//   npy::write_file("y.npy", npy::Array::of(std::vector<float>{...}, {2, 3}));
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "tessera/exe/executable.h"

namespace tessera::npy {

// A file that is not a .npy file we read, or cannot be read or written. The message names
// the file and what is wrong ("x.npy: dtype '>f4' is big-endian; ...").
class NpyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Array {
  exe::DType dtype = exe::DType::kF32;
  std::vector<uint32_t> shape;  // empty: a scalar (one element)
  std::vector<std::byte> data;  // element_count() * dtype_bytes(dtype), little-endian, C order

  uint64_t element_count() const;
  // The elements; the dtype must be f32 (floats) or u32/i32 (words: their bits).
  std::vector<float> floats() const;
  std::vector<uint32_t> words() const;

  static Array of(const std::vector<float>& v, std::vector<uint32_t> shape);
  // u32 or i32 (dtype) elements from 32-bit words.
  static Array of_words(const std::vector<uint32_t>& v, std::vector<uint32_t> shape,
                        exe::DType dtype = exe::DType::kU32);
};

// Parses a whole .npy file's bytes; `what` names it in errors. Checks the magic, the
// version, the header (a Python dict literal with exactly descr, fortran_order and shape),
// the dtype ('<f4', '<i4', '<u4', '|u1' or '<u1'), C order, and that the data is exactly
// the shape's size: no byte missing, none left over.
Array parse(std::span<const std::byte> bytes, const std::string& what);
Array read_file(const std::string& path);

// The .npy bytes of `a` (version 1.0, or 2.0 if the header needs it; header padded to a
// multiple of 64 bytes, as numpy writes). Throws NpyError if the data's size does not
// match the shape.
std::vector<std::byte> serialize(const Array& a);
void write_file(const std::string& path, const Array& a);

// "f32[2,3]"
std::string describe(const Array& a);

}  // namespace tessera::npy
