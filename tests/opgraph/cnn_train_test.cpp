// Training a CNN on the device (models/classifier_train.h): conv, relu, max pool, conv,
// tanh, average pool, flatten, fully connected, softmax cross-entropy, SGD with momentum.
// The device's losses and trained weights against PyTorch's autograd and update
// (torch_cnn_train.py) and against the op graph's interpreter; ISS = native bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <unistd.h>

#include "tessera/arch/tile_map.h"
#include "tessera/emu/machine.h"
#include "tessera/models/classifier_train.h"
#include "tessera/opgraph/eval.h"
#include "tessera/passes/passes.h"
#include "tessera/runtime/engine.h"
#include "tessera/testutil/on_emulator.h"

namespace tessera::testing {
namespace {

using opgraph::DType;
using opgraph::OpGraph;
using opgraph::Value;
namespace fs = std::filesystem;

constexpr uint32_t kSteps = 4, kBatch = 4, kTotal = 10;
constexpr float kLr0 = 0.05f, kMomentum = 0.9f;
const char* const kNames[] = {"c1.w", "c1.b", "c2.w", "c2.b", "fc.w", "fc.b"};
const std::vector<uint32_t> kShapes[] = {{4, 1, 3, 3}, {4}, {6, 4, 3, 3}, {6}, {24, 10}, {10}};

using Weights = std::map<std::string, std::vector<float>>;

Weights seeded_weights(uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-0.4f, 0.4f);
  Weights w;
  for (size_t i = 0; i < 6; ++i) {
    std::vector<float>& v = w[kNames[i]];
    v.resize(graph::element_count(kShapes[i]));
    for (float& f : v) f = u(rng);
  }
  return w;
}

// The model at batch b, weights as constants.
OpGraph model(const Weights& w, uint32_t b) {
  OpGraph og;
  auto c = [&](size_t i) { return og.constant(kNames[i], kShapes[i], w.at(kNames[i])); };
  const Value x = og.input("image", DType::kF32, {b, 1, 10, 10});
  opgraph::Conv2dAttrs pad1;
  pad1.pad_top = pad1.pad_left = pad1.pad_bottom = pad1.pad_right = 1;
  Value h = og.relu(og.conv2d(x, c(0), c(1), pad1, "conv1"), "conv1");
  opgraph::Pool2dAttrs p2{2, 2, 2, 2};
  h = og.max_pool2d(h, p2, "pool1");
  h = og.unary(opgraph::UnaryOp::kTanh, og.conv2d(h, c(2), c(3), {}, "conv2"), 0, 0, "conv2");
  opgraph::Pool2dAttrs a2{2, 2, 1, 1};
  h = og.avg_pool2d(h, a2, "pool2");
  h = og.reshape(h, {b, 24}, "flatten");
  og.output("logits", og.add_bias(og.matmul(h, c(4), "fc"), c(5), "fc"));
  return og;
}

void write(const fs::path& p, const void* data, size_t bytes) {
  std::ofstream f(p, std::ios::binary);
  f.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
}

std::vector<float> read(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::vector<float> v(fs::file_size(p) / 4);
  f.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(v.size() * 4));
  return v;
}

struct Trained {
  std::vector<float> losses;
  Weights params;
};

Trained train_on_device(const exe::Executable& e, emu::Mode mode, std::vector<float> x, std::vector<uint32_t> labels) {
  testutil::OnEmulator loaded(e, mode);
  runtime::Engine& engine = loaded.engine;
  Trained r;
  r.losses.resize(size_t{kSteps} * kBatch);
  engine.connect_stream("x", std::span(x));
  engine.connect_stream("labels", std::span(labels));
  engine.connect_stream("loss", std::span(r.losses));
  engine.run("train", std::chrono::minutes(5));
  for (const char* n : kNames) r.params[n] = engine.read_tensor_as<float>(n);
  return r;
}

void expect_close(const std::vector<float>& got, const std::vector<float>& want, float rel, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  size_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i)
    if (!(std::fabs(got[i] - want[i]) <= rel * std::max(1.0f, std::fabs(want[i]))) && ++bad <= 3)
      ADD_FAILURE() << what << "[" << i << "]: " << got[i] << " vs " << want[i];
  EXPECT_EQ(bad, 0u) << what;
}

