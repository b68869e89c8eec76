// The op graph: every op checks shapes and dtypes and names itself in the error; the dump;
// an MLP lowered from the op graph gives the same bits as the built-in model (both lower to
// the same ops); softmax within a few ulps of a double reference.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <fstream>
#include <iterator>
#include <random>

#include "tessera/arch/tile_map.h"
#include "tessera/emu/machine.h"
#include "tessera/models/mlp.h"
#include "tessera/opgraph/lower.h"
#include "tessera/opgraph/opgraph.h"
#include "tessera/passes/passes.h"
#include "tessera/runtime/engine.h"

namespace tessera::testing {
namespace {

using opgraph::DType;
using opgraph::OpGraph;
using opgraph::OpGraphError;
using opgraph::Value;

std::vector<float> random_floats(size_t n, uint32_t seed, float scale = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-scale, scale);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

// The message of what `f` throws as OpGraphError ("" if nothing).
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const OpGraphError& e) {
    return e.what();
  }
  return "";
}

TEST(OpGraph, ShapeAndDtypeErrorsNameTheOpAndShapes) {
  OpGraph g;
  const Value x = g.input("x", DType::kF32, {40, 784});
  const Value w = g.constant("w", {100, 128}, std::vector<float>(100 * 128));
  EXPECT_EQ(error_of([&] { g.matmul(x, w, "fc1"); }), "matmul 'fc1': [40,784] x [100,128]: inner dimensions differ");
  const Value w1 = g.constant("w1", {784, 128}, std::vector<float>(784 * 128));
  const Value h = g.matmul(x, w1, "fc1");
  EXPECT_EQ(g.info(h).shape, (std::vector<uint32_t>{40, 128}));
  const Value b = g.constant("b", {100}, std::vector<float>(100));
  EXPECT_EQ(error_of([&] { g.add_bias(h, b, "fc1"); }),
            "add_bias 'fc1': [40,128] + [100]: the bias must be a vector as long as a row");
  const Value v = g.input("v", DType::kF32, {128});
  EXPECT_EQ(error_of([&] { g.add_bias(h, v); }), "add_bias: [40,128] + [128]: the bias must be a constant or a parameter");
  const Value labels = g.input("labels", DType::kU32, {40, 10});
  EXPECT_EQ(error_of([&] { g.relu(labels, "act"); }), "relu 'act': u32[40,10]: needs f32");
  EXPECT_EQ(error_of([&] { g.argmax(labels); }), "argmax: u32[40,10]: needs a f32 matrix");
  EXPECT_EQ(error_of([&] { g.softmax(v, "sm"); }), "softmax 'sm': f32[128]: needs a f32 matrix");
  EXPECT_EQ(error_of([&] { g.matmul(labels, w1); }),
            "matmul: [40,10] x [784,128]: needs f32 operands, got u32[40,10] x f32[784,128]");
  EXPECT_EQ(error_of([&] { g.matmul(v, w1, "m"); }), "matmul 'm': [128] x [784,128]: needs two matrices");
  EXPECT_EQ(error_of([&] { g.constant("c", {2, 3}, {1, 2, 3}); }),
            "constant 'c': 3 values for shape [2,3] (6 elements)");
  EXPECT_EQ(error_of([&] { g.input("x", DType::kF32, {1}); }),
            "input 'x': the name is already taken by input 'x'");
  EXPECT_EQ(error_of([&] { g.relu(Value{999}, "r"); }), "relu 'r': operand %999 is not a value of this op graph");
  g.output("h", h);
  EXPECT_EQ(error_of([&] { g.output("h", x); }), "output 'h': the name is already taken by output 'h'");
  EXPECT_EQ(g.info(g.argmax(h)).dtype, DType::kU32);
}

