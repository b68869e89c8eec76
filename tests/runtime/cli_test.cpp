// The `tessera` command end to end: MatVec16 written as a .tsx, run with files in and out,
// `info`, and errors that exit non-zero with a message instead of aborting.
#include <gmock/gmock.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "runtime_fixture.h"
#include "tessera/exe/file.h"

namespace tessera::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

struct Result {
  int status;
  std::string out;  // stdout and stderr together
};

Result tessera(const std::string& args, const fs::path& dir) {
  const fs::path log = dir / "log.txt";
  const std::string cmd = std::string(TESSERA_CLI) + " " + args + " > " + log.string() + " 2>&1";
  const int rc = std::system(cmd.c_str());
  std::ifstream f(log);
  std::stringstream s;
  s << f.rdbuf();
  return {WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, s.str()};
}

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("tessera_cli_test_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    exe::write_file(handbuilt::matvec16_executable(mv, small(), firmware_bytes()), dir / "mv.tsx");
    std::ofstream(dir / "x.bin", std::ios::binary).write(reinterpret_cast<const char*>(mv.x.data()), 64 * 4);
  }
  void TearDown() override { fs::remove_all(dir); }
  std::string p(const char* name) { return (dir / name).string(); }
  handbuilt::MatVec16 mv{11};
  fs::path dir;
};

TEST_F(Cli, RunsMatVecFromFiles) {
  for (const char* device : {"emu", "emu-native"}) {
    const Result r = tessera("run " + p("mv.tsx") + " --device " + device + " --input x=" + p("x.bin") +
                                 " --output y=" + p("y.bin") + " --output A=" + p("A.bin") + " --report " + p("r.json"),
                             dir);
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_THAT(r.out, HasSubstr("program 'matvec' done"));
    std::vector<float> y(64), a(64 * 64);
    std::ifstream(p("y.bin"), std::ios::binary).read(reinterpret_cast<char*>(y.data()), 64 * 4);
    std::ifstream(p("A.bin"), std::ios::binary).read(reinterpret_cast<char*>(a.data()), 64 * 64 * 4);
    EXPECT_EQ(bits(y), bits(mv.reference())) << device;
    EXPECT_EQ(bits(a), bits(mv.a)) << device;
    std::ifstream report(p("r.json"));
    std::stringstream s;
    s << report.rdbuf();
    EXPECT_THAT(s.str(), HasSubstr("\"host_syncs\": 2"));
  }
}

TEST_F(Cli, InfoDescribesTheExecutable) {
  const Result r = tessera("info " + p("mv.tsx"), dir);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("target small, 16 tiles"));
  EXPECT_THAT(r.out, HasSubstr("matvec"));
  EXPECT_THAT(r.out, HasSubstr("f32[64, 64]"));
  EXPECT_THAT(r.out, HasSubstr("host->device"));
}

TEST_F(Cli, ErrorsExitNonZeroWithAMessage) {
  Result r = tessera("run " + p("mv.tsx") + " --input q=" + p("x.bin"), dir);
  EXPECT_EQ(r.status, 1);
  EXPECT_THAT(r.out, HasSubstr("no stream or tensor of that name"));
  r = tessera("run " + p("mv.tsx"), dir);
  EXPECT_EQ(r.status, 1);
  EXPECT_THAT(r.out, HasSubstr("give --input x=FILE"));
  std::ofstream(p("short.bin"), std::ios::binary).write("abcd", 4);
  r = tessera("run " + p("mv.tsx") + " --input x=" + p("short.bin"), dir);
  EXPECT_EQ(r.status, 1);
  EXPECT_THAT(r.out, HasSubstr("stream 'x'"));
  r = tessera("info " + p("missing.tsx"), dir);
  EXPECT_EQ(r.status, 1);
  EXPECT_THAT(r.out, HasSubstr("missing.tsx"));
  r = tessera("run " + p("mv.tsx") + " --device nope", dir);
  EXPECT_EQ(r.status, 2);
}

}  // namespace
}  // namespace tessera::testing
