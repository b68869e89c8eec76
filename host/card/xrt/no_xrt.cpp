// The XRT backend when the build found no XRT (libxrt-dev): it says so.
#include "tessera/card/xrt_card.h"

namespace tessera::card {

bool xrt_available() { return false; }

std::unique_ptr<CardIo> make_xrt_io(unsigned index, const std::string&, unsigned) {
  throw device::DeviceError("--device xrt:" + std::to_string(index) +
                            ": this build has no XRT backend (XRT's headers and libxrt_coreutil were not found at "
                            "configure time; Debian: libxrt-dev)");
}

}  // namespace tessera::card