// 784 -> hidden (relu) -> 10, as models::build_mlp_inference builds it, plus argmax.
OpGraph mlp_graph(const models::MlpWeights& w, uint32_t batch, bool softmax = false) {
  OpGraph g;
  Value act = g.input("x", DType::kF32, {batch, w.sizes[0]});
  for (uint32_t l = 0; l < w.w.size(); ++l) {
    const std::string id = "layer" + std::to_string(l + 1);
    const Value wt = g.constant(id + ".w", {w.sizes[l], w.sizes[l + 1]}, w.w[l]);
    const Value b = g.constant(id + ".b", {w.sizes[l + 1]}, w.b[l]);
    act = g.add_bias(g.matmul(act, wt, id), b, id);
    if (l + 1 < w.w.size()) act = g.relu(act, id);
  }
  const Value preds = g.argmax(act, "argmax");
  g.output("logits", act);
  g.output("preds", preds);
  if (softmax) g.output("probs", g.softmax(act, "probs"));
  return g;
}

models::MlpWeights random_mlp(uint32_t hidden) {
  models::MlpWeights w;
  w.sizes = {784, hidden, 10};
  for (uint32_t l = 0; l < 2; ++l) {
    w.w.push_back(random_floats(size_t{w.sizes[l]} * w.sizes[l + 1], 10 + l, 0.1f));
    w.b.push_back(random_floats(w.sizes[l + 1], 20 + l, 0.5f));
  }
  return w;
}

TEST(OpGraph, DumpOfASmallMlp) {
  models::MlpWeights w;
  w.sizes = {784, 32, 10};
  w.w = {std::vector<float>(784 * 32), std::vector<float>(32 * 10)};
  w.b = {std::vector<float>(32), std::vector<float>(10)};
  EXPECT_EQ(opgraph::dump(mlp_graph(w, 8, true)),
            "%0 = input \"x\" : f32[8,784]\n"
            "%1 = constant \"layer1.w\" : f32[784,32]\n"
            "%2 = constant \"layer1.b\" : f32[32]\n"
            "%3 = matmul %0, %1 : f32[8,32]  # layer1\n"
            "%4 = add_bias %3, %2 : f32[8,32]  # layer1\n"
            "%5 = relu %4 : f32[8,32]  # layer1\n"
            "%6 = constant \"layer2.w\" : f32[32,10]\n"
            "%7 = constant \"layer2.b\" : f32[10]\n"
            "%8 = matmul %5, %6 : f32[8,10]  # layer2\n"
            "%9 = add_bias %8, %7 : f32[8,10]  # layer2\n"
            "%10 = argmax %9 : u32[8]  # argmax\n"
            "output \"logits\", %9\n"
            "output \"preds\", %10\n"
            "%11 = softmax %9 : f32[8,10]  # probs\n"
            "output \"probs\", %11\n");
}

passes::CompileOptions compile_options() {
  return passes::firmware_options(std::string(TESSERA_TILE_BIN_DIR) + "/runtime/tessera-firmware.elf");
}

struct Outputs {
  std::vector<float> logits, probs;
  std::vector<uint32_t> preds;
};

// Runs "infer" on `images` images of x (784 f32 each), natively on the emulator.
Outputs run(const exe::Executable& e, const std::vector<float>& x, uint32_t images, bool probs) {
  emu::MachineOptions mo;
  mo.target = arch::find_target(e.target);
  mo.mode = emu::Mode::kNative;
  emu::Machine m(mo);
  m.load_firmware(exe::parse_elf(e.firmware, "firmware"));
  runtime::Engine engine(m, e);
  engine.load();
  std::vector<float> in(x);
  Outputs out{std::vector<float>(size_t{images} * 10), std::vector<float>(probs ? size_t{images} * 10 : 0),
              std::vector<uint32_t>(images)};
  engine.connect_stream("x", std::span(in));
  engine.connect_stream("logits", std::span(out.logits));
  engine.connect_stream("preds", std::span(out.preds));
  if (probs) engine.connect_stream("probs", std::span(out.probs));
  engine.run("infer", std::chrono::minutes(2));
  return out;
}

constexpr uint32_t kBatch = 8, kBatches = 2;

