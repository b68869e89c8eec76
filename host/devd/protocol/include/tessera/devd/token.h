// The shared token of tessera-devd and its clients, kept in a file (docs/devd.md).
#pragma once

#include <string>

namespace tessera::devd {

// The token in `path`: its first line without trailing white space. Throws
// std::runtime_error naming the file if it cannot be read, the token is shorter than 16
// characters or longer than 256, or (`check_private`) the file is readable by group or others.
std::string read_token_file(const std::string& path, bool check_private);

}  // namespace tessera::devd
