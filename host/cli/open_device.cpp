// --device URI: the registry's device, configured for the executable.
#include "open_device.h"

#include <CLI/CLI.hpp>
#include <stdexcept>

#include "tessera/registry/registry.h"

namespace tessera::cli {

void add_device_options(CLI::App* cmd, std::string& device, std::string& token_file, const std::string& help) {
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
  cmd->add_option("--token-file", token_file,
                  "remote devices: the file holding tessera-devd's token (default: $TESSERA_DEVD_TOKEN_FILE)");
}

std::unique_ptr<device::Device> open_device(const std::string& uri, const exe::Executable& e, unsigned threads,
                                            const std::string& token_file, const std::string& xclbin) {
  registry::Options o;
  o.threads = threads;
  o.console = stderr;  // stdout stays free for data
  o.token_file = token_file;
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
