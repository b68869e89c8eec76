// Training lowered onto tiles: an MLP's SGD steps (forward, autodiff gradients, sgd_momentum
// updates with the lr_linear schedule) compiled into program "train" and run on the
// emulator in ISS and native mode, against the op graph's reference Interpreter; the
// update op's dump, errors and interpreter arithmetic.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <random>

#include "tessera/arch/tile_map.h"
#include "tessera/emu/machine.h"
#include "tessera/opgraph/autodiff.h"
#include "tessera/opgraph/eval.h"
#include "tessera/opgraph/lower.h"
#include "tessera/opgraph/opgraph.h"
#include "tessera/passes/passes.h"
#include "tessera/runtime/engine.h"
#include "tessera/testutil/on_emulator.h"

namespace tessera::testing {
namespace {

using opgraph::DType;
using opgraph::OpGraph;
using opgraph::OpGraphError;
using opgraph::Value;
using opgraph::Words;

template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const OpGraphError& e) {
    return e.what();
  }
  return "no error";
}

TEST(TrainOps, SgdMomentumDumpAndErrors) {
  OpGraph g;
  const Value x = g.input("x", DType::kF32, {4, 3});
  const Value w = g.parameter("w", {3, 2}, std::vector<float>(6, 0.5f));
  const Value c = g.constant("c", {3, 2}, std::vector<float>(6));
  const Value gw = g.input("gw", DType::kF32, {3, 2});
  g.output("y", g.matmul(x, w, "fc"));
  g.sgd_momentum(w, gw, 0.9f, 0.05f, 100, "sgd");
  EXPECT_EQ(opgraph::dump(g),
            "%0 = input \"x\" : f32[4,3]\n"
            "%1 = parameter \"w\" : f32[3,2]\n"
            "%2 = constant \"c\" : f32[3,2]\n"
            "%3 = input \"gw\" : f32[3,2]\n"
            "%4 = matmul %0, %1 : f32[4,2]  # fc\n"
            "output \"y\", %4\n"
            "sgd_momentum %1, %3, momentum 0.9, lr0 0.05, steps 100  # sgd\n");
  EXPECT_EQ(error_of([&] { g.sgd_momentum(w, gw, 0.9f, 0.05f, 100); }),
            "sgd_momentum: parameter 'w' already has an update");
  EXPECT_EQ(error_of([&] { g.sgd_momentum(c, gw, 0.9f, 0.05f, 100, "s"); }),
            "sgd_momentum 's': %2 is a constant, not a parameter");
  const Value b = g.parameter("b", {2}, {0, 0});
  EXPECT_EQ(error_of([&] { g.sgd_momentum(b, gw, 0.9f, 0.05f, 100); }),
            "sgd_momentum: gradient f32[3,2] for parameter 'b' f32[2]: needs f32 of the parameter's shape");
  const Value lb = g.input("lb", DType::kU32, {2});
  EXPECT_EQ(error_of([&] { g.sgd_momentum(b, lb, 0.9f, 0.05f, 100); }),
            "sgd_momentum: gradient u32[2] for parameter 'b' f32[2]: needs f32 of the parameter's shape");
  EXPECT_EQ(error_of([&] { g.sgd_momentum(b, g.input("gb", DType::kF32, {2}), 0.9f, 0.05f, 0); }),
            "sgd_momentum: total_steps must be at least 1");
  EXPECT_EQ(error_of([&] { g.sgd_momentum(b, Value{99}, 0.9f, 0.05f, 1); }),
            "sgd_momentum: operand %99 is not a value of this op graph");
  // Updates need a training lowering.
  graph::Graph gg(*arch::find_target("small"));
  EXPECT_EQ(error_of([&] { opgraph::lower(g, gg, {1, 16384}); }),
            "sgd_momentum 'sgd': updates parameters: lower it with LowerOptions::train");
}

