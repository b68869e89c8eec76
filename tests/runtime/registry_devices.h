// The registry's devices that the runtime tests run against: emu and emu-native here, and a
// device behind a tessera-devd on loopback (backed by emu-native) when the build has the
// server. Each test opens its own device from the URI and configures it like the CLI does.
#pragma once

#include <cctype>
#include <memory>
#include <string>
#include <vector>

#include "runtime_fixture.h"
#include "tessera/registry/registry.h"
#if TESSERA_HAVE_DEVD
#include "loopback_server.h"
#endif

namespace tessera::testing {

inline std::vector<std::string> registry_test_devices() {
  std::vector<std::string> d{"emu", "emu-native"};
#if TESSERA_HAVE_DEVD
  d.push_back("remote");
#endif
  return d;
}

// A gtest-friendly name of a device parameter.
inline std::string test_device_name(const std::string& uri) {
  std::string n;
  for (char c : uri) n += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return n;
}

#if !TESSERA_HAVE_DEVD
inline std::string remote_uri() { return "remote"; }
#endif

// The device `param` names, configured as a machine of `target` with the build's firmware
// (not configured if `target` is null).
inline std::unique_ptr<device::Device> open_registry_device(const std::string& param,
                                                            const char* target) {
  registry::Options o;
  std::string uri = param;
#if TESSERA_HAVE_DEVD
  if (param == "remote") {
    uri = remote_uri();
    o.token_file = loopback_token_file();
  }
#endif
  auto d = registry::open(uri, o);
  if (target) d->configure(target, std::as_bytes(std::span(firmware_bytes())));
  return d;
}

}  // namespace tessera::testing
