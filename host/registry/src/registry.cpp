// The table of backends, keyed by scheme, and open() over it.
#include "tessera/registry/registry.h"

#include <mutex>
#include <stdexcept>

#include "emu_backend.h"

namespace tessera::registry {

std::unique_ptr<device::Device> make_vlt(const DeviceUri& uri, const Options& options);     // vlt_backend.cpp
std::function<std::vector<runtime::SuperstepCycles>()> vlt_profile_source(device::Device& device);  // vlt_backend.cpp
std::unique_ptr<device::Device> make_remote(const DeviceUri& uri, const Options& options);  // remote_backend.cpp
std::unique_ptr<device::Device> make_card_sim(const DeviceUri& uri, const Options& options);  // card_backend.cpp
std::unique_ptr<device::Device> make_xrt(const DeviceUri& uri, const Options& options);       // card_backend.cpp
unsigned xrt_index(const DeviceUri& uri);                                                     // card_backend.cpp

namespace {

// A device named by a bare word takes no address.
void no_address(const DeviceUri& u) {
  if (u.text != u.scheme)
    throw std::invalid_argument("device '" + u.text + "': " + u.scheme + " takes no address (write '" + u.scheme + "')");
}

struct Table {
  std::mutex mutex;
  std::vector<Backend> rows;
  Table() {
    rows.push_back({"emu", "emu", "the emulator: instruction-set simulation with cycles", make_emu, no_address});
    rows.push_back({"emu-native", "emu-native", "the emulator running the firmware as host code (same bits, faster)",
                    make_emu, no_address});
#if TESSERA_HAVE_VLT
    rows.push_back({"vlt", "vlt", "the Verilated RTL machine of the executable's target", make_vlt, no_address});
#endif
#if TESSERA_HAVE_CARD_SIM
    rows.push_back({"card-sim", "card-sim",
                    "an Alveo card simulated: the Verilated kernel, the data movers, card memory", make_card_sim,
                    no_address});
#endif
    rows.push_back({"xrt", "xrt[:N]", "Alveo card N (default 0) through XRT, with an xclbin", make_xrt,
                    [](const DeviceUri& u) { xrt_index(u); }});
#if TESSERA_HAVE_REMOTE
    rows.push_back(
        {"remote", "remote://HOST:PORT[/NAME]", "a device served by tessera-devd", make_remote,
         [](const DeviceUri& u) { parse_remote(u); }});
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
  const Backend b = find_backend(uri);
  if (b.check) b.check(uri);
}

std::unique_ptr<device::Device> open(std::string_view text, const Options& options) {
  const DeviceUri uri = parse_uri(text);
  const Backend b = find_backend(uri);
  if (b.check) b.check(uri);
  return b.factory(uri, options);
}

std::function<std::vector<runtime::SuperstepCycles>()> profile_source(device::Device& device) {
#if TESSERA_HAVE_VLT
  if (auto source = vlt_profile_source(device)) return source;
#endif
  auto* emu = dynamic_cast<EmuDevice*>(&device);
  if (!emu) return {};
  // Machine::profile() is cleared at every reset, so it is the last run's; native mode
  // counts no cycles.
  return [emu]() {
    std::vector<runtime::SuperstepCycles> out;
    const emu::Machine* m = emu->machine();
    if (!m || m->mode() != emu::Mode::kIss) return out;
    for (const emu::SuperstepProfile& p : m->profile())
      out.push_back({p.superstep, p.kind, p.compute_cycles, p.exchange_cycles, p.exchange_words, p.tile_cycles,
                     p.dram_wait_cycles});
    return out;
  };
}

}  // namespace tessera::registry