TEST(TrainOps, InterpreterCarriesParametersVelocitiesAndTheSchedule) {
  // lr_linear's arithmetic: correctly rounded lr0 * (total - t) / total, 0 from total on.
  EXPECT_EQ(opgraph::lr_linear(0.1f, 0, 4), 0.1f);
  EXPECT_EQ(opgraph::lr_linear(0.1f, 2, 4), static_cast<float>(0.1f * 2.0 / 4.0));
  EXPECT_EQ(opgraph::lr_linear(0.1f, 1, 3), static_cast<float>(double{0.1f} * 2.0 / 3.0));
  EXPECT_EQ(opgraph::lr_linear(0.1f, 4, 4), 0.0f);
  EXPECT_EQ(opgraph::lr_linear(0.1f, 9, 4), 0.0f);

  // A parameter updated by a gradient fed as an input, checked by hand.
  OpGraph g;
  const Value w = g.parameter("w", {2}, {1.0f, -2.0f});
  const Value gw = g.input("g", DType::kF32, {2});
  g.output("w_now", w);
  g.sgd_momentum(w, gw, 0.5f, 0.1f, 4);
  opgraph::Interpreter it(g);
  float v0 = 0, v1 = 0, w0 = 1.0f, w1 = -2.0f;
  const std::vector<std::vector<float>> grads = {{1.0f, 3.0f}, {-0.25f, 0.5f}, {2.0f, 2.0f}, {1.0f, 1.0f}, {1.0f, 1.0f}};
  for (uint32_t t = 0; t < grads.size(); ++t) {
    const std::vector<Words> vals = it.step({{"g", opgraph::to_words(grads[t])}});
    EXPECT_EQ(opgraph::to_floats(vals[w.id]), (std::vector<float>{w0, w1})) << "the step reads w before updating";
    const float lr = opgraph::lr_linear(0.1f, t, 4);
    v0 = v0 * 0.5f + grads[t][0];
    v1 = v1 * 0.5f + grads[t][1];
    w0 = std::fmaf(v0, -lr, w0);
    w1 = std::fmaf(v1, -lr, w1);
    EXPECT_EQ(it.parameter(w), (std::vector<float>{w0, w1})) << "step " << t;
    EXPECT_EQ(it.velocity(w), (std::vector<float>{v0, v1})) << "step " << t;
  }
  EXPECT_EQ(it.steps(), grads.size());
  EXPECT_EQ(it.parameter("w"), it.parameter(w));
  // The last step (t = 4 >= total) does not move w.
  EXPECT_EQ(error_of([&] { it.parameter("nope"); }), "Interpreter: no parameter 'nope'");
  // evaluate ignores updates and reads the initial values.
  EXPECT_EQ(opgraph::to_floats(opgraph::evaluate(g, {{"g", opgraph::to_words(grads[0])}})[w.id]),
            (std::vector<float>{1.0f, -2.0f}));
}

// ---- the MLP trained on the emulator

constexpr uint32_t kBatch = 8, kSteps = 3, kTotal = 4;
constexpr float kMomentum = 0.9f, kLr0 = 0.1f;
const std::vector<uint32_t> kWidths = {24, 16, 12, 10};

struct Mlp {
  OpGraph og;
  Value loss;
  std::vector<Value> params;
  std::vector<std::string> names;
};

