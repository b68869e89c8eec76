// The verilated `small` machine (16 tiles, 4 x 4, 2 host nodes, 128 KiB a tile): MNIST
// inference on the RTL. The built-in mnist-mlp with the PyTorch reference weights (the
// mnist_reference fixture, as tests/mnist) is compiled for `small` and run through the
// Engine on the emulator (ISS and native) and on the RTL for the first test digits of the
// fixed split: the logits must be bit-identical and the predicted classes are printed. The
// co-simulation test runs the same executable superstep by superstep and prints the
// calibration of the emulator's compute cycles against the RTL's.
#include <gtest/gtest.h>

#include <bit>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>

#include "tessera/arch/tile_map.h"
#include "tessera/data/dataset.h"
#include "tessera/emu/machine.h"
#include "tessera/models/mlp.h"
#include "tessera/passes/passes.h"
#include "tessera/runtime/engine.h"
#include "tessera/vlt/cosim.h"
#include "tessera/vlt/vlt_machine.h"

namespace tessera::testing {
namespace {

// The first kImages digits of the 2,000-digit test split, one transfer of kImages.
constexpr uint32_t kImages = 8;

std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

const data::Dataset& test_digits() {
  static const data::Dataset d = data::load_mnist_split(TESSERA_MNIST_DIR, TESSERA_MNIST_SPLIT).test;
  return d;
}

const exe::Executable& mnist_exe() {
  static const exe::Executable e = [] {
    const arch::Target& small = *arch::find_target("small");
    const passes::CompileOptions o =
        passes::firmware_options(std::string(TESSERA_TILE_BIN_DIR) + "/runtime/tessera-firmware.elf", &small);
    graph::Graph g(small);
    models::build_mlp_inference(g, models::read_mlp_weights(TESSERA_MNIST_REFERENCE_DIR),
                                {kImages, 1, o.layout.firmware_end - arch::kSramBase});
    return passes::compile(g, o);
  }();
  return e;
}

struct Outputs {
  std::vector<float> logits;
  std::vector<uint32_t> preds;
  uint32_t supersteps = 0;
};

Outputs run(device::Device& dev) {
  const exe::Executable& e = mnist_exe();
  runtime::Engine engine(dev, e);
  engine.load();
  std::vector<float> x(test_digits().images.begin(), test_digits().images.begin() + size_t{kImages} * 784);
  Outputs out{std::vector<float>(size_t{kImages} * 10), std::vector<uint32_t>(kImages)};
  engine.connect_stream("x", std::span(x));
  engine.connect_stream("logits", std::span(out.logits));
  engine.connect_stream("preds", std::span(out.preds));
  engine.run("infer", std::chrono::minutes(5));
  out.supersteps = engine.reports().back().supersteps;
  return out;
}

std::unique_ptr<emu::Machine> make_emu(emu::Mode mode) {
  emu::MachineOptions o;
  o.target = arch::find_target("small");
  o.mode = mode;
  auto m = std::make_unique<emu::Machine>(o);
  m->load_firmware(emu::parse_elf(mnist_exe().firmware, "firmware"));
  return m;
}

TEST(Small, MnistOnTheRtlIsBitIdenticalToTheEmulator) {
  ASSERT_EQ(std::string(vlt::VltMachine::target().name), "small");
  ASSERT_EQ(vlt::VltMachine::target().tiles, 16u);
  const Outputs iss = run(*make_emu(emu::Mode::kIss)), native = run(*make_emu(emu::Mode::kNative));
  vlt::VltMachine rtl;
  rtl.load_firmware(emu::parse_elf(mnist_exe().firmware, "firmware"));
  const auto t0 = std::chrono::steady_clock::now();
  const Outputs got = run(rtl);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (size_t i = 0; i < iss.logits.size(); ++i) {
    ASSERT_EQ(std::bit_cast<uint32_t>(iss.logits[i]), std::bit_cast<uint32_t>(native.logits[i])) << "logit " << i;
    ASSERT_EQ(std::bit_cast<uint32_t>(iss.logits[i]), std::bit_cast<uint32_t>(got.logits[i])) << "logit " << i;
  }
  EXPECT_EQ(iss.preds, native.preds);
  EXPECT_EQ(iss.preds, got.preds);
  EXPECT_EQ(iss.supersteps, got.supersteps);
  uint32_t right = 0;
  for (uint32_t i = 0; i < kImages; ++i) {
    const uint32_t label = test_digits().labels[i];
    right += got.preds[i] == label;
    std::printf("test digit %u: label %u, RTL predicts %u, logits", i, label, got.preds[i]);
    for (uint32_t c = 0; c < 10; ++c) std::printf(" %.3f", got.logits[i * 10 + c]);
    std::printf("\n");
  }
  std::printf("RTL (small): %u of %u right; %u supersteps, %llu cycles in %.1f s (%.0f cycles/s, loading included)\n",
              right, kImages, got.supersteps, static_cast<unsigned long long>(rtl.cycles()), s, rtl.cycles() / s);
  // PyTorch's predictions for these digits (the fixture's test_pred.u8) are the same.
  const std::vector<uint8_t> torch = read_bytes(std::string(TESSERA_MNIST_REFERENCE_DIR) + "/test_pred.u8");
  ASSERT_GE(torch.size(), kImages);
  for (uint32_t i = 0; i < kImages; ++i) EXPECT_EQ(got.preds[i], torch[i]) << "test digit " << i;
}

// The same executable in co-simulation: memory equal at every superstep; the calibration of
// the emulator's cycle model on 16 tiles (matmul compute phases).
TEST(Small, MnistCosimulationAndCalibration) {
  const data::Dataset& d = test_digits();
  vlt::CosimOptions o;
  std::vector<std::byte> x(size_t{kImages} * 784 * 4);
  std::memcpy(x.data(), d.images.data(), x.size());
  o.inputs["x"] = x;
  const vlt::CosimResult r = vlt::cosimulate(mnist_exe(), o);
  ASSERT_TRUE(r.ok) << r.error;
  std::printf("cosim (small): %u memory comparisons, %llu RTL cycles, %.1f s\n", r.compared,
              static_cast<unsigned long long>(r.rtl_cycles), r.seconds);
  const double worst = vlt::print_calibration(r.steps, stdout);
  EXPECT_LE(worst, 0.05);
}

}  // namespace
}  // namespace tessera::testing
