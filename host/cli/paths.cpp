// Path checks made before the work (paths.h).
#include "paths.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace tessera::cli {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const std::string& option, const std::string& path, const std::string& why) {
  throw std::runtime_error(option + " '" + path + "': " + why);
}

// The folder a new entry `path` would be created in.
fs::path parent_of(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? fs::path(".") : parent;
}

void check_writable_dir(const fs::path& dir, const std::string& option, const std::string& path) {
  std::error_code ec;
  const fs::file_status st = fs::status(dir, ec);
  if (!fs::exists(st)) fail(option, path, "folder '" + dir.string() + "' does not exist");
  if (!fs::is_directory(st)) fail(option, path, "'" + dir.string() + "' is not a folder");
  if (::access(dir.c_str(), W_OK | X_OK) != 0) fail(option, path, "folder '" + dir.string() + "' is not writable");
}

}  // namespace

void check_input_file(const std::string& path, const std::string& option) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (!fs::exists(st)) fail(option, path, "no such file");
  if (fs::is_directory(st)) fail(option, path, "is a directory, not a file");
  if (!fs::is_regular_file(st)) fail(option, path, "not a regular file");
  if (::access(path.c_str(), R_OK) != 0) fail(option, path, "not readable");
}

void check_output_file(const std::string& path, const std::string& option) {
  if (path.empty()) fail(option, path, "empty path");
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (fs::exists(st)) {
    if (fs::is_directory(st)) fail(option, path, "is a directory, not a file");
    if (::access(path.c_str(), W_OK) != 0) fail(option, path, "exists and is not writable");
    return;
  }
  check_writable_dir(parent_of(path), option, path);
}

void check_output_dir(const std::string& path, const std::string& option) {
  if (path.empty()) fail(option, path, "empty path");
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (fs::exists(st)) {
    if (!fs::is_directory(st)) fail(option, path, "exists and is not a folder");
    check_writable_dir(path, option, path);
    return;
  }
  check_writable_dir(parent_of(path), option, path);
}

std::vector<std::byte> read_input_file(const std::string& path, const std::string& option, size_t max_bytes) {
  check_input_file(path, option);
  std::error_code ec;
  const uintmax_t size = fs::file_size(path, ec);
  if (ec) fail(option, path, "cannot read its size (" + ec.message() + ")");
  if (size > max_bytes)
    fail(option, path, std::to_string(size) + " bytes, more than the " + std::to_string(max_bytes) + " expected");
  std::vector<std::byte> bytes(static_cast<size_t>(size));
  std::ifstream f(path, std::ios::binary);
  if (!f) fail(option, path, "cannot open for reading");
  if (size && !f.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size)))
    fail(option, path, "read error");
  return bytes;
}

}  // namespace tessera::cli