// in -> 16 -> 12 -> 10 (relu between), weights uniform in +-1/sqrt(fan_in), softmax
// cross-entropy, autodiff gradients of the mean loss, one sgd_momentum per parameter.
Mlp build_mlp(uint32_t seed) {
  std::mt19937 rng(seed);
  Mlp n;
  const Value x = n.og.input("x", DType::kF32, {kBatch, kWidths[0]});
  const Value labels = n.og.input("labels", DType::kU32, {kBatch});
  Value h = x;
  for (size_t l = 0; l + 1 < kWidths.size(); ++l) {
    const uint32_t in = kWidths[l], out = kWidths[l + 1];
    std::uniform_real_distribution<float> u(-1.0f / std::sqrt(float(in)), 1.0f / std::sqrt(float(in)));
    std::vector<float> w(size_t(in) * out), b(out);
    for (float& v : w) v = u(rng);
    for (float& v : b) v = u(rng);
    const std::string layer = "fc" + std::to_string(l + 1);
    const Value pw = n.og.parameter(layer + ".w", {in, out}, w), pb = n.og.parameter(layer + ".b", {out}, b);
    n.params.insert(n.params.end(), {pw, pb});
    n.names.insert(n.names.end(), {layer + ".w", layer + ".b"});
    h = n.og.add_bias(n.og.matmul(h, pw, layer), pb, layer);
    if (l + 2 < kWidths.size()) h = n.og.relu(h, layer);
  }
  n.loss = n.og.softmax_xent(h, labels, "loss");
  n.og.output("loss", n.loss);
  const std::vector<Value> grads = opgraph::gradients(n.og, n.loss, n.params);
  for (size_t i = 0; i < n.params.size(); ++i) n.og.sgd_momentum(n.params[i], grads[i], kMomentum, kLr0, kTotal, "sgd");
  return n;
}

passes::CompileOptions compile_options() {
  return passes::firmware_options(std::string(TESSERA_TILE_BIN_DIR) + "/runtime/tessera-firmware.elf");
}

struct Trained {
  std::vector<float> losses;                   // kSteps x kBatch
  std::vector<std::vector<float>> params, velocities;  // final, in Mlp::names order
};

Trained train_on_device(const exe::Executable& e, const Mlp& n, emu::Mode mode, std::vector<float> x,
                        std::vector<uint32_t> labels) {
  testutil::OnEmulator loaded(e, mode);
  runtime::Engine& engine = loaded.engine;
  Trained t;
  t.losses.assign(size_t{kSteps} * kBatch, 0.0f);
  engine.connect_stream("x", std::span(x));
  engine.connect_stream("labels", std::span(labels));
  engine.connect_stream("loss", std::span(t.losses));
  engine.run("train", std::chrono::minutes(5));
  const runtime::RunReport& r = engine.reports().back();
  std::printf("%s: %u supersteps, %u host syncs, %.3f s\n", mode == emu::Mode::kIss ? "ISS" : "native", r.supersteps,
              r.host_syncs, r.wall_seconds);
  for (const std::string& name : n.names) {
    t.params.push_back(engine.read_tensor_as<float>(name));
    t.velocities.push_back(engine.read_tensor_as<float>(name + ".velocity"));
  }
  return t;
}

std::vector<uint32_t> bits(const std::vector<float>& v) {
  std::vector<uint32_t> b;
  for (float f : v) b.push_back(std::bit_cast<uint32_t>(f));
  return b;
}

float max_abs(const std::vector<float>& v) {
  float m = 0;
  for (float f : v) m = std::fmax(m, std::fabs(f));
  return m;
}

