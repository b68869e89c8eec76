// mnist-train's program "init" (models/mlp_train.h): a small MLP's executable run on the
// emulator (ISS = native bits). After "init" every parameter equals the numpy reference of
// the documented formula (init_reference.py: Philox4x32-10 written from the paper, checked
// against Random123's known answers) bit for bit, and every velocity, lr and step word is
// zero, also after training steps had changed them; the same seed gives the same values
// again, another seed others.
#include <gtest/gtest.h>

#include <bit>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>

#include <unistd.h>

#include "tessera/arch/tile_map.h"
#include "tessera/emu/machine.h"
#include "tessera/models/mlp_train.h"
#include "tessera/passes/passes.h"
#include "tessera/runtime/engine.h"

namespace tessera::testing {
namespace {

std::vector<uint32_t> words(const std::vector<float>& v) {
  std::vector<uint32_t> b;
  for (float f : v) b.push_back(std::bit_cast<uint32_t>(f));
  return b;
}

struct Fixture {
  models::MlpTrainConfig c;
  exe::Executable e;
  std::vector<std::string> params, state;  // parameter names; velocities, lr and step words
};

const Fixture& fixture() {
  static const Fixture f = [] {
    Fixture f;
    f.c.widths = {784, 32, 16, 10};
    f.c.batch = 8;
    f.c.steps_per_sync = 2;
    f.c.infer_batch = 8;
    f.c.lr0 = 0.1f;
    f.c.total_steps = 100;
    f.c.target = "small";
    const passes::CompileOptions co =
        passes::firmware_options(std::string(TESSERA_TILE_BIN_DIR) + "/runtime/tessera-firmware.elf");
    f.c.firmware_bytes = co.layout.firmware_end - arch::kSramBase;
    graph::Graph g = models::build_mlp_training(f.c, models::init_mlp_params(f.c.widths, 5));
    f.e = passes::compile(g, co);
    f.params = models::mlp_param_names(f.c.widths);
    for (const exe::Tensor& t : f.e.tensors)
      if (t.name.ends_with(".velocity") || t.name.starts_with("sgd.lr@") || t.name.starts_with("sgd.step@"))
        f.state.push_back(t.name);
    return f;
  }();
  return f;
}

// One device: the executable loaded.
struct Device {
  std::unique_ptr<emu::Machine> m;
  std::unique_ptr<runtime::Engine> engine;
  Device(emu::Mode mode, const exe::Executable& e) {
    emu::MachineOptions mo;
    mo.target = arch::find_target(e.target);
    mo.mode = mode;
    m = std::make_unique<emu::Machine>(mo);
    m->load_firmware(exe::parse_elf(e.firmware, "firmware"));
    engine = std::make_unique<runtime::Engine>(*m, e);
    engine->load();
  }
  void init(uint32_t seed) {
    std::vector<uint32_t> s{seed};
    engine->connect_stream("seed", std::span(s));
    engine->run("init", std::chrono::minutes(5));
  }
  // Two training steps on random digits.
  void train(uint32_t seed, const models::MlpTrainConfig& c) {
    std::mt19937 rng(seed);
    std::vector<float> x(size_t{c.steps_per_sync} * c.batch * c.widths[0]);
    std::vector<uint32_t> labels(size_t{c.steps_per_sync} * c.batch);
    std::vector<float> loss(labels.size());
    for (float& v : x) v = float(rng() % 256) / 255.0f;
    for (uint32_t& l : labels) l = rng() % 10;
    engine->connect_stream("x", std::span(x));
    engine->connect_stream("labels", std::span(labels));
    engine->connect_stream("loss", std::span(loss));
    engine->run("train", std::chrono::minutes(5));
  }
  std::vector<std::vector<uint32_t>> read(const std::vector<std::string>& names) {
    std::vector<std::vector<uint32_t>> r;
    for (const std::string& n : names) r.push_back(engine->read_tensor_as<uint32_t>(n));
    return r;
  }
};

bool all_zero(const std::vector<std::vector<uint32_t>>& v) {
  for (const auto& t : v)
    for (uint32_t w : t)
      if (w) return false;
  return true;
}

TEST(MlpInit, ProgramAndStream) {
  const Fixture& f = fixture();
  ASSERT_NE(f.e.find_program("init"), nullptr);
  const exe::Stream* s = f.e.find_stream("seed");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->dtype, exe::DType::kU32);
  EXPECT_EQ(s->shape, std::vector<uint32_t>{1});
  // six velocities and at least one lr and step word per tile holding a parameter
  size_t velocities = 0, lrs = 0, steps = 0;
  for (const std::string& n : f.state) {
    velocities += n.ends_with(".velocity");
    lrs += n.starts_with("sgd.lr@");
    steps += n.starts_with("sgd.step@");
  }
  EXPECT_EQ(velocities, 6u);
  EXPECT_GT(lrs, 1u);
  EXPECT_EQ(lrs, steps);
}

TEST(MlpInit, ResetsParametersAndOptimizerStateIssEqualsNative) {
  const Fixture& f = fixture();
  const uint32_t seed = 20261130;
  std::vector<std::vector<std::vector<uint32_t>>> first;  // per mode
  for (const emu::Mode mode : {emu::Mode::kNative, emu::Mode::kIss}) {
    SCOPED_TRACE(mode == emu::Mode::kIss ? "ISS" : "native");
    Device d(mode, f.e);
    d.init(seed);
    const auto p0 = d.read(f.params);
    EXPECT_TRUE(all_zero(d.read(f.state)));
    // the load's initial values (init_mlp_params) are gone
    const models::MlpParams host = models::init_mlp_params(f.c.widths, 5);
    EXPECT_NE(p0[0], words(host.at("fc1.w")));
    d.train(1, f.c);
    EXPECT_FALSE(all_zero(d.read(f.state))) << "training should change the optimizer state";
    EXPECT_NE(d.read(f.params), p0) << "training should change the parameters";
    d.init(seed);
    EXPECT_EQ(d.read(f.params), p0) << "the same seed gives the same parameters";
    EXPECT_TRUE(all_zero(d.read(f.state))) << "init zeroes the velocities, lr and step words";
    d.init(seed + 1);
    const auto p1 = d.read(f.params);
    for (size_t i = 0; i < p1.size(); ++i) EXPECT_NE(p1[i], p0[i]) << f.params[i] << ": another seed";
    first.push_back(p0);
  }
  EXPECT_EQ(first[0], first[1]) << "ISS and native differ";

  // The numpy reference of the documented formula, bit for bit.
  if (std::system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1") != 0) GTEST_SKIP() << "no numpy";
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("tessera-mlp-init-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    std::ofstream meta(dir / "meta.txt");
    meta << "seed " << seed << "\nwidths";
    for (uint32_t w : f.c.widths) meta << " " << w;
    meta << "\n";
  }
  for (size_t i = 0; i < f.params.size(); ++i) {
    std::ofstream out(dir / (f.params[i] + ".f32"), std::ios::binary);
    out.write(reinterpret_cast<const char*>(first[0][i].data()), std::streamsize(first[0][i].size() * 4));
  }
  const std::string cmd = "/usr/bin/python3 " TESSERA_SOURCE_DIR "/tests/opgraph/init_reference.py " + dir.string();
  const int rc = std::system(cmd.c_str());
  std::filesystem::remove_all(dir);
  EXPECT_EQ(rc, 0) << cmd;
}

}  // namespace
}  // namespace tessera::testing
