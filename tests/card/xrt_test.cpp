// The XRT backend (host/card/xrt) without a card: the error says there is none; an xclbin's
// missing kernels are named (the check a card would run after opening it).
#include <gtest/gtest.h>

#include <cstdlib>

#include "tessera/card/xrt_card.h"

namespace tessera::card {
namespace {

TEST(Xrt, WithoutACardTheErrorSaysSo) {
  if (!xrt_available()) GTEST_SKIP() << "this build has no XRT backend";
  try {
    make_xrt_io(0, "nothing.xclbin");
    GTEST_SKIP() << "this host has an Alveo card: the no-card error cannot be seen here";
  } catch (const device::DeviceError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("no Alveo card at index 0"), std::string::npos) << m;
    EXPECT_NE(m.find("card-sim"), std::string::npos) << m;
  }
}

TEST(Xrt, MissingKernelsAreNamed) {
  EXPECT_EQ(missing_kernels({"tess_d2h", "tess_card", "tess_h2d"}, "a.xclbin"), "");
  const std::string m = missing_kernels({"tess_card", "vadd"}, "a.xclbin");
  EXPECT_NE(m.find("'tess_h2d', 'tess_d2h'"), std::string::npos) << m;
  EXPECT_NE(m.find("it has tess_card, vadd"), std::string::npos) << m;
  EXPECT_EQ(m.find("'tess_card'"), std::string::npos) << m;
}

}  // namespace
}  // namespace tessera::card
