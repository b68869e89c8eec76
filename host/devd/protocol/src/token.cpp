// Reading the token file.
#include "tessera/devd/token.h"

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "tessera/devd/protocol.h"

namespace tessera::devd {

std::string read_token_file(const std::string& path, bool check_private) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::is_regular_file(st))
    throw std::runtime_error("token file '" + path + "': not a readable regular file");
  if (check_private &&
      (st.permissions() & (fs::perms::group_all | fs::perms::others_all)) != fs::perms::none)
    throw std::runtime_error("token file '" + path +
                             "': readable by group or others (chmod 600 it)");
  std::ifstream f(path);
  std::string line;
  if (!f || !std::getline(f, line))
    throw std::runtime_error("token file '" + path + "': cannot read a line");
  while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
  if (line.size() < 16 || line.size() > kMaxToken)
    throw std::runtime_error("token file '" + path + "': the token has " +
                             std::to_string(line.size()) + " characters; it must have 16 to " +
                             std::to_string(kMaxToken));
  return line;
}

}  // namespace tessera::devd
