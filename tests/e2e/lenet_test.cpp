// LeNet-5 from PyTorch through ONNX onto the emulated machine (examples/lenet/train_lenet.py
// is the reference): the 2,000 test digits of the MNIST split in one run on `small` (100
// batches of 20), their logits within 1e-4 of PyTorch's and the same prediction on at least
// 99.9% of them; the ISS gives the native run's bits on a batch. The same with the convs and
// pools planned for native mode (--plan host, ops::PlanFor::kHost).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "tessera/arch/tile_map.h"
#include "tessera/emu/machine.h"
#include "tessera/npy/npy.h"
#include "tessera/onnx/import.h"
#include "tessera/opgraph/lower.h"
#include "tessera/passes/passes.h"
#include "tessera/runtime/engine.h"
#include "tessera/testutil/on_emulator.h"

namespace tessera::testing {
namespace {

const std::string kDir = TESSERA_LENET_REFERENCE_DIR;

// lenet.onnx at `batch`, compiled for `small` with `batches` transfers per run.
exe::Executable compile(uint32_t batch, uint32_t batches, ops::PlanFor plan = ops::PlanFor::kMachine) {
  onnx_import::ImportOptions io;
  io.batch = batch;
  const onnx_import::Model m = onnx_import::import_file(kDir + "/lenet.onnx", io);
  const passes::CompileOptions co =
      passes::firmware_options(std::string(TESSERA_TILE_BIN_DIR) + "/runtime/tessera-firmware.elf");
  graph::Graph g(*arch::find_target("small"));
  opgraph::LowerOptions lo;
  lo.batches = batches;
  lo.plan_for = plan;
  lo.firmware_bytes = co.layout.firmware_end - arch::kSramBase;
  opgraph::lower(m.graph, g, lo);
  const auto t0 = std::chrono::steady_clock::now();
  exe::Executable e = passes::compile(g, co);
  std::printf("compiled batch %u x %u: %zu vertices, %u supersteps, %.2f s\n", batch, batches, g.vertices().size(),
              e.supersteps, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  return e;
}

std::vector<float> run(const exe::Executable& e, emu::Mode mode, std::vector<float> x, size_t logits) {
  testutil::OnEmulator loaded(e, mode);
  runtime::Engine& engine = loaded.engine;
  std::vector<float> y(logits);
  engine.connect_stream("x", std::span(x));
  engine.connect_stream("logits", std::span(y));
  const auto t0 = std::chrono::steady_clock::now();
  engine.run("infer", std::chrono::minutes(10));
  std::printf("%s: %.2f s\n", mode == emu::Mode::kIss ? "ISS" : "native",
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  return y;
}

size_t argmax(const float* row) { return static_cast<size_t>(std::max_element(row, row + 10) - row); }

void matches_pytorch(ops::PlanFor plan) {
  const std::vector<float> x = npy::read_file(kDir + "/test_x.npy").floats();
  const std::vector<float> want = npy::read_file(kDir + "/test_logits.npy").floats();
  ASSERT_EQ(x.size(), 2000u * 784);
  ASSERT_EQ(want.size(), 2000u * 10);
  const std::vector<float> got = run(compile(20, 100, plan), emu::Mode::kNative, x, want.size());
  double worst = 0;
  size_t same = 0;
  for (size_t i = 0; i < 2000; ++i) {
    same += argmax(&got[i * 10]) == argmax(&want[i * 10]);
    for (size_t j = 0; j < 10; ++j) worst = std::max(worst, double(std::fabs(got[i * 10 + j] - want[i * 10 + j])));
  }
  std::printf("same prediction as PyTorch on %zu of 2000 digits; largest logit difference %.3g\n", same, worst);
  EXPECT_GE(same, 1998u);
  EXPECT_LE(worst, 1e-4);
}

void iss_gives_the_same_bits(ops::PlanFor plan) {
  std::vector<float> x = npy::read_file(kDir + "/test_x.npy").floats();
  x.resize(8 * 784);
  const exe::Executable e = compile(8, 1, plan);
  const std::vector<float> native = run(e, emu::Mode::kNative, x, 80);
  const std::vector<float> iss = run(e, emu::Mode::kIss, x, 80);
  EXPECT_EQ(0, std::memcmp(native.data(), iss.data(), native.size() * 4));
}

TEST(LeNet, MatchesPyTorchOnTheTestDigits) { matches_pytorch(ops::PlanFor::kMachine); }
TEST(LeNet, IssGivesTheSameBitsAsNative) { iss_gives_the_same_bits(ops::PlanFor::kMachine); }
TEST(LeNet, PlannedForTheHostMatchesPyTorch) { matches_pytorch(ops::PlanFor::kHost); }
TEST(LeNet, PlannedForTheHostIssGivesTheSameBitsAsNative) { iss_gives_the_same_bits(ops::PlanFor::kHost); }

}  // namespace
}  // namespace tessera::testing