TEST(CnnTraining, MatchesPyTorchAndTheInterpreterIssEqualsNative) {
  if (std::system("/usr/bin/python3 -c 'import torch' >/dev/null 2>&1") != 0) GTEST_SKIP() << "no torch";
  const uint32_t seed = 20261202;
  std::printf("seed %u\n", seed);
  const Weights w0 = seeded_weights(seed);
  std::mt19937 rng(seed + 1);
  std::uniform_real_distribution<float> px(0.0f, 1.0f);
  std::vector<float> x(size_t{kSteps} * kBatch * 100);
  for (float& v : x) v = px(rng);
  std::vector<uint32_t> labels(size_t{kSteps} * kBatch);
  for (uint32_t& l : labels) l = rng() % 10;

  // PyTorch.
  const fs::path dir = fs::temp_directory_path() / ("tessera_cnn_train_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  for (const auto& [name, v] : w0) write(dir / (name + ".f32"), v.data(), v.size() * 4);
  write(dir / "x.f32", x.data(), x.size() * 4);
  write(dir / "labels.u32", labels.data(), labels.size() * 4);
  std::ofstream(dir / "hyper.txt") << kSteps << " " << kBatch << " " << kLr0 << " " << kMomentum << " " << kTotal;
  const std::string cmd = "/usr/bin/python3 " TESSERA_SOURCE_DIR "/tests/opgraph/torch_cnn_train.py " + dir.string();
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  const std::vector<float> torch_losses = read(dir / "loss.f32");

  // The interpreter.
  models::ClassifierTrainConfig c;
  c.steps_per_sync = kSteps;
  c.lr0 = kLr0;
  c.momentum = kMomentum;
  c.total_steps = kTotal;
  const OpGraph m = model(w0, kBatch), mi = model(w0, 2);
  const models::ClassifierGraphs graphs = models::build_classifier_graphs(m, mi, c);
  opgraph::Interpreter it(graphs.train);
  std::vector<float> interp_losses;
  for (uint32_t s = 0; s < kSteps; ++s) {
    const std::vector<float> xs(x.begin() + s * kBatch * 100, x.begin() + (s + 1) * kBatch * 100);
    const std::vector<uint32_t> ls(labels.begin() + s * kBatch, labels.begin() + (s + 1) * kBatch);
    const auto v = it.step({{"x", opgraph::to_words(xs)}, {"labels", ls}});
    const std::vector<float> l = opgraph::to_floats(v.at(graphs.loss.id));
    interp_losses.insert(interp_losses.end(), l.begin(), l.end());
  }
  expect_close(interp_losses, torch_losses, 1e-5f, "interpreter losses vs PyTorch");

  // The device.
  const passes::CompileOptions co =
      passes::firmware_options(std::string(TESSERA_TILE_BIN_DIR) + "/runtime/tessera-firmware.elf");
  c.firmware_bytes = co.layout.firmware_end - arch::kSramBase;
  // As planned for this small model; under the big-model rules (layers spread by their
  // weights' share, each parameter updated right after its gradient, conv gradients within
  // what the weights leave); with the pools recomputed for their gradients; and with every
  // memory saving off. Each must give PyTorch's numbers; the savings must save.
  struct Config {
    const char* name;
    bool big, savings;
    std::set<opgraph::OpKind> recompute;
  };
  const Config configs[] = {{"default rules", false, true, {}},
                            {"big-model rules", true, true, {}},
                            {"big-model rules, pools recomputed", true, true,
                             {opgraph::OpKind::kMaxPool2d, opgraph::OpKind::kAvgPool2d}},
                            {"big-model rules, no memory savings", true, false, {}}};
  uint64_t tensor_bytes[4] = {};
  for (size_t k = 0; k < 4; ++k) {
    const Config& cfg = configs[k];
    SCOPED_TRACE(cfg.name);
    c.big_model = cfg.big;
    c.recompute = cfg.recompute;
    c.in_place = c.early_updates = cfg.savings;
    passes::CompileOptions o = co;
    o.liveness = cfg.savings;
    graph::Graph g(*arch::find_target("small"));
    models::build_classifier_training(g, m, mi, c);
    const size_t recomputed = std::count_if(g.compute_sets().begin(), g.compute_sets().end(),
                                            [](const graph::ComputeSetData& s) { return s.name.find(".recompute") != std::string::npos; });
    EXPECT_EQ(recomputed > 0, !cfg.recompute.empty()) << recomputed << " compute sets recompute";
    const exe::Executable e = passes::compile(g, o);
    for (const exe::TileMemory& t : e.memory) tensor_bytes[k] += t.tensors;
    const Trained native = train_on_device(e, emu::Mode::kNative, x, labels);
    expect_close(native.losses, torch_losses, 1e-5f, "device losses vs PyTorch");
    for (const char* n : kNames) {
      expect_close(native.params.at(n), read(dir / (std::string("final_") + n + ".f32")), 1e-5f,
                   std::string("trained ") + n + " vs PyTorch");
      expect_close(native.params.at(n), it.parameter(n), 1e-5f, std::string("trained ") + n + " vs the interpreter");
    }
    const Trained iss = train_on_device(e, emu::Mode::kIss, x, labels);
    EXPECT_EQ(0, std::memcmp(iss.losses.data(), native.losses.data(), native.losses.size() * 4)) << "ISS vs native losses";
    for (const char* n : kNames)
      EXPECT_EQ(0, std::memcmp(iss.params.at(n).data(), native.params.at(n).data(), native.params.at(n).size() * 4))
          << "ISS vs native " << n;
  }
  std::printf("tensor bytes on all tiles: default %llu, big-model %llu, recomputed %llu, no savings %llu\n",
              (unsigned long long)tensor_bytes[0], (unsigned long long)tensor_bytes[1],
              (unsigned long long)tensor_bytes[2], (unsigned long long)tensor_bytes[3]);
  EXPECT_GT(tensor_bytes[3], tensor_bytes[1]) << "the memory savings save nothing";
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tessera::testing
