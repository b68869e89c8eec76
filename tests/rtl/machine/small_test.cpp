// The verilated `small` machine (16 tiles, 4 x 4, 2 host nodes, 128 KiB a tile): MNIST
// inference on the RTL. The built-in mnist-mlp with the PyTorch reference weights (the
// mnist_reference fixture, as tests/mnist) is compiled for `small` and run through the
// Engine on the emulator (ISS and native) and on the RTL for the first test digits of the
// fixed split: the logits must be bit-identical and the predicted classes are printed. The
// co-simulation test runs the same executable superstep by superstep and prints the
// calibration of the emulator's compute cycles against the RTL's.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>

#include "tessera/arch/tile_map.h"
#include "tessera/device/device.h"
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
  m->load_firmware(exe::parse_elf(mnist_exe().firmware, "firmware"));
  return m;
}

TEST(Small, MnistOnTheRtlIsBitIdenticalToTheEmulator) {
  ASSERT_EQ(std::string(vlt::VltMachine::target().name), "small");
  ASSERT_EQ(vlt::VltMachine::target().tiles, 16u);
  const Outputs iss = run(*make_emu(emu::Mode::kIss)), native = run(*make_emu(emu::Mode::kNative));
  vlt::VltMachine rtl;
  rtl.load_firmware(exe::parse_elf(mnist_exe().firmware, "firmware"));
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

// Both host nodes read tiles of column 0 at once (docs/network.md, "Why it cannot deadlock"):
// host node 0 (west of router (0, 0)) and host node 1 (west of (0, 1)) each read tiles 0 and
// 4, so the column's links carry requests of one node beside replies to the other, both
// ways. The machine lets only as many read requests into the mesh as a tile's NI can queue
// replies (credits shared by the host nodes), so this cannot deadlock whatever the host does;
// once with the device-to-host streams drained, then with one node's stalled for 400
// cycles. The words are the emulator's.
TEST(Small, TwoHostNodesReadColumnZeroAtOnce) {
  using vlt::VltMachine;
  ASSERT_EQ(VltMachine::host_nodes(), 2u);
  constexpr uint32_t kWords = 512, kAddr = arch::kSramBase + 0x4000;
  emu::MachineOptions eo;
  eo.target = arch::find_target("small");
  emu::Machine emu(eo);
  VltMachine rtl;
  // Region k: kWords words on tile tiles[k] (at kAddr + 4 k kWords), read through nodes[k]:
  // each host node reads both column-0 tiles of the two rows it sits beside.
  const uint32_t tiles[4] = {4, 0, 0, 4}, nodes[4] = {0, 0, 1, 1};
  std::vector<uint32_t> data(4 * kWords);
  for (uint32_t i = 0; i < data.size(); ++i) data[i] = 0x9e3779b9u * (i + 1);
  std::vector<device::DmaSegment> segs;
  for (uint32_t k = 0; k < 4; ++k) segs.push_back({tiles[k], kAddr + 4 * k * kWords, kWords * 4, k * kWords * 4});
  rtl.dma_write(segs, std::as_bytes(std::span(data)));
  emu.dma_write(segs, std::as_bytes(std::span(data)));
  std::vector<uint32_t> want(data.size());
  emu.dma_read(segs, std::as_writable_bytes(std::span(want)));
  ASSERT_EQ(want, data);

  // Drained streams: dma_read through both nodes at once, the regions in pieces of 4 words
  // taken in turn (host node 0's requests go to tiles 4, 0, 4, ..., host node 1's to 0, 4, 0,
  // ...: every NI's reply queue holds replies bound across the column and to its own row).
  std::vector<device::DmaSegment> pieces;
  std::vector<uint32_t> piece_nodes;
  for (uint32_t i = 0; i < kWords; i += 4)
    for (uint32_t k = 0; k < 4; ++k) {
      pieces.push_back({tiles[k], kAddr + 4 * (k * kWords + i), 16, (k * kWords + i) * 4});
      piece_nodes.push_back(nodes[k]);
    }
  std::vector<uint32_t> got(data.size());
  const uint64_t c0 = rtl.cycles();
  ASSERT_NO_THROW(rtl.dma_read_nodes(pieces, piece_nodes, std::as_writable_bytes(std::span(got))));
  EXPECT_EQ(got, want);
  std::printf("two host nodes: %zu words read in %llu cycles\n", got.size(),
              static_cast<unsigned long long>(rtl.cycles() - c0));

  // One host node stops draining its stream for 400 cycles while the reads go out (its
  // replies back up into column 0), then drains again: host node 1, then 0; the same reads,
  // or only the reads across the column (node 0 reads tile 4, node 1 tile 0).
  for (const uint32_t variant : {0u, 1u, 2u, 3u}) {
    const bool cross_only = variant & 1;
    const uint32_t stalled = variant & 2 ? 0u : 1u;  // the host node whose stream stops
    std::fill(got.begin(), got.end(), 0);
    for (uint32_t i = 0; i < kWords; ++i)
      for (uint32_t k = 0; k < 4; ++k) {
        if (cross_only && tiles[k] != (nodes[k] == 0 ? 4u : 0u)) continue;
        rtl.queue_read(nodes[k], tiles[k], kAddr + 4 * (k * kWords + i), &got[k * kWords + i]);
      }
    rtl.set_d2h_ready(3u & ~(1u << stalled));
    rtl.step(400);
    rtl.set_d2h_ready(3);
    for (int i = 0; i < 100000 && rtl.reads_pending(); ++i) rtl.step(1);
    EXPECT_EQ(rtl.reads_pending(), 0u) << "deadlock: replies missing; host node " << stalled << " stalled"
                                       << (cross_only ? ", reads across the column only" : "");
    for (uint32_t k = 0; k < 4; ++k) {
      if (cross_only && tiles[k] != (nodes[k] == 0 ? 4u : 0u)) continue;
      EXPECT_TRUE(std::equal(want.begin() + k * kWords, want.begin() + (k + 1) * kWords, got.begin() + k * kWords))
          << "region " << k;
    }
    if (rtl.reads_pending()) break;  // wedged: the rest would only time out again
  }
  EXPECT_EQ(rtl.checks().d2h_dropped, 0u);
  EXPECT_EQ(rtl.checks().ni_inject_unstable, 0u);
}

}  // namespace
}  // namespace tessera::testing
