// Checks on the files and folders a command names, made before any work starts, so that a
// typo in an output path fails at once instead of after a training run: each throws
// std::runtime_error naming the option and the path.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace tessera::cli {

// An existing, readable regular file (not a directory, device or FIFO).
void check_input_file(const std::string& path, const std::string& option);
// A file that can be created or overwritten: not a directory; if it exists, writable;
// else its folder exists and is writable. Nothing is created.
void check_output_file(const std::string& path, const std::string& option);
// A folder to write files into: if it exists, a writable directory; else its parent
// exists and is writable (the folder is created by the writer).
void check_output_dir(const std::string& path, const std::string& option);

// The whole of a regular file, at most `max_bytes` (check_input_file first).
std::vector<std::byte> read_input_file(const std::string& path, const std::string& option, size_t max_bytes);

}  // namespace tessera::cli
