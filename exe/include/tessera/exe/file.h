// The executable file (.tsx): FlatBuffers bytes <-> tessera::exe::Executable, and the
// checks that make a file safe to load. Schema: arch/executable.fbs; format and checks:
// docs/executable.md.
//
// Reading always verifies: deserialize() and read_file() either return an Executable that
// fits this build's arch and its target (every address in SRAM, every index in range, every
// checksum right) or throw ExeError naming the file, the section and what is wrong. Writing
// does not verify (the compiler may call verify() first), so that tests can write bad files.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "tessera/exe/executable.h"

namespace tessera::exe {

// Any problem with an executable file: "NAME: section: what is wrong".
class ExeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The file's bytes; deterministic (the same Executable always gives the same bytes).
std::vector<uint8_t> serialize(const Executable& exe);
void write_file(const Executable& exe, const std::filesystem::path& path);

// Parses and verifies `bytes`; `name` (usually the file name) prefixes every error.
Executable deserialize(std::span<const uint8_t> bytes, const std::string& name);
Executable read_file(const std::filesystem::path& path);

// The checks on the content (arch, target, firmware hash, addresses, intervals, indices),
// as deserialize() runs them after the structural ones. Throws ExeError.
void verify(const Executable& exe, const std::string& name);

}  // namespace tessera::exe
