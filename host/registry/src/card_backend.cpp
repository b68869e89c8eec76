// card-sim and xrt[:N]: the Alveo card's driver (host/card) over the simulated card (the
// Verilated kernel, the movers' C++, card memory; only in builds with Verilated machines) or
// over XRT (a real card; without libxrt-dev a backend that says so).
#include <stdexcept>

#include "lazy_device.h"
#include "tessera/arch/targets.h"
#include "tessera/card/xrt_card.h"
#include "tessera/registry/registry.h"
#if TESSERA_HAVE_CARD_SIM
#include "tessera/card/card_sim.h"
#endif

namespace tessera::registry {

namespace {

exe::ElfImage firmware_image(std::string_view target, std::span<const std::byte> firmware) {
  return exe::parse_elf(std::span(reinterpret_cast<const uint8_t*>(firmware.data()), firmware.size()),
                        std::string(target) + " firmware");
}

#if TESSERA_HAVE_CARD_SIM
class CardSimDevice final : public LazyDevice {
 public:
  explicit CardSimDevice(const Options& options) : LazyDevice("the simulated card"), console_(options.console) {}

 protected:
  std::unique_ptr<device::Device> build(std::string_view target, std::span<const std::byte> firmware) override {
    try {
      return card::make_card_sim(std::string(target), firmware_image(target, firmware), console_);
    } catch (const std::runtime_error& e) {
      throw device::DeviceError(std::string("configure: ") + e.what());
    }
  }

 private:
  std::FILE* console_;
};
#endif

class XrtDevice final : public LazyDevice {
 public:
  XrtDevice(unsigned index, std::string xclbin)
      : LazyDevice("Alveo card " + std::to_string(index)), index_(index), xclbin_(std::move(xclbin)) {}

 protected:
  std::unique_ptr<device::Device> build(std::string_view target, std::span<const std::byte> firmware) override {
    const arch::Target* t = arch::find_target(target);
    if (!t) throw device::DeviceError("configure: unknown target '" + std::string(target) + "'");
    try {
      return card::make_xrt_device(index_, xclbin_, *t, firmware_image(target, firmware));
    } catch (const std::runtime_error& e) {
      throw device::DeviceError(e.what());
    }
  }

 private:
  unsigned index_;
  std::string xclbin_;
};

}  // namespace

#if TESSERA_HAVE_CARD_SIM
std::unique_ptr<device::Device> make_card_sim(const DeviceUri&, const Options& options) {
  return std::make_unique<CardSimDevice>(options);
}
#endif

unsigned xrt_index(const DeviceUri& uri) {
  if (uri.text == uri.scheme || uri.rest.empty()) return 0;
  if (uri.rest.size() > 3 || uri.rest.find_first_not_of("0123456789") != std::string::npos)
    throw std::invalid_argument("device '" + uri.text + "': the card index must be a number 0-999 (xrt:0)");
  return static_cast<unsigned>(std::stoul(uri.rest));
}

std::unique_ptr<device::Device> make_xrt(const DeviceUri& uri, const Options& options) {
  const unsigned index = xrt_index(uri);
  if (options.xclbin.empty())
    throw std::invalid_argument("device '" + uri.text + "' needs --xclbin FILE (scripts/xclbin builds it)");
  return std::make_unique<XrtDevice>(index, options.xclbin);
}

}  // namespace tessera::registry
