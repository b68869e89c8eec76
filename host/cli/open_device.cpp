// --device URI: the registry's device, configured for the executable.
#include "open_device.h"

#include <CLI/CLI.hpp>
#include <stdexcept>

#include "tessera/registry/registry.h"

namespace tessera::cli {

void add_device_options(CLI::App* cmd, std::string& device, RemoteFiles& remote,
                        const std::string& help) {
  cmd->add_option("--device", device, help + " (devices: " + registry::usages() + ")")
      ->check(CLI::Validator(
          [](std::string& uri) -> std::string {
            try {
              registry::check_uri(uri);
            } catch (const std::invalid_argument& e) {
              return e.what();
            }
            return {};
          },
          "URI", "device URI"));
  cmd->add_option(
      "--token-file", remote.token_file,
      "remote devices: the file holding tessera-devd's token (default: $TESSERA_DEVD_TOKEN_FILE)");
  cmd->add_option("--tls-ca", remote.tls_ca,
                  "remote devices over TLS: the certificate (or CA) to trust, PEM (default: "
                  "$TESSERA_DEVD_TLS_CA; "
                  "neither: plain TCP)");
}

std::unique_ptr<device::Device> open_device(const std::string& uri, const exe::Executable& e,
                                            unsigned threads, const RemoteFiles& remote, const std::string& xclbin) {
  registry::Options o;
  o.threads = threads;
  o.console = stderr;  // stdout stays free for data
  o.token_file = remote.token_file;
  o.tls_ca_file = remote.tls_ca;
  o.xclbin = xclbin;
  std::unique_ptr<device::Device> d;
  try {
    d = registry::open(uri, o);
  } catch (const std::invalid_argument& err) {
    throw std::runtime_error(std::string("--device: ") + err.what());
  }
  try {
    d->configure(e.target, std::as_bytes(std::span(e.firmware)));
  } catch (const device::DeviceError& err) {
    throw std::runtime_error("device '" + uri + "': " + err.what());
  }
  return d;
}

}  // namespace tessera::cli
