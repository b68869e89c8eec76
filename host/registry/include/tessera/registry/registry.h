// The device registry: every backend behind one function that builds a device::Device from a
// URI, so that the CLI, the benchmarks, the tests and tessera-devd make devices one way.
//
//   emu                        the emulator, instruction-set simulation with cycles
//   emu-native                 the emulator running the firmware as host code (same bits)
//   vlt                        the Verilated machine of the executable's target (RTL builds)
//   card-sim                   an Alveo card simulated: the Verilated kernel, the data movers'
//                              C++ and card memory (host/card; RTL builds)
//   xrt[:N]                    Alveo card N through XRT (Options::xclbin: its xclbin)
//   remote://HOST:PORT[/NAME]  device NAME of a tessera-devd (default: its first free device)
//
// A device from open() is not yet a machine: configure(target, firmware) makes it one (the
// executable's target and firmware), and may be called again for another executable.
// Backends are rows of a table of factories keyed by the URI's scheme; add_backend() adds
// one (docs/device.md, "Adding a backend").
#pragma once

#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/device/device.h"
#include "tessera/runtime/engine.h"

namespace tessera::registry {

// A URI taken apart: `scheme` is what comes before the first ':' (the whole URI without one:
// emu, emu-native, vlt); `rest` what follows "://" or ':' (remote://h:1 -> "h:1", xrt:0 -> "0").
struct DeviceUri {
  std::string text;
  std::string scheme;
  std::string rest;
};

// Throws std::invalid_argument naming the URI and what is wrong with it.
DeviceUri parse_uri(std::string_view uri);

// remote://HOST:PORT[/NAME]: HOST a name, an IPv4 address or [IPv6]; PORT 1-65535.
struct RemoteAddress {
  std::string host;
  uint16_t port = 0;
  std::string name;  // empty: the server's first free device
};
RemoteAddress parse_remote(const DeviceUri& uri);

struct Options {
  unsigned threads = 1;         // host threads of the emulator's compute phases
  std::FILE* console = stderr;  // the tiles' CONSOLE bytes
  // Remote devices: connecting, the handshake and each reply may take this long; waiting
  // for a lease held by another client, `lease_timeout`.
  std::chrono::milliseconds io_timeout{30000};
  std::chrono::milliseconds lease_timeout{60000};
  // Remote devices: the file holding the server's token (empty: $TESSERA_DEVD_TOKEN_FILE).
  std::string token_file;
  // Remote devices over TLS: the PEM file of the certificate (or its CA) to trust (empty:
  // $TESSERA_DEVD_TLS_CA; neither: plain TCP). The server's name or address must match it.
  std::string tls_ca_file;
  // xrt[:N]: the xclbin scripts/xclbin built for the executable's target.
  std::string xclbin;
};

// Builds the device a URI names. Throws std::invalid_argument for an unknown or malformed
// URI (naming it, what is wrong and the schemes there are), std::runtime_error when the
// backend cannot be opened (a server that does not answer, a refused token).
std::unique_ptr<device::Device> open(std::string_view uri, const Options& options = {});

// Checks a URI without opening anything: throws std::invalid_argument as open() would for an
// unknown or malformed one (for command-line checks).
void check_uri(std::string_view uri);

// What the factories get, and the table's rows.
using Factory = std::function<std::unique_ptr<device::Device>(const DeviceUri&, const Options&)>;
// Checks a URI's address without opening anything (throws std::invalid_argument).
using AddressCheck = std::function<void(const DeviceUri&)>;
struct Backend {
  std::string scheme;       // "emu", "remote", ...
  std::string usage;        // "remote://HOST:PORT[/NAME]"
  std::string description;  // one line, for --help and errors
  Factory factory;
  AddressCheck check = {};  // check_uri's and open()'s check of the address; none if empty
};

// Adds (or replaces) a backend: how a backend that lives outside this library registers
// itself, e.g. at the start of main().
void add_backend(Backend backend);
// Every backend this program knows, in registration order.
std::vector<Backend> backends();
// "emu, emu-native, vlt, remote://HOST:PORT[/NAME]" for help texts and errors.
std::string usages();

// The device's per-superstep profile for the Engine (EngineOptions::profile_source) when
// `device` is from open() and has one: an emulator in ISS mode (its cycle model), or `vlt`
// (the cycles measured on the RTL, VltMachine::superstep_cycles); unset otherwise.
std::function<std::vector<runtime::SuperstepCycles>()> profile_source(device::Device& device);

}  // namespace tessera::registry
