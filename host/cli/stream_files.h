// The files of `tessera run` and `tessera profile` --input/--output NAME=FILE: .npy (numpy's
// format; dtype and shape checked against the stream or tensor) or, for any other name, raw bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "tessera/exe/executable.h"

namespace tessera::cli {

struct NameFile {
  std::string name, file;
};
// NAME=FILE of `option`; throws naming the option otherwise.
NameFile split(const std::string& arg, const char* option);

// The bytes --input NAME=FILE gives (raw), which must be exactly `want` bytes (a stream's
// transfers in one run of the program, or a tensor); `what` names the taker in the error.
std::vector<std::byte> read_input(const NameFile& nf, uint64_t want, const std::string& what);

// Every transfer of host-to-device stream nf.name in one run of each of `programs`, in turn,
// from nf.file (.npy or raw bytes). Throws naming the option if the stream is device-to-host
// or no program uses it (a name that is no stream of `e` is the caller's to handle).
std::vector<std::byte> read_stream_input(const exe::Executable& e, std::span<const exe::Program* const> programs,
                                         const exe::Stream& s, const NameFile& nf);

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
