// Golden files for the pass tests: compares `text` with golden/NAME, or rewrites the file
// when TESSERA_UPDATE_GOLDEN is set (then review the diff before committing).
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace tessera::testing {

inline void expect_golden(const std::string& name, const std::string& text) {
  const std::string path = std::string(TESSERA_GOLDEN_DIR) + "/" + name;
  if (std::getenv("TESSERA_UPDATE_GOLDEN")) {
    std::ofstream(path) << text;
    return;
  }
  std::ifstream in(path);
  ASSERT_TRUE(in) << "no golden file " << path << " (run with TESSERA_UPDATE_GOLDEN=1 to create it)";
  std::stringstream want;
  want << in.rdbuf();
  EXPECT_EQ(text, want.str()) << "golden " << path;
}

}  // namespace tessera::testing
