// Autodiff over the op graph: the gradients of a 3-layer MLP's mean cross-entropy, built by
// the gradient rules and run by the reference interpreter, against PyTorch's autograd on the
// same weights and batch; and the errors of the pass.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include <unistd.h>

#include "tessera/opgraph/autodiff.h"
#include "tessera/opgraph/eval.h"

namespace tessera::opgraph {
namespace {

namespace fs = std::filesystem;

struct Mlp {
  OpGraph og;
  Value x, labels, logits, loss;
  std::vector<Value> params;
  std::vector<std::string> names;
  std::vector<std::vector<uint32_t>> shapes;
};

// in -> h1 -> h2 -> classes, ReLU between, weights uniform in +-1/sqrt(fan_in) from `rng`.
Mlp build_mlp(uint32_t m, std::vector<uint32_t> widths, std::mt19937& rng) {
  Mlp n;
  n.x = n.og.input("x", DType::kF32, {m, widths[0]});
  n.labels = n.og.input("labels", DType::kU32, {m});
  Value h = n.x;
  for (size_t l = 0; l + 1 < widths.size(); ++l) {
    const uint32_t in = widths[l], out = widths[l + 1];
    std::uniform_real_distribution<float> u(-1.0f / std::sqrt(float(in)), 1.0f / std::sqrt(float(in)));
    std::vector<float> w(size_t(in) * out), b(out);
    for (float& v : w) v = u(rng);
    for (float& v : b) v = u(rng);
    const std::string layer = "fc" + std::to_string(l + 1);
    const Value pw = n.og.parameter(layer + ".w", {in, out}, w), pb = n.og.parameter(layer + ".b", {out}, b);
    n.params.insert(n.params.end(), {pw, pb});
    n.names.insert(n.names.end(), {"w" + std::to_string(l + 1), "b" + std::to_string(l + 1)});
    n.shapes.insert(n.shapes.end(), {{in, out}, {out}});
    h = n.og.add_bias(n.og.matmul(h, pw, layer), pb, layer);
    if (l + 2 < widths.size()) h = n.og.relu(h, layer);
  }
  n.logits = h;
  n.loss = n.og.softmax_xent(h, n.labels, "loss");
  return n;
}

template <typename T>
void write_raw(const fs::path& p, const std::vector<T>& v) {
  std::ofstream f(p, std::ios::binary);
  f.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(T)));
}

std::vector<float> read_f32(const fs::path& p) {
  std::ifstream f(p, std::ios::binary | std::ios::ate);
  const auto bytes = static_cast<size_t>(f.tellg());
  std::vector<float> out(bytes / sizeof(float));
  f.seekg(0);
  f.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(out.size() * sizeof(float)));
  return out;
}

