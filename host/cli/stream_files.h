// The files of `tessera run --input/--output NAME=FILE`: .npy (numpy's format; dtype and
// shape checked against the stream or tensor) or, for any other name, raw bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "tessera/exe/executable.h"

namespace tessera::cli {

bool is_npy(const std::string& file);

// The data of an .npy input for `name` of `dtype` and `shape` (one transfer) moved
// `transfers` times a run: the array's dtype must be `dtype` and its shape `shape`, or with
// several transfers [transfers * shape[0], ...] or [transfers, shape...]. Throws naming the
// file, the stream and both types otherwise.
std::vector<std::byte> read_npy_input(const std::string& file, const std::string& name, exe::DType dtype,
                                      const std::vector<uint32_t>& shape, uint64_t transfers);

// Writes `data` (`transfers` transfers of `shape`) as .npy: shape as is for one transfer,
// else the first dimension times `transfers`.
void write_npy_output(const std::string& file, exe::DType dtype, const std::vector<uint32_t>& shape, uint64_t transfers,
                      std::span<const std::byte> data);

}  // namespace tessera::cli