TEST(TrainLowering, MlpStepsMatchTheInterpreterInIssAndNative) {
  const uint32_t seed = 20261201;
  std::printf("seed %u\n", seed);
  const Mlp n = build_mlp(seed);
  std::mt19937 rng(seed + 1);
  std::uniform_real_distribution<float> px(0.0f, 1.0f);
  std::vector<float> x(size_t{kSteps} * kBatch * kWidths[0]);
  for (float& v : x) v = px(rng);
  std::vector<uint32_t> labels(size_t{kSteps} * kBatch);
  for (uint32_t& l : labels) l = rng() % kWidths.back();

  const passes::CompileOptions co = compile_options();
  graph::Graph g(*arch::find_target("small"));
  opgraph::LowerOptions lo;
  lo.batches = kSteps;
  lo.firmware_bytes = co.layout.firmware_end - arch::kSramBase;
  lo.train = true;
  opgraph::lower(n.og, g, lo);
  ASSERT_EQ(g.programs().size(), 1u);
  EXPECT_EQ(g.programs()[0].first, "train");
  const exe::Executable e = passes::compile(g, co);
  // Parameters and the optimizer's state are persistent (loaded once, kept across steps).
  for (const exe::Tensor& t : e.tensors)
    for (const std::string& name : n.names)
      if (t.name == name || t.name == name + ".velocity") {
        EXPECT_TRUE(t.persistent) << t.name;
      }

  const Trained native = train_on_device(e, n, emu::Mode::kNative, x, labels);
  const Trained iss = train_on_device(e, n, emu::Mode::kIss, x, labels);

  // (a) ISS and native: the same bits.
  EXPECT_EQ(bits(iss.losses), bits(native.losses));
  for (size_t i = 0; i < n.names.size(); ++i) {
    EXPECT_EQ(bits(iss.params[i]), bits(native.params[i])) << n.names[i];
    EXPECT_EQ(bits(iss.velocities[i]), bits(native.velocities[i])) << n.names[i];
  }

  // (b) The reference interpreter, step by step on the same batches. Not bit-equal: the
  // device's matmuls are fmaf chains and its exp/log the firmware's, the interpreter's
  // plain float sums and <cmath>; so within 1e-5 of the largest magnitude.
  opgraph::Interpreter it(n.og);
  double worst = 0;
  for (uint32_t s = 0; s < kSteps; ++s) {
    const std::vector<float> xs(x.begin() + size_t{s} * kBatch * kWidths[0],
                                x.begin() + size_t{s + 1} * kBatch * kWidths[0]);
    const Words ls(labels.begin() + size_t{s} * kBatch, labels.begin() + size_t{s + 1} * kBatch);
    const std::vector<float> want = opgraph::to_floats(it.step({{"x", opgraph::to_words(xs)}, {"labels", ls}})[n.loss.id]);
    const float scale = max_abs(want);
    double mean = 0;
    for (uint32_t r = 0; r < kBatch; ++r) {
      const float got = native.losses[size_t{s} * kBatch + r];
      mean += got / kBatch;
      worst = std::max(worst, std::fabs(double{got} - want[r]) / scale);
      EXPECT_NEAR(got, want[r], 1e-5f * scale) << "step " << s << " row " << r;
    }
    std::printf("step %u: mean loss %.6f\n", s, mean);
  }
  for (size_t i = 0; i < n.names.size(); ++i) {
    const std::vector<float>& want = it.parameter(n.params[i]);
    const std::vector<float>& initial = n.og.constant_data(n.params[i]);
    const float scale = max_abs(want);
    ASSERT_EQ(native.params[i].size(), want.size()) << n.names[i];
    size_t moved = 0;
    for (size_t j = 0; j < want.size(); ++j) {
      worst = std::max(worst, std::fabs(double{native.params[i][j]} - want[j]) / scale);
      EXPECT_NEAR(native.params[i][j], want[j], 1e-5f * scale) << n.names[i] << "[" << j << "]";
      moved += std::fabs(want[j] - initial[j]) > 1e-4f * scale;
    }
    EXPECT_GT(moved, want.size() / 2) << n.names[i] << ": training should move most weights";
    const std::vector<float>& vwant = it.velocity(n.params[i]);
    const float vscale = max_abs(vwant);
    for (size_t j = 0; j < vwant.size(); ++j)
      EXPECT_NEAR(native.velocities[i][j], vwant[j], 1e-4f * vscale) << n.names[i] << ".velocity[" << j << "]";
  }
  std::printf("worst difference from the interpreter: %.3g of the largest magnitude\n", worst);
}

