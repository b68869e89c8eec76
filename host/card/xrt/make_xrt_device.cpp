// make_xrt_device (xrt_card.h): the driver over the XRT backend of this build (or the one
// that says there is none).
#include "tessera/card/xrt_card.h"

namespace tessera::card {

std::unique_ptr<CardDevice> make_xrt_device(unsigned index, const std::string& xclbin, const arch::Target& target,
                                            const exe::ElfImage& firmware, const CardOptions& options) {
  return std::make_unique<CardDevice>(make_xrt_io(index, xclbin, target.host_nodes), target, firmware, options);
}

}  // namespace tessera::card
