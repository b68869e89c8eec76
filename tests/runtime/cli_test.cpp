// The `tessera` command end to end: MatVec16 written as a .tsx, run with files in and out,
// `info`, and errors that exit non-zero with a message instead of aborting.
#include <gmock/gmock.h>

#include <chrono>
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

// --program A,B runs the programs in turn after one load; a stream's output holds every
// transfer of all of them.
TEST_F(Cli, RunsProgramsInTurn) {
  std::ofstream x2(p("x2.bin"), std::ios::binary);
  for (int i = 0; i < 2; ++i) x2.write(reinterpret_cast<const char*>(mv.x.data()), 64 * 4);
  x2.close();
  Result r = tessera("run " + p("mv.tsx") + " --device emu-native --program matvec,matvec --input x=" + p("x2.bin") +
                         " --output y=" + p("y2.bin"),
                     dir);
  ASSERT_EQ(r.status, 0) << r.out;
  std::vector<float> y(128);
  std::ifstream(p("y2.bin"), std::ios::binary).read(reinterpret_cast<char*>(y.data()), 128 * 4);
  const std::vector<uint32_t> want = bits(mv.reference());
  EXPECT_EQ(bits({y.begin(), y.begin() + 64}), want) << "first run";
  EXPECT_EQ(bits({y.begin() + 64, y.end()}), want) << "second run";
  r = tessera("run " + p("mv.tsx") + " --program matvec, --input x=" + p("x.bin"), dir);
  EXPECT_EQ(r.status, 1);
  EXPECT_THAT(r.out, HasSubstr("--program matvec,: an empty program name"));
  r = tessera("run " + p("mv.tsx") + " --program matvec,train --input x=" + p("x.bin"), dir);
  EXPECT_EQ(r.status, 1);
  EXPECT_THAT(r.out, HasSubstr("no program 'train'"));
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

// Regression tests of issue 17: paths checked before the work, inputs of exactly the
// stream's size, numbers range-checked, impossible compiles refused before allocating.
TEST_F(Cli, DirectoriesAndBadPathsAreNamedBeforeAnyWork) {
  Result r = tessera("info " + dir.string(), dir);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_THAT(r.out, HasSubstr("is a directory"));  // was: a size of 2^63 - 1 bytes
  r = tessera("run " + dir.string(), dir);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_THAT(r.out, HasSubstr("is a directory"));
  r = tessera("run " + p("mv.tsx") + " --input x=" + dir.string(), dir);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_THAT(r.out, HasSubstr("is a directory"));
  for (const std::string& bad : {"--output y=" + p("no/such/dir/y.bin"), "--output y=" + dir.string(),
                                 "--report " + dir.string(), "--report " + p("no/such/dir/r.json")}) {
    r = tessera("run " + p("mv.tsx") + " --input x=" + p("x.bin") + " " + bad, dir);
    EXPECT_EQ(r.status, 1) << bad << ": " << r.out;
    EXPECT_THAT(r.out, ::testing::AnyOf(HasSubstr("does not exist"), HasSubstr("is a directory"))) << bad;
    EXPECT_THAT(r.out, ::testing::Not(HasSubstr("running program"))) << bad << ": checked only after the run";
  }
}

TEST_F(Cli, AnInputMustHoldExactlyTheStreamsBytes) {
  std::vector<char> big(64 * 4 * 2, 0);
  std::ofstream(p("big.bin"), std::ios::binary).write(big.data(), static_cast<std::streamsize>(big.size()));
  Result r = tessera("run " + p("mv.tsx") + " --input x=" + p("big.bin"), dir);
  EXPECT_EQ(r.status, 1) << r.out;  // was: exit 0, the rest ignored
  EXPECT_THAT(r.out, HasSubstr("512 bytes, more than the 256 expected"));
  std::ofstream(p("empty.bin"), std::ios::binary).close();
  r = tessera("run " + p("mv.tsx") + " --input x=" + p("empty.bin"), dir);
  EXPECT_EQ(r.status, 1) << r.out;  // was: a memcpy from a null pointer (UBSan)
  EXPECT_THAT(r.out, HasSubstr("0 bytes, but stream 'x'"));
  r = tessera("run " + p("mv.tsx") + " --input A=" + p("x.bin"), dir);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_THAT(r.out, HasSubstr("tensor 'A' takes 16384"));
}

TEST_F(Cli, NumbersAreRangeChecked) {
  for (const char* t : {"0", "-1", "x"}) {
    const Result r = tessera("run " + p("mv.tsx") + " --input x=" + p("x.bin") + " --timeout-ms " + t, dir);
    EXPECT_EQ(r.status, 2) << "--timeout-ms " << t << ": " << r.out;
  }
  const std::string train = "compile mnist-train --target small -o " + p("t.tsx") + " ";
  const std::pair<std::string, std::string> cases[] = {
      {"--lr -1", "--lr"}, {"--lr 0", "--lr"}, {"--lr nan", "--lr"}, {"--lr inf", "--lr"},
      {"--momentum 2", "--momentum"}, {"--momentum -0.5", "--momentum"}, {"--momentum 1", "--momentum"},
      {"--epochs 4294967295", "steps, more than the"},  // was: a 2-step schedule
      {"--infer-batches 4294967295", "at most 65536"},   // was: std::bad_alloc
      {"--steps-per-sync 100000", "at most 65536"},
      {"--widths 784,0,10", "each width"}};
  for (const auto& [args, want] : cases) {
    const Result r = tessera(train + args, dir);
    EXPECT_EQ(r.status, 1) << args << ": " << r.out;
    EXPECT_THAT(r.out, HasSubstr(want)) << args;
    EXPECT_FALSE(fs::exists(p("t.tsx"))) << args;
  }
}

TEST_F(Cli, AnImpossibleCompileFailsFastWithTheFitReport) {
  const auto t0 = std::chrono::steady_clock::now();
  Result r = tessera("compile mnist-train --widths 784,100000,10 --target small -o " + p("t.tsx"), dir);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_THAT(r.out, HasSubstr("does not fit small"));
  EXPECT_THAT(r.out, HasSubstr("nothing was compiled"));
  r = tessera("compile mnist-mlp --weights " + dir.string() + " --batch 100000 -o " + p("m.tsx"), dir);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_THAT(r.out, HasSubstr("does not fit small"));
  // Was: a minute and 14-17 GB before the compiler's own report.
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(20));
  // A bad -o fails before the compile, not after it.
  r = tessera("compile mnist-train --target small -o " + p("no/such/dir/t.tsx"), dir);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_THAT(r.out, HasSubstr("does not exist"));
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("compiling")));
}

TEST_F(Cli, TrainChecksItsOutputPathsBeforeTraining) {
  for (const std::string& bad : {"--save " + p("no/such/dir"), "--onnx " + dir.string(), "--losses " + dir.string(),
                                 "--preds " + p("no/such/p.u8")}) {
    const Result r = tessera("train " + p("mv.tsx") + " --seed 1 " + bad, dir);
    EXPECT_EQ(r.status, 1) << bad << ": " << r.out;
    EXPECT_THAT(r.out, ::testing::AnyOf(HasSubstr("does not exist"), HasSubstr("is a directory"))) << bad;
    EXPECT_THAT(r.out, ::testing::Not(HasSubstr("reading"))) << bad << ": checked only after reading the model";
  }
}

}  // namespace
}  // namespace tessera::testing
