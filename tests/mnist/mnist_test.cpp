// MNIST inference end to end against PyTorch: the built-in mnist-mlp, with the weights the
// PyTorch reference trained (examples/mnist/train_reference.py, a ctest fixture), compiled
// for `small`, run on the emulator through the host runtime on the 2,000 test digits of
// the fixed split. The predictions must agree with PyTorch's on at least 99.9% of the
// digits and the accuracy within 0.1 point; ISS mode gives the same bits as native mode.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <fstream>
#include <iterator>

#include "tessera/arch/tile_map.h"
#include "tessera/data/dataset.h"
#include "tessera/emu/machine.h"
#include "tessera/models/mlp.h"
#include "tessera/registry/registry.h"
#include "tessera/passes/passes.h"
#include "tessera/runtime/engine.h"

namespace tessera::testing {
namespace {

std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

template <typename T>
std::vector<T> read_as(const std::string& path) {
  const auto b = read_bytes(path);
  std::vector<T> v(b.size() / sizeof(T));
  std::memcpy(v.data(), b.data(), v.size() * sizeof(T));
  return v;
}

const data::Dataset& test_digits() {
  static const data::Dataset d = data::load_mnist_split(TESSERA_MNIST_DIR, TESSERA_MNIST_SPLIT).test;
  return d;
}

exe::Executable compile_mlp(uint32_t batch, uint32_t batches) {
  passes::CompileOptions o;
  o.firmware = read_bytes(std::string(TESSERA_TILE_BIN_DIR) + "/runtime/tessera-firmware.elf");
  const exe::ElfImage fw = exe::parse_elf(o.firmware, "firmware");
  o.layout = exe::firmware_layout(fw);
  graph::Graph g(*arch::find_target("small"));
  models::build_mlp_inference(g, models::read_mlp_weights(TESSERA_MNIST_REFERENCE_DIR),
                              {batch, batches, o.layout.firmware_end - arch::kSramBase});
  return passes::compile(g, o);
}

struct Outputs {
  std::vector<float> logits;
  std::vector<uint32_t> preds;
};

// Runs program "infer" on the first `images` test digits.
Outputs run(const exe::Executable& e, const char* device, uint32_t images) {
  const auto m = registry::open(device);
  m->configure(e.target, std::as_bytes(std::span(e.firmware)));
  runtime::Engine engine(*m, e);
  engine.load();
  std::vector<float> x(test_digits().images.begin(), test_digits().images.begin() + size_t{images} * 784);
  Outputs out{std::vector<float>(size_t{images} * 10), std::vector<uint32_t>(images)};
  engine.connect_stream("x", std::span(x));
  engine.connect_stream("logits", std::span(out.logits));
  engine.connect_stream("preds", std::span(out.preds));
  engine.run("infer", std::chrono::minutes(5));
  return out;
}

TEST(Mnist, MatchesPyTorchOnTheTestDigits) {
  const std::string ref = TESSERA_MNIST_REFERENCE_DIR;
  const auto want_pred = read_as<uint8_t>(ref + "/test_pred.u8");
  const auto want_logits = read_as<float>(ref + "/test_logits.f32");
  ASSERT_EQ(want_pred.size(), 2000u) << "no PyTorch reference in " << ref;
  const Outputs got = run(compile_mlp(40, 50), "emu-native", 2000);
  uint32_t same = 0, right = 0, right_torch = 0;
  double max_diff = 0;
  for (uint32_t i = 0; i < 2000; ++i) {
    same += got.preds[i] == want_pred[i];
    right += got.preds[i] == test_digits().labels[i];
    right_torch += want_pred[i] == test_digits().labels[i];
    for (uint32_t c = 0; c < 10; ++c)
      max_diff = std::max(max_diff, double{std::fabs(got.logits[i * 10 + c] - want_logits[i * 10 + c])});
  }
  std::printf("tessera: %u/2000 correct (%.2f%%), PyTorch %u/2000 (%.2f%%), same prediction on %u, max |logit diff| %.2e\n",
              right, right / 20.0, right_torch, right_torch / 20.0, same, max_diff);
  EXPECT_GE(same, 1998u);                              // 99.9%
  EXPECT_LE(std::abs(int(right) - int(right_torch)), 2);  // 0.1 point
  EXPECT_LT(max_diff, 1e-3);
}

TEST(Mnist, IssGivesTheSameBitsAsNativeOnABatch) {
  const exe::Executable e = compile_mlp(40, 1);
  const Outputs iss = run(e, "emu", 40), native = run(e, "emu-native", 40);
  for (size_t i = 0; i < iss.logits.size(); ++i)
    ASSERT_EQ(std::bit_cast<uint32_t>(iss.logits[i]), std::bit_cast<uint32_t>(native.logits[i])) << "logit " << i;
  EXPECT_EQ(iss.preds, native.preds);
}

}  // namespace
}  // namespace tessera::testing