TEST(OpGraphLowering, MlpGivesTheBitsOfTheBuiltInModel) {
  const models::MlpWeights w = random_mlp(32);
  const std::vector<float> x = random_floats(size_t{kBatch} * kBatches * 784, 7);
  const passes::CompileOptions co = compile_options();
  const uint32_t fw_bytes = co.layout.firmware_end - arch::kSramBase;

  graph::Graph gm(*arch::find_target("small"));
  models::build_mlp_inference(gm, w, {kBatch, kBatches, fw_bytes});
  const Outputs want = run(passes::compile(gm, co), x, kBatch * kBatches, false);

  graph::Graph go(*arch::find_target("small"));
  opgraph::lower(mlp_graph(w, kBatch), go, {kBatches, fw_bytes});
  const Outputs got = run(passes::compile(go, co), x, kBatch * kBatches, false);

  for (size_t i = 0; i < want.logits.size(); ++i)
    ASSERT_EQ(std::bit_cast<uint32_t>(got.logits[i]), std::bit_cast<uint32_t>(want.logits[i])) << "logit " << i;
  EXPECT_EQ(got.preds, want.preds);
  // And the logits are the MLP's (not, say, zeros in both).
  double max_diff = 0;
  for (uint32_t i = 0; i < kBatch * kBatches; ++i)
    for (uint32_t c = 0; c < 10; ++c) {
      double h[32], logit = w.b[1][c];
      for (uint32_t j = 0; j < 32; ++j) {
        h[j] = w.b[0][j];
        for (uint32_t k = 0; k < 784; ++k) h[j] += double{x[i * 784 + k]} * w.w[0][k * 32 + j];
        h[j] = std::max(h[j], 0.0);
        logit += h[j] * w.w[1][j * 10 + c];
      }
      max_diff = std::max(max_diff, std::fabs(logit - got.logits[i * 10 + c]));
    }
  EXPECT_LT(max_diff, 1e-4);
}

// Distance in ulps between two finite floats of the same sign.
int64_t ulps(float a, float b) {
  return std::abs(int64_t{std::bit_cast<int32_t>(a)} - int64_t{std::bit_cast<int32_t>(b)});
}

TEST(OpGraphLowering, SoftmaxIsWithinAFewUlpsOfDouble) {
  const models::MlpWeights w = random_mlp(32);
  const std::vector<float> x = random_floats(size_t{kBatch} * kBatches * 784, 8);
  const passes::CompileOptions co = compile_options();
  graph::Graph g(*arch::find_target("small"));
  // The logits feed argmax, an output and softmax: softmax works on a copy.
  opgraph::lower(mlp_graph(w, kBatch, true), g, {kBatches, co.layout.firmware_end - arch::kSramBase});
  const Outputs got = run(passes::compile(g, co), x, kBatch * kBatches, true);
  int64_t worst = 0;
  for (uint32_t i = 0; i < kBatch * kBatches; ++i) {
    const float* z = &got.logits[i * 10];
    double m = z[0], sum = 0;
    for (uint32_t c = 1; c < 10; ++c) m = std::max(m, double{z[c]});
    for (uint32_t c = 0; c < 10; ++c) sum += std::exp(z[c] - m);
    uint32_t best = 0;
    for (uint32_t c = 0; c < 10; ++c) {
      const float want = static_cast<float>(std::exp(z[c] - m) / sum);
      worst = std::max(worst, ulps(got.probs[i * 10 + c], want));
      if (z[c] > z[best]) best = c;
    }
    EXPECT_EQ(got.preds[i], best) << "row " << i;
  }
  std::printf("softmax: worst %lld ulps from double\n", static_cast<long long>(worst));
  EXPECT_LE(worst, 4);
}

TEST(OpGraphLowering, InPlaceOpsOnConstantsWorkOnACopy) {
  // relu of a constant must not overwrite the weights between repeats.
  OpGraph og;
  const Value x = og.input("x", DType::kF32, {4, 8});
  const Value c = og.constant("c", {8, 8}, random_floats(64, 3));
  og.output("y", og.matmul(x, og.relu(c, "r"), "m"));
  graph::Graph g(*arch::find_target("small"));
  EXPECT_NO_THROW(opgraph::lower(og, g, {2, 16384}));
  EXPECT_NO_THROW(graph::validate(g));
  EXPECT_NE(graph::dump(g).find("r.relu.in"), std::string::npos) << "relu should work on a copy of the constant";
}

}  // namespace
}  // namespace tessera::testing
