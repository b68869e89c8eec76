// MNIST inference on card-sim for `small` (16 tiles, 2 host nodes): the built-in mnist-mlp
// with the PyTorch reference weights (the mnist_reference fixture) on the first test digits,
// through the Engine and the card driver, bit-identical to the emulator (ISS and native), and
// PyTorch's predictions.
#include <gtest/gtest.h>

#include <bit>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>

#include "tessera/arch/tile_map.h"
#include "tessera/card/card_sim.h"
#include "tessera/data/dataset.h"
#include "tessera/emu/machine.h"
#include "tessera/models/mlp.h"
#include "tessera/passes/passes.h"
#include "tessera/runtime/engine.h"

namespace tessera::testing {
namespace {

constexpr uint32_t kImages = 8;

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
};

Outputs run(device::Device& dev) {
  runtime::Engine engine(dev, mnist_exe());
  engine.load();
  std::vector<float> x(test_digits().images.begin(), test_digits().images.begin() + size_t{kImages} * 784);
  Outputs out{std::vector<float>(size_t{kImages} * 10), std::vector<uint32_t>(kImages)};
  engine.connect_stream("x", std::span(x));
  engine.connect_stream("logits", std::span(out.logits));
  engine.connect_stream("preds", std::span(out.preds));
  engine.run("infer", std::chrono::minutes(5));
  return out;
}

Outputs run_emu(emu::Mode mode) {
  emu::MachineOptions o;
  o.target = arch::find_target("small");
  o.mode = mode;
  emu::Machine m(o);
  m.load_firmware(exe::parse_elf(mnist_exe().firmware, "firmware"));
  return run(m);
}

TEST(CardSim, MnistOnSmallIsBitIdenticalToTheEmulator) {
  const Outputs iss = run_emu(emu::Mode::kIss), native = run_emu(emu::Mode::kNative);
  auto card = card::make_card_sim("small", exe::parse_elf(mnist_exe().firmware, "firmware"), stdout);
  const auto t0 = std::chrono::steady_clock::now();
  const Outputs got = run(*card);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (size_t i = 0; i < iss.logits.size(); ++i) {
    ASSERT_EQ(std::bit_cast<uint32_t>(iss.logits[i]), std::bit_cast<uint32_t>(native.logits[i])) << "logit " << i;
    ASSERT_EQ(std::bit_cast<uint32_t>(iss.logits[i]), std::bit_cast<uint32_t>(got.logits[i])) << "logit " << i;
  }
  EXPECT_EQ(got.preds, iss.preds);
  std::ifstream f(std::string(TESSERA_MNIST_REFERENCE_DIR) + "/test_pred.u8", std::ios::binary);
  const std::vector<uint8_t> torch{std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
  ASSERT_GE(torch.size(), kImages);
  uint32_t right = 0;
  for (uint32_t i = 0; i < kImages; ++i) {
    EXPECT_EQ(got.preds[i], torch[i]) << "test digit " << i;
    right += got.preds[i] == test_digits().labels[i];
  }
  const card::CardTraffic& t = card->traffic();
  std::printf("card-sim (small): %u of %u right, %llu cycles in %.1f s; host to device %llu bytes in %llu cycles "
              "(%.2f bytes/clock), device to host %llu bytes in %llu cycles (%.2f bytes/clock)\n",
              right, kImages, static_cast<unsigned long long>(card->io().cycles()), s,
              static_cast<unsigned long long>(t.h2d_bytes), static_cast<unsigned long long>(t.h2d_cycles),
              t.h2d_cycles ? double(t.h2d_bytes) / double(t.h2d_cycles) : 0.0, static_cast<unsigned long long>(t.d2h_bytes),
              static_cast<unsigned long long>(t.d2h_cycles), t.d2h_cycles ? double(t.d2h_bytes) / double(t.d2h_cycles) : 0.0);
}

}  // namespace
}  // namespace tessera::testing