TEST(TrainLowering, SharedWeightAndAddMatchTheInterpreter) {
  // w used by two matmuls (its gradient is an add of two matmul_tn), a forward add (its
  // gradient feeds both branches), batch 20 (rows spread unevenly), the logits also an
  // output (read before the update).
  const uint32_t m = 20, d = 12, steps = 2;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-0.3f, 0.3f);
  auto rnd = [&](size_t k) {
    std::vector<float> v(k);
    for (float& f : v) f = u(rng);
    return v;
  };
  OpGraph og;
  const Value x = og.input("x", DType::kF32, {m, d});
  const Value labels = og.input("labels", DType::kU32, {m});
  const Value w = og.parameter("w", {d, d}, rnd(d * d)), w2 = og.parameter("w2", {d, d}, rnd(d * d));
  const Value b = og.parameter("b", {d}, rnd(d));
  const Value h = og.relu(og.add_bias(og.matmul(x, w, "l1"), b, "l1"), "l1");
  const Value logits = og.add(og.matmul(h, w, "l2"), og.matmul(x, w2, "skip"), "sum");
  const Value loss = og.softmax_xent(logits, labels, "loss");
  og.output("loss", loss);
  og.output("logits", logits);
  const std::vector<Value> params = {w, w2, b};
  const std::vector<Value> grads = opgraph::gradients(og, loss, params);
  ASSERT_EQ(og.producer(grads[0]).kind, opgraph::OpKind::kAdd);
  for (size_t i = 0; i < params.size(); ++i) og.sgd_momentum(params[i], grads[i], 0.5f, 0.2f, 10);

  std::vector<float> xs = rnd(size_t{steps} * m * d);
  std::vector<uint32_t> ls(size_t{steps} * m);
  for (uint32_t& l : ls) l = rng() % d;
  const passes::CompileOptions co = compile_options();
  graph::Graph g(*arch::find_target("small"));
  opgraph::LowerOptions lo;
  lo.batches = steps;
  lo.firmware_bytes = co.layout.firmware_end - arch::kSramBase;
  lo.train = true;
  opgraph::lower(og, g, lo);
  const exe::Executable e = passes::compile(g, co);

  std::vector<std::vector<float>> final_native;
  std::vector<float> loss_native, logits_native;
  for (emu::Mode mode : {emu::Mode::kNative, emu::Mode::kIss}) {
    testutil::OnEmulator loaded(e, mode);
    runtime::Engine& engine = loaded.engine;
    std::vector<float> x_in = xs, loss_out(size_t{steps} * m), logits_out(size_t{steps} * m * d);
    std::vector<uint32_t> l_in = ls;
    engine.connect_stream("x", std::span(x_in));
    engine.connect_stream("labels", std::span(l_in));
    engine.connect_stream("loss", std::span(loss_out));
    engine.connect_stream("logits", std::span(logits_out));
    engine.run("train", std::chrono::minutes(5));
    std::vector<std::vector<float>> final;
    for (const char* name : {"w", "w2", "b"}) final.push_back(engine.read_tensor_as<float>(name));
    if (mode == emu::Mode::kNative) {
      final_native = final;
      loss_native = loss_out;
      logits_native = logits_out;
    } else {
      EXPECT_EQ(bits(loss_out), bits(loss_native));
      EXPECT_EQ(bits(logits_out), bits(logits_native));
      for (size_t i = 0; i < final.size(); ++i) EXPECT_EQ(bits(final[i]), bits(final_native[i])) << i;
    }
  }

  opgraph::Interpreter it(og);
  for (uint32_t s = 0; s < steps; ++s) {
    const std::vector<Words> vals =
        it.step({{"x", opgraph::to_words(std::vector<float>(xs.begin() + size_t{s} * m * d,
                                                            xs.begin() + size_t{s + 1} * m * d))},
                 {"labels", Words(ls.begin() + size_t{s} * m, ls.begin() + size_t{s + 1} * m)}});
    for (const auto& [v, got] : {std::pair{loss, &loss_native}, std::pair{logits, &logits_native}}) {
      const std::vector<float> want = opgraph::to_floats(vals[v.id]);
      const float scale = max_abs(want);
      for (size_t j = 0; j < want.size(); ++j)
        ASSERT_NEAR((*got)[size_t{s} * want.size() + j], want[j], 1e-5f * scale) << "step " << s << " value %" << v.id;
    }
  }
  for (size_t i = 0; i < params.size(); ++i) {
    const std::vector<float>& want = it.parameter(params[i]);
    const float scale = max_abs(want);
    for (size_t j = 0; j < want.size(); ++j)
      ASSERT_NEAR(final_native[i][j], want[j], 1e-5f * scale) << "parameter " << i << "[" << j << "]";
  }
}

}  // namespace
}  // namespace tessera::testing
