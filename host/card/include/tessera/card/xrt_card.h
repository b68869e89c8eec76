// An Alveo card through XRT's native C++ API (docs/alveo.md): the xclbin that
// scripts/xclbin builds (the kernel tess_card (tess_kernel in a wrapper), user-managed, opened with xrt::ip; the
// movers tess_h2d and tess_d2h, one pair per host node, as xrt::kernel runs; their buffers as
// xrt::bo in the banks the link connected them to): the compute units tess_card_1,
// tess_h2d_<h> and tess_d2h_<h>.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/card/card_device.h"

namespace tessera::card {

// The kernels an xclbin must hold, by name.
inline constexpr std::string_view kKernelNames[] = {"tess_card", "tess_h2d", "tess_d2h"};

// Empty when `present` (an xclbin's kernel names) holds every one of kKernelNames; else a
// message naming the missing ones and what the xclbin has (no XRT needed: tested without a card).
std::string missing_kernels(const std::vector<std::string>& present, const std::string& xclbin);

// Whether this build has the XRT backend (libxrt-dev found at configure time).
bool xrt_available();

// The card at `index` with `xclbin` loaded. Throws device::DeviceError with a clear message
// when the build has no XRT, there is no card at `index`, or the xclbin cannot be read or
// lacks a kernel (checked before it is loaded).
// Its movers are host nodes 0 .. host_nodes - 1 (compute units tess_h2d_<h>, tess_d2h_<h>).
std::unique_ptr<CardIo> make_xrt_io(unsigned index, const std::string& xclbin, unsigned host_nodes = 1);

// The driver over it for `target`, `firmware`'s layout (card_device.h).
std::unique_ptr<CardDevice> make_xrt_device(unsigned index, const std::string& xclbin, const arch::Target& target,
                                            const exe::ElfImage& firmware, const CardOptions& options = {});

}  // namespace tessera::card
