// The table of backends, keyed by scheme, and open() over it.
#include "tessera/registry/registry.h"

#include <mutex>
#include <stdexcept>

#include "emu_backend.h"
#include "tessera/runtime/emu_profile.h"

namespace tessera::registry {

std::unique_ptr<device::Device> make_vlt(const DeviceUri& uri, const Options& options);     // vlt_backend.cpp
std::unique_ptr<device::Device> make_remote(const DeviceUri& uri, const Options& options);  // remote_backend.cpp
std::unique_ptr<device::Device> make_card_sim(const DeviceUri& uri, const Options& options);  // card_backend.cpp
std::unique_ptr<device::Device> make_xrt(const DeviceUri& uri, const Options& options);       // card_backend.cpp
unsigned xrt_index(const DeviceUri& uri);                                                     // card_backend.cpp

namespace {

// A device named by a bare word takes no address.
Factory bare(Factory f) {
  return [f = std::move(f)](const DeviceUri& u, const Options& o) {
    if (u.text != u.scheme)
      throw std::invalid_argument("device '" + u.text + "': " + u.scheme +
                                  " takes no address (write '" + u.scheme + "')");
    return f(u, o);
  };
}

struct Table {
  std::mutex mutex;
  std::vector<Backend> rows;
  Table() {
    rows.push_back(
        {"emu", "emu", "the emulator: instruction-set simulation with cycles", bare(make_emu)});
    rows.push_back({"emu-native", "emu-native",
                    "the emulator running the firmware as host code (same bits, faster)",
                    bare(make_emu)});
#if TESSERA_HAVE_VLT
    rows.push_back(
        {"vlt", "vlt", "the Verilated RTL machine of the executable's target", bare(make_vlt)});
#endif
#if TESSERA_HAVE_CARD_SIM
    rows.push_back({"card-sim", "card-sim",
                    "an Alveo card simulated: the Verilated kernel, the data movers, card memory", bare(make_card_sim)});
#endif
    rows.push_back({"xrt", "xrt[:N]", "Alveo card N (default 0) through XRT, with an xclbin", make_xrt});
#if TESSERA_HAVE_REMOTE
    rows.push_back(
        {"remote", "remote://HOST:PORT[/NAME]", "a device served by tessera-devd", make_remote});
#endif
  }
};

Table& table() {
  static Table t;
  return t;
}

}  // namespace

void add_backend(Backend backend) {
  Table& t = table();
  std::lock_guard lock(t.mutex);
  for (Backend& b : t.rows)
    if (b.scheme == backend.scheme) {
      b = std::move(backend);
      return;
    }
  t.rows.push_back(std::move(backend));
}

std::vector<Backend> backends() {
  Table& t = table();
  std::lock_guard lock(t.mutex);
  return t.rows;
}

std::string usages() {
  std::string s;
  for (const Backend& b : backends()) s += (s.empty() ? "" : ", ") + b.usage;
  return s;
}

namespace {

Backend find_backend(const DeviceUri& uri) {
  for (const Backend& b : backends())
    if (b.scheme == uri.scheme) return b;
  std::string hint;
  if (uri.scheme == "vlt")
    hint = " (this build has no Verilated machines: Verilator was not found or TESSERA_RTL is off)";
  throw std::invalid_argument("device '" + uri.text + "': unknown device '" + uri.scheme + "'" +
                              hint + " (devices: " + usages() + ")");
}

}  // namespace

void check_uri(std::string_view text) {
  const DeviceUri uri = parse_uri(text);
  find_backend(uri);
  if (uri.scheme == "remote") parse_remote(uri);
  else if (uri.scheme == "xrt") xrt_index(uri);
  else if (uri.text != uri.scheme &&
           (uri.scheme == "emu" || uri.scheme == "emu-native" || uri.scheme == "vlt" || uri.scheme == "card-sim"))
    throw std::invalid_argument("device '" + uri.text + "': " + uri.scheme + " takes no address (write '" + uri.scheme + "')");
}

std::unique_ptr<device::Device> open(std::string_view text, const Options& options) {
  const DeviceUri uri = parse_uri(text);
  return find_backend(uri).factory(uri, options);
}

std::function<std::vector<runtime::SuperstepCycles>()> profile_source(device::Device& device) {
  auto* emu = dynamic_cast<EmuDevice*>(&device);
  if (!emu) return {};
  return [emu]() -> std::vector<runtime::SuperstepCycles> {
    if (!emu->machine()) return {};
    return runtime::emu_profile_source(*emu->machine())();
  };
}

}  // namespace tessera::registry
