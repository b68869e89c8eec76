// A tessera-devd in this test process on loopback (any free port), serving two emu-native
// devices: what the registry's remote:// device of the runtime tests talks to. Started on
// first use, stopped at exit.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include "tessera/devd/server.h"

namespace tessera::testing {

struct LoopbackServer {
  std::string token_file;
  std::unique_ptr<devd::Server> server;
  std::thread thread;

  LoopbackServer() {
    const auto dir = std::filesystem::temp_directory_path() /
                     ("tessera-devd-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    token_file = (dir / "token").string();
    {
      std::ofstream f(token_file);
      f << "loopback-test-token-0123456789abcdef\n";
    }
    ::chmod(token_file.c_str(), 0600);
    devd::ServerOptions o;
    o.devices = {{"emu0", "emu-native"}, {"emu1", "emu-native"}};
    o.token = "loopback-test-token-0123456789abcdef";
    o.log = nullptr;
    o.device_options.console = stderr;
    server = std::make_unique<devd::Server>(o);
    thread = std::thread([this] { server->run(); });
  }
  ~LoopbackServer() {
    server->stop();
    thread.join();
    std::error_code ec;
    std::filesystem::remove_all(std::filesystem::path(token_file).parent_path(), ec);
  }
};

inline LoopbackServer& loopback_server() {
  static LoopbackServer s;
  return s;
}
inline std::string remote_uri() {
  return "remote://127.0.0.1:" + std::to_string(loopback_server().server->port());
}
inline std::string loopback_token_file() { return loopback_server().token_file; }

}  // namespace tessera::testing
