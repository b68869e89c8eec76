// Weight streaming (docs/weight-streaming.md): weights that stay in the device's DRAM and
// stream to the tiles. What a read from device memory means (it lands by the next host
// sync, not before), a model too big for `small`'s SRAM computing what the interpreter does
// with only its input and output crossing to the host, and the device's refusals.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <span>

#include "tessera/arch/tile_map.h"
#include "tessera/emu/machine.h"
#include "tessera/opgraph/autodiff.h"
#include "tessera/opgraph/eval.h"
#include "tessera/opgraph/lower.h"
#include "tessera/opgraph/opgraph.h"
#include "tessera/passes/passes.h"
#include "tessera/runtime/engine.h"
#include "tessera/testutil/conv_classifier.h"
#include "tessera/testutil/seeded.h"

namespace tessera {
namespace {

using opgraph::DType;
using opgraph::OpGraph;
using opgraph::Value;
using testutil::seeded;

passes::CompileOptions options() {
  return passes::firmware_options(std::string(TESSERA_TILE_BIN_DIR) + "/runtime/tessera-firmware.elf");
}

std::unique_ptr<emu::Machine> machine(const exe::Executable& e, emu::Mode mode) {
  emu::MachineOptions mo;
  mo.target = arch::find_target(e.target);
  mo.mode = mode;
  auto m = std::make_unique<emu::Machine>(mo);
  m->load_firmware(exe::parse_elf(e.firmware, "firmware"));
  return m;
}

// A read from device memory lands at the next host sync: a copy of its tensor made before
// then sees the old contents (zeros), one made after sees the data. The compiler relies on
// exactly this when it issues a chunk one product ahead.
TEST(WeightStreaming, ReadFromDeviceMemoryLandsAtTheNextHostSync) {
  const passes::CompileOptions co = options();
  graph::Graph g(*arch::find_target("tiny"));
  const std::vector<uint32_t> words = {0x3f800000, 0x40000000, 0x40400000, 0x40800000, 0x40a00000, 0x40c00000};
  graph::Tensor t = g.add_variable(exe::DType::kF32, {6}, "t");
  g.set_tile_mapping(t, 1);
  graph::Tensor early = g.add_variable(exe::DType::kF32, {6}, "early"), late = g.add_variable(exe::DType::kF32, {6}, "late");
  g.set_tile_mapping(early, 2);
  g.set_tile_mapping(late, 3);
  graph::Program p = graph::Sequence();
  p.add(graph::HostWrite(g.add_device_memory_stream("w", exe::DType::kF32, {6}, words), t));
  p.add(graph::Copy(t, early));  // before the next host sync: not landed yet
  p.add(graph::HostRead(g.add_stream("early", exe::DType::kF32, {6}), early));  // lands here
  p.add(graph::Copy(t, late));
  p.add(graph::HostRead(g.add_stream("late", exe::DType::kF32, {6}), late));
  g.add_program("main", std::move(p));
  const exe::Executable e = passes::compile(g, co);
  ASSERT_EQ(e.device_memory.size(), 24u);
  ASSERT_TRUE(e.find_stream("w")->from_device_memory());

  for (const emu::Mode mode : {emu::Mode::kIss, emu::Mode::kNative}) {
    auto m = machine(e, mode);
    runtime::Engine engine(*m, e);
    engine.load();
    std::vector<uint32_t> got_early(6, 7), got_late(6, 7);
    engine.connect_stream("early", std::span(got_early));
    engine.connect_stream("late", std::span(got_late));
    engine.run("main", std::chrono::seconds(30));
    EXPECT_EQ(got_early, std::vector<uint32_t>(6, 0)) << "the copy before the next host sync saw the data";
    EXPECT_EQ(got_late, words);
    const runtime::RunReport& r = engine.reports().back();
    EXPECT_EQ(r.device_memory_bytes, 24u);
    EXPECT_EQ(r.host_bytes, 48u) << "the weights crossed to the host";
  }
}

// The memory plan keeps a device memory read's destination until it lands: a tensor born
// after the read's host sync must not take those bytes, or the landing overwrites it (here
// the copy of the host's data, read back at the host sync where the read lands).
TEST(WeightStreaming, DestinationKeepsItsBytesUntilTheReadLands) {
  const passes::CompileOptions co = options();
  graph::Graph g(*arch::find_target("tiny"));
  const std::vector<uint32_t> junk(6, 0xDEADBEEF);
  graph::Tensor a = g.add_variable(exe::DType::kU32, {6}, "a"), f = g.add_variable(exe::DType::kU32, {6}, "f"),
                u = g.add_variable(exe::DType::kU32, {6}, "u");
  g.set_tile_mapping(a, 1);
  g.set_tile_mapping(f, 0);
  g.set_tile_mapping(u, 0);
  graph::Program p = graph::Sequence();
  p.add(graph::HostWrite(g.add_stream("in", exe::DType::kU32, {6}), a));
  p.add(graph::HostWrite(g.add_device_memory_stream("f", exe::DType::kU32, {6}, junk), f));  // never read
  p.add(graph::Copy(a, u));
  p.add(graph::HostRead(g.add_stream("out", exe::DType::kU32, {6}), u));  // f lands here
  g.add_program("main", std::move(p));
  const exe::Executable e = passes::compile(g, co);
  auto m = machine(e, emu::Mode::kNative);
  runtime::Engine engine(*m, e);
  engine.load();
  std::vector<uint32_t> in = {1, 2, 3, 4, 5, 6}, out(6);
  engine.connect_stream("in", std::span(in));
  engine.connect_stream("out", std::span(out));
  engine.run("main", std::chrono::seconds(30));
  EXPECT_EQ(out, in) << "the landing read overwrote a tensor placed in its destination's bytes";
}

// A conv and a classifier whose 2 MB of weights cannot have tiles of their own on `small`
// (16 tiles of 128 KB; 1.7 MB above the firmware): the weights stream from device memory,
// the classifier's in chunks (several, double-buffered), the conv's before it. Compared with
// the interpreter on both emulator modes, over two batches; the cycle model waits for device
// memory at some host syncs and overlaps it elsewhere.
TEST(WeightStreaming, ModelBiggerThanTheTilesMatchesTheInterpreter) {
  const uint32_t seed = 20261204;
  std::printf("seed %u\n", seed);
  std::mt19937 rng(seed);
  OpGraph og;
  testutil::conv_classifier(og, 1024, rng);  // fc.w: 2 MB

  const passes::CompileOptions co = options();
  graph::Graph g(*arch::find_target("small"));
  opgraph::LowerOptions lo;
  lo.firmware_bytes = co.layout.firmware_end - arch::kSramBase;
  lo.batches = 2;
  std::string notes;
  lo.note = [&](const std::string& s) { notes += s + "\n"; };
  opgraph::lower(og, g, lo);
  EXPECT_NE(notes.find("weight streaming"), std::string::npos) << notes;
  // The chunks share A's blocks: A crosses to each tile once, not once per chunk (each
  // crossing is a send-list entry kept for the whole run).
  uint32_t a_blocks = 0, first_chunk = 0;
  for (const graph::Variable& v : g.variables())
    if (v.name.find("fc.matmul.chunk") == 0 && v.name.find(".a@") != std::string::npos) {
      ++a_blocks;
      first_chunk += v.name.find("fc.matmul.chunk0.") == 0;
    }
  EXPECT_GT(first_chunk, 0u);
  EXPECT_EQ(a_blocks, first_chunk) << "a chunk gathered A again";
  const exe::Executable e = passes::compile(g, co);  // throws if a tile does not fit
  uint32_t chunks = 0;
  for (const exe::Stream& s : e.streams) chunks += s.name.find("fc.matmul.chunk") == 0 && s.name.find('#') == std::string::npos;
  EXPECT_GE(chunks, 3u) << "the classifier in chunks";
  EXPECT_GE(e.device_memory.size(), 4u * (512 * 1024 + 8 * 4 * 9));

  std::vector<float> in = seeded(2 * 4 * 16 * 16, 1.0f, rng);
  std::vector<float> ref;
  for (uint32_t i = 0; i < 2; ++i) {
    const std::vector<float> one(in.begin() + i * 1024, in.begin() + (i + 1) * 1024);
    const std::vector<float> y = testutil::evaluate_output(og, {{"x", opgraph::to_words(one)}});
    ref.insert(ref.end(), y.begin(), y.end());
  }
  ASSERT_EQ(ref.size(), 2048u);

  for (const emu::Mode mode : {emu::Mode::kNative, emu::Mode::kIss}) {
    auto m = machine(e, mode);
    runtime::Engine engine(*m, e);
    engine.load();
    std::vector<float> y(2048);
    engine.connect_stream("x", std::span(in));
    engine.connect_stream("y", std::span(y));
    engine.run("infer", std::chrono::minutes(5));
    testutil::expect_matches_interpreter(y, ref);
    const runtime::RunReport& r = engine.reports().back();
    EXPECT_EQ(r.host_bytes, 4u * (2 * 1024 + 2 * 1024)) << "only the images and the outputs cross to the host";
    EXPECT_GE(r.device_memory_bytes, 2u * 4 * 512 * 1024) << "every batch streams the weights again";
    if (mode == emu::Mode::kIss) {
      uint64_t waits = 0, host = 0;
      for (const emu::SuperstepProfile& s : m->profile()) {
        waits += s.dram_wait_cycles > 0;
        host += s.kind == 1;
      }
      std::printf("%llu of %llu host syncs waited for device memory\n", static_cast<unsigned long long>(waits),
                  static_cast<unsigned long long>(host));
      EXPECT_GT(waits, 0u);
      EXPECT_LT(waits, host) << "no read overlapped any compute";
    }
  }
}

// Training with a weight in device memory (docs/weight-streaming.md, "Training"): an MLP
// 256-512-16 on `small`, whose first weight (512 KB, with its velocity and gradient three
// times that) would not fit beside the rest, keeps it there: each step streams it through
// the tiles for the forward product and again, chunk by chunk, for its gradients and the
// update, writing values and velocity back. Four steps of program "train" against the
// op graph's interpreter (each step's loss depends on the updates before it), then program
// "infer" (another lowering, streaming the same weight) against the interpreter's updated
// parameters; ISS and native bit for bit.
TEST(WeightStreaming, TrainingWritesUpdatedWeightsBackToDeviceMemory) {
  const uint32_t seed = 20261203, batch = 4, steps = 4;
  std::printf("seed %u\n", seed);
  std::mt19937 rng(seed);
  const std::vector<uint32_t> widths = {256, 512, 16};
  // The MLP; its layers' ops named with `prefix` (two programs' ops in one graph need
  // distinct names), its parameters by layer.
  auto build = [&](OpGraph& og, const char* input, uint32_t rows, std::vector<Value>& params, const std::string& prefix) {
    std::mt19937 wr(seed + 1);
    Value h = og.input(input, DType::kF32, {rows, widths[0]});
    for (size_t l = 0; l + 1 < widths.size(); ++l) {
      const std::string layer = "fc" + std::to_string(l + 1);
      const Value w = og.parameter(layer + ".w", {widths[l], widths[l + 1]},
                                   seeded(widths[l] * widths[l + 1], 1.0f / std::sqrt(float(widths[l])), wr));
      const Value b = og.parameter(layer + ".b", {widths[l + 1]}, seeded(widths[l + 1], 0.1f, wr));
      params.insert(params.end(), {w, b});
      h = og.add_bias(og.matmul(h, w, prefix + layer), b, prefix + layer);
      if (l + 2 < widths.size()) h = og.relu(h, prefix + layer);
    }
    return h;
  };
  OpGraph train;
  std::vector<Value> params;
  const Value logits = build(train, "x", batch, params, "");
  const Value labels = train.input("labels", DType::kU32, {batch});
  const Value loss = train.softmax_xent(logits, labels, "loss");
  train.output("loss", loss);
  const std::vector<Value> grads = opgraph::gradients(train, loss, params);
  for (size_t i = 0; i < params.size(); ++i) train.sgd_momentum(params[i], grads[i], 0.9f, 0.05f, 100, "sgd");
  OpGraph infer;
  std::vector<Value> infer_params;
  infer.output("logits", build(infer, "x_infer", 2, infer_params, "infer."));

  const passes::CompileOptions co = options();
  graph::Graph g(*arch::find_target("small"));
  opgraph::LowerOptions lo;
  lo.batches = steps;
  lo.firmware_bytes = co.layout.firmware_end - arch::kSramBase;
  lo.train = true;
  std::string notes;
  lo.note = [&](const std::string& s) { notes += s + "\n"; };
  lo.streamed = std::make_shared<std::map<std::string, std::shared_ptr<const ops::StreamedWeight>>>();
  opgraph::LowerOptions li;
  li.firmware_bytes = lo.firmware_bytes;
  li.parameters = opgraph::lower(train, g, lo);
  li.streamed = lo.streamed;
  ASSERT_EQ(lo.streamed->count("fc1.w"), 1u) << notes;
  EXPECT_EQ(li.parameters.count("fc1.w"), 0u) << "a streamed weight has no tensor";
  EXPECT_GE(lo.streamed->at("fc1.w")->chunks(), 2u);
  opgraph::lower(infer, g, li);
  const exe::Executable e = passes::compile(g, co);  // throws if a tile does not fit
  // The velocities start as zeros: device memory the file does not store.
  EXPECT_GE(e.device_memory_zeros, 4u * widths[0] * widths[1]);
  EXPECT_LT(e.device_memory.size(), 4u * widths[0] * widths[1] + 4096);
  // The velocities start as zeros: device memory the file does not store.
  EXPECT_GE(e.device_memory_zeros, 4u * widths[0] * widths[1]);
  EXPECT_LT(e.device_memory.size(), 4u * widths[0] * widths[1] + 4096);

  std::vector<float> x = seeded(steps * batch * widths[0], 1.0f, rng), xi = seeded(2 * widths[0], 1.0f, rng);
  std::vector<uint32_t> ls(steps * batch);
  for (uint32_t& l : ls) l = rng() % widths.back();
  // The interpreter: each step's losses, then the logits with the updated parameters.
  opgraph::Interpreter it(train);
  std::vector<float> want_loss;
  for (uint32_t s = 0; s < steps; ++s) {
    const std::vector<float> xs(x.begin() + s * batch * widths[0], x.begin() + (s + 1) * batch * widths[0]);
    const opgraph::Words lab(ls.begin() + s * batch, ls.begin() + (s + 1) * batch);
    const std::vector<float> l = opgraph::to_floats(it.step({{"x", opgraph::to_words(xs)}, {"labels", lab}})[loss.id]);
    want_loss.insert(want_loss.end(), l.begin(), l.end());
  }
  OpGraph updated;  // the inference graph with the interpreter's parameters
  {
    Value h = updated.input("x_infer", DType::kF32, {2, widths[0]});
    for (size_t l = 0; l + 1 < widths.size(); ++l) {
      const std::string layer = "fc" + std::to_string(l + 1);
      const Value w = updated.parameter(layer + ".w", {widths[l], widths[l + 1]}, it.parameter(params[2 * l]));
      const Value b = updated.parameter(layer + ".b", {widths[l + 1]}, it.parameter(params[2 * l + 1]));
      h = updated.add_bias(updated.matmul(h, w, layer), b, layer);
      if (l + 2 < widths.size()) h = updated.relu(h, layer);
    }
    updated.output("logits", h);
  }
  const std::vector<float> want_logits = testutil::evaluate_output(updated, {{"x_infer", opgraph::to_words(xi)}});
  // With the initial parameters: the updates must show.
  const std::vector<float> moved_logits = testutil::evaluate_output(infer, {{"x_infer", opgraph::to_words(xi)}});

  std::vector<std::vector<float>> runs;
  for (const emu::Mode mode : {emu::Mode::kNative, emu::Mode::kIss}) {
    auto m = machine(e, mode);
    // Loaded twice onto the same device: the second load starts again from the file's
    // weights and zero velocities, over what the first run left in device memory.
    for (int load = 0; load < 2; ++load) {
      SCOPED_TRACE("load " + std::to_string(load));
      runtime::Engine engine(*m, e);
      engine.load();
      std::vector<float> got_loss(steps * batch), got_logits(2 * widths.back());
      engine.connect_stream("x", std::span(x));
      engine.connect_stream("labels", std::span(ls));
      engine.connect_stream("loss", std::span(got_loss));
      engine.connect_stream("x_infer", std::span(xi));
      engine.connect_stream("logits", std::span(got_logits));
      engine.run("train", std::chrono::minutes(5));
      EXPECT_EQ(engine.reports().back().host_bytes, 4u * steps * batch * (widths[0] + 2))
          << "only x, labels and losses";
      engine.run("infer", std::chrono::minutes(5));
      for (size_t i = 0; i < want_loss.size(); ++i)
        EXPECT_NEAR(got_loss[i], want_loss[i], 1e-5 * std::fabs(want_loss[i])) << "loss " << i;
      float changed = 0;
      for (size_t i = 0; i < want_logits.size(); ++i) {
        EXPECT_NEAR(got_logits[i], want_logits[i], 1e-5 * (1 + std::fabs(want_logits[i]))) << "logit " << i;
        changed = std::max(changed, std::fabs(want_logits[i] - moved_logits[i]));
      }
      EXPECT_GT(changed, 1e-3f) << "the steps did not move the logits: the test would not see a lost update";
      // The streamed weight read back from device memory: the interpreter's updated fc1.w.
      const std::vector<float> w1 = engine.read_tensor_as<float>("fc1.w");
      const std::vector<float>& want_w1 = it.parameter(params[0]);
      const std::vector<float>& initial_w1 = train.constant_data(params[0]);
      ASSERT_EQ(w1.size(), want_w1.size());
      float moved = 0;
      for (size_t i = 0; i < w1.size(); ++i) {
        EXPECT_NEAR(w1[i], want_w1[i], 1e-5 * (1 + std::fabs(want_w1[i]))) << "fc1.w element " << i;
        moved = std::max(moved, std::fabs(want_w1[i] - initial_w1[i]));
        if (::testing::Test::HasFailure()) break;
      }
      EXPECT_GT(moved, 1e-4f) << "fc1.w did not move: reading the initial weights back would pass";
      got_loss.insert(got_loss.end(), got_logits.begin(), got_logits.end());
      runs.push_back(got_loss);
    }
  }
  for (size_t r = 1; r < runs.size(); ++r)
    EXPECT_EQ(0, std::memcmp(runs[0].data(), runs[r].data(), runs[0].size() * 4))
        << "run " << r << " differs (ISS and native, each loaded twice)";
}

// The device's refusals: device memory written only in reset and within the target's size,
// read to the tiles only in a host sync and from bytes it holds; the machine stays usable.
TEST(WeightStreaming, DeviceRefusesMisuse) {
  emu::MachineOptions mo;
  mo.target = arch::find_target("tiny");
  emu::Machine m(mo);
  const std::byte four[4] = {};
  EXPECT_NO_THROW(m.dram_write(0, four));
  EXPECT_THROW(m.dram_write((uint64_t{mo.target->device_memory_mib} << 20) - 2, four), device::DeviceError);
  const device::DmaSegment seg{0, arch::kSramBase + 0x4000, 4, 0};
  try {
    m.dram_to_tiles(std::span(&seg, 1));
    ADD_FAILURE() << "dram_to_tiles outside a host sync";
  } catch (const device::DeviceError& e) {
    EXPECT_NE(std::string(e.what()).find("only while the tiles wait in a host sync"), std::string::npos) << e.what();
  }
  device::Device& base = m;
  EXPECT_NO_THROW(base.dram_write(4, four));
  // Read back: only bytes written, within the device memory.
  std::byte got[8];
  EXPECT_NO_THROW(m.dram_read(0, got));
  try {
    m.dram_read(4, got);
    ADD_FAILURE() << "dram_read past what was written";
  } catch (const device::DeviceError& e) {
    EXPECT_NE(std::string(e.what()).find("dram_read: bytes 4..12 were never written (8 bytes"), std::string::npos) << e.what();
  }
  EXPECT_THROW(m.dram_read(~uint64_t{0} - 2, got), device::DeviceError);
}

}  // namespace
}  // namespace tessera