TEST(Autodiff, MlpGradientsMatchPyTorch) {
  if (std::system("/usr/bin/python3 -c 'import torch' >/dev/null 2>&1") != 0) GTEST_SKIP() << "no torch";
  const uint32_t seed = 20261130, m = 8;
  std::printf("seed %u\n", seed);
  std::mt19937 rng(seed);
  Mlp n = build_mlp(m, {24, 16, 12, 10}, rng);
  const std::vector<Value> grads = gradients(n.og, n.loss, n.params);

  std::uniform_real_distribution<float> px(0.0f, 1.0f);
  std::vector<float> x(size_t(m) * 24);
  for (float& v : x) v = px(rng);
  Words labels(m);
  for (uint32_t& l : labels) l = rng() % 10;
  const std::vector<Words> vals = evaluate(n.og, {{"x", to_words(x)}, {"labels", labels}});

  const fs::path dir = fs::temp_directory_path() / ("tessera-autodiff-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream shapes(dir / "shapes.txt");
  shapes << "x " << m << " 24\nlabels " << m << "\n";
  write_raw(dir / "x.f32", x);
  write_raw(dir / "labels.u32", labels);
  for (size_t i = 0; i < n.params.size(); ++i) {
    shapes << n.names[i];
    for (uint32_t d : n.shapes[i]) shapes << " " << d;
    shapes << "\n";
    write_raw(dir / (n.names[i] + ".f32"), n.og.constant_data(n.params[i]));
  }
  shapes.close();
  const std::string cmd = "/usr/bin/python3 " TESSERA_SOURCE_DIR "/tests/opgraph/torch_grads.py " + dir.string();
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;

  // The loss: the mean of the per-row losses.
  const std::vector<float> rows = to_floats(vals[n.loss.id]);
  double mean = 0;
  for (float r : rows) mean += r;
  mean /= m;
  const float torch_loss = read_f32(dir / "loss.f32").at(0);
  EXPECT_NEAR(mean, torch_loss, 1e-5 * std::fabs(torch_loss));

  for (size_t i = 0; i < n.params.size(); ++i) {
    const std::vector<float> mine = to_floats(vals[grads[i].id]);
    const std::vector<float> ref = read_f32(dir / ("g_" + n.names[i] + ".f32"));
    ASSERT_EQ(mine.size(), ref.size()) << n.names[i];
    float scale = 0;
    for (float r : ref) scale = std::fmax(scale, std::fabs(r));
    ASSERT_GT(scale, 0.0f) << n.names[i];
    for (size_t j = 0; j < ref.size(); ++j)
      ASSERT_NEAR(mine[j], ref[j], 1e-5f * scale) << "d loss / d " << n.names[i] << "[" << j << "]";
  }
  fs::remove_all(dir);
}

TEST(Autodiff, GradientGraphDump) {
  std::mt19937 rng(1);
  Mlp n = build_mlp(4, {3, 2, 2}, rng);
  gradients(n.og, n.loss, n.params);
  const std::string d = dump(n.og);
  // The loss, then the backward ops the rules made, last layer first; x needs no gradient.
  const std::string tail =
      "%11 = softmax_xent %10, %1 : f32[4]  # loss\n"
      "%12 = softmax_xent_grad %10, %1, scale 0.25 : f32[4,2]  # loss.grad\n"
      "%13 = bias_grad %12 : f32[2]  # fc2.grad\n"
      "%14 = matmul_nt %12, %7 : f32[4,2]  # fc2.grad\n"
      "%15 = matmul_tn %6, %12 : f32[2,2]  # fc2.grad\n"
      "%16 = relu_grad %14, %6 : f32[4,2]  # fc1.grad\n"
      "%17 = bias_grad %16 : f32[2]  # fc1.grad\n"
      "%18 = matmul_tn %0, %16 : f32[3,2]  # fc1.grad\n";
  ASSERT_GE(d.size(), tail.size()) << d;
  EXPECT_EQ(d.substr(d.size() - tail.size()), tail) << d;
}

TEST(Autodiff, ErrorsNameWhatIsWrong) {
  std::mt19937 rng(2);
  Mlp n = build_mlp(4, {3, 2, 2}, rng);
  auto message = [&](auto f) {
    try {
      f();
    } catch (const OpGraphError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message([&] { gradients(n.og, n.logits, n.params); }),
            "gradients: the loss %10 is a add_bias, not a softmax_xent");
  EXPECT_EQ(message([&] { gradients(n.og, n.loss, {n.x}); }), "gradients: %0 is a input, not a parameter");
  const Value unused = n.og.parameter("unused", {2}, {1, 2});
  EXPECT_EQ(message([&] { gradients(n.og, n.loss, {unused}); }),
            "gradients: parameter 'unused' does not reach the loss");
  // An op on the way without a rule.
  OpGraph og;
  const Value x = og.input("x", DType::kF32, {2, 2});
  const Value w = og.parameter("w", {2, 2}, {1, 0, 0, 1});
  const Value s = og.softmax(og.matmul(x, w, "fc"), "sm");
  const Value loss = og.softmax_xent(s, og.input("labels", DType::kU32, {2}));
  EXPECT_EQ(message([&] { gradients(og, loss, {w}); }), "gradients: softmax 'sm' has no gradient rule");
}

}  // namespace
}  // namespace tessera::opgraph
