// missing_kernels (xrt_card.h): the XRT backend's check of an xclbin's kernels, which needs no XRT.
#include <algorithm>

#include "tessera/card/xrt_card.h"

namespace tessera::card {

std::string missing_kernels(const std::vector<std::string>& present, const std::string& xclbin) {
  std::string missing, have;
  for (std::string_view k : kKernelNames)
    if (std::find(present.begin(), present.end(), k) == present.end()) missing += (missing.empty() ? "'" : ", '") + std::string(k) + "'";
  if (missing.empty()) return {};
  for (const std::string& p : present) have += (have.empty() ? "" : ", ") + p;
  return xclbin + ": no kernel " + missing + " in this xclbin (it has " + (have.empty() ? std::string("none") : have) +
         "); build one with scripts/xclbin (docs/alveo.md)";
}

}  // namespace tessera::card
