// The device --device names (a registry URI), configured for an executable: what `tessera run`
// and `tessera train` run on.
#pragma once

#include <memory>
#include <string>

#include "tessera/device/device.h"
#include "tessera/exe/executable.h"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace tessera::cli {

// Where a remote device's secrets are (--token-file, --tls-ca).
struct RemoteFiles {
  std::string token_file, tls_ca;
};

// --device URI (checked by the registry at parse time: a bad one is a command-line error),
// --token-file FILE and --tls-ca FILE on `cmd`.
void add_device_options(CLI::App* cmd, std::string& device, RemoteFiles& remote,
                        const std::string& help);

// Opens `uri` and configures it with `e`'s target and firmware; the tiles' console to stderr.
// `xclbin`: the card's xclbin for xrt[:N].
// Throws std::runtime_error naming the device and what failed.
std::unique_ptr<device::Device> open_device(const std::string& uri, const exe::Executable& e,
                                            unsigned threads, const RemoteFiles& remote, const std::string& xclbin = {});

}  // namespace tessera::cli
