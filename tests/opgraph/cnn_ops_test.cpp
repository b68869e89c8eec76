// The op graph's N-D and CNN ops against PyTorch 1.13 (torch_cnn_cases.py writes seeded
// cases and torch's results): the reference interpreter, and the ops lowered onto the
// emulated `small` machine (native mode for every case, ISS = native bit for bit on some),
// with the planner's choice and with forced splits over channels and rows (halo windows).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <unistd.h>

#include "tessera/arch/tile_map.h"
#include "tessera/emu/machine.h"
#include "tessera/opgraph/eval.h"
#include "tessera/opgraph/lower.h"
#include "tessera/opgraph/opgraph.h"
#include "tessera/ops/window.h"
#include "tessera/passes/passes.h"
#include "tessera/runtime/engine.h"
#include "tessera/testutil/conv_classifier.h"
#include "tessera/testutil/seeded.h"
#include "tessera/testutil/on_emulator.h"

namespace tessera::testing {
namespace {

using opgraph::DType;
using opgraph::OpGraph;
using opgraph::Value;
namespace fs = std::filesystem;

struct Case {
  std::string name, op;
  std::map<std::string, std::vector<std::string>> fields;  // key -> comma-separated values
  std::vector<uint32_t> dims(const std::string& k) const {
    std::vector<uint32_t> r;
    for (const std::string& s : fields.at(k)) r.push_back(static_cast<uint32_t>(std::stoul(s)));
    return r;
  }
  std::vector<float> floats(const std::string& k) const {
    std::vector<float> r;
    for (const std::string& s : fields.at(k)) r.push_back(std::stof(s));
    return r;
  }
  bool has(const std::string& k) const { return fields.count(k) != 0; }
  const std::vector<std::string>& outputs() const { return fields.at("out"); }
  // The streams the case feeds: its operands that are not weights.
  std::vector<std::string> inputs() const {
    std::vector<std::string> r;
    for (const char* k : {"x", "b2", "dy"})
      if (has(k)) r.push_back(k);
    return r;
  }
};

std::vector<float> read_f32(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::vector<float> v(fs::file_size(p) / 4);
  f.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(v.size() * 4));
  return v;
}

passes::CompileOptions firmware_options() {
  return passes::firmware_options(std::string(TESSERA_TILE_BIN_DIR) + "/runtime/tessera-firmware.elf");
}

// Runs program "infer" of `e` on the emulator: `in` fed to the streams of those names, and
// outputs of the given sizes read back, by name.
std::map<std::string, std::vector<float>> run_infer(const exe::Executable& e, emu::Mode mode,
                                                    std::map<std::string, std::vector<float>> in,
                                                    const std::map<std::string, size_t>& out_sizes) {
  testutil::OnEmulator loaded(e, mode);
  runtime::Engine& engine = loaded.engine;
  std::map<std::string, std::vector<float>> out;
  for (auto& [name, data] : in) engine.connect_stream(name, std::span(data));
  for (const auto& [name, size] : out_sizes) {
    out[name].resize(size);
    engine.connect_stream(name, std::span(out[name]));
  }
  engine.run("infer", std::chrono::minutes(5));
  return out;
}

class CnnOps : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (std::system("/usr/bin/python3 -c 'import torch' >/dev/null 2>&1") != 0) return;
    const uint32_t seed = 20261201;
    std::printf("seed %u\n", seed);
    dir_ = fs::temp_directory_path() / ("tessera_cnn_ops_" + std::to_string(::getpid()));
    const std::string cmd = "/usr/bin/python3 " TESSERA_SOURCE_DIR "/tests/opgraph/torch_cnn_cases.py " +
                            dir_.string() + " " + std::to_string(seed);
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    std::ifstream f(dir_ / "cases.txt");
    for (std::string line; std::getline(f, line);) {
      std::istringstream in(line);
      Case c;
      in >> c.name >> c.op;
      for (std::string kv; in >> kv;) {
        const size_t eq = kv.find('=');
        std::stringstream vs(kv.substr(eq + 1));
        for (std::string v; std::getline(vs, v, ',');) c.fields[kv.substr(0, eq)].push_back(v);
      }
      cases_.push_back(c);
    }
  }
  static void TearDownTestSuite() {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  void SetUp() override {
    if (cases_.empty()) GTEST_SKIP() << "no torch";
  }

  static std::vector<float> data(const Case& c, const std::string& k) { return read_f32(dir_ / (c.name + "." + k + ".f32")); }

  static opgraph::Conv2dAttrs conv_attrs(const Case& c) {
    const std::vector<uint32_t> s = c.dims("stride"), p = c.dims("pads"), d = c.dims("dil");
    return {s[0], s[1], p[0], p[1], p[2], p[3], d[0], d[1], c.dims("groups")[0]};
  }
  static opgraph::Pool2dAttrs pool_attrs(const Case& c) {
    const std::vector<uint32_t> k = c.dims("kernel"), s = c.dims("stride"), p = c.dims("pads");
    return {k[0], k[1], s[0], s[1], p[0], p[1], p[2], p[3], c.dims("ceil")[0] != 0, c.dims("include_pad")[0] != 0};
  }
  static opgraph::UnaryOp unary_op(const std::string& op) {
    return op.rfind("leaky_relu", 0) == 0 ? opgraph::UnaryOp::kLeakyRelu
           : op.rfind("sigmoid", 0) == 0  ? opgraph::UnaryOp::kSigmoid
           : op.rfind("tanh", 0) == 0     ? opgraph::UnaryOp::kTanh
                                          : opgraph::UnaryOp::kClip;
  }

  // The case as an op graph: inputs "x" (and "b2", "dy"), weights as constants, outputs as
  // the case lists them ("y", or the gradients "dx", "dw", "db").
  static void build(const Case& c, OpGraph& og) {
    const Value x = og.input("x", DType::kF32, c.dims("x"));
    Value b2, dy;
    if (c.has("b2")) b2 = og.input("b2", DType::kF32, c.dims("b2"));
    if (c.has("dy")) dy = og.input("dy", DType::kF32, c.dims("dy"));
    Value y;
    const std::string& op = c.op;
    std::map<std::string, Value> out;
    if (op == "conv2d_grad") {
      const Value w = og.constant("w", c.dims("w"), data(c, "w"));
      out["dx"] = og.conv2d_grad_input(dy, w, conv_attrs(c), c.dims("x"), "conv");
      out["dw"] = og.conv2d_grad_weight(x, dy, conv_attrs(c), c.dims("w"), "conv");
      out["db"] = og.channel_sum(dy, "conv");
    } else if (op == "max_pool2d_grad") {
      out["dx"] = og.max_pool2d_grad(dy, x, pool_attrs(c), "pool");
    } else if (op == "avg_pool2d_grad") {
      out["dx"] = og.avg_pool2d_grad(dy, pool_attrs(c), c.dims("x"), "pool");
    } else if (op.size() > 5 && op.substr(op.size() - 5) == "_grad") {
      const opgraph::UnaryOp u = unary_op(op);
      const std::vector<float> f = c.floats("f");
      const Value v = u == opgraph::UnaryOp::kSigmoid || u == opgraph::UnaryOp::kTanh ? og.unary(u, x, f[0], f[1], "fwd") : x;
      out["dx"] = og.unary_grad(u, dy, v, f[0], f[1], "act");
    } else if (op == "conv2d") {
      const opgraph::Conv2dAttrs a = conv_attrs(c);
      const Value w = og.constant("w", c.dims("w"), data(c, "w"));
      const Value b = c.has("b") ? og.constant("b", c.dims("b"), data(c, "b")) : Value{};
      y = og.conv2d(x, w, b, a, "conv");
    } else if (op == "max_pool2d" || op == "avg_pool2d") {
      const opgraph::Pool2dAttrs a = pool_attrs(c);
      y = op == "max_pool2d" ? og.max_pool2d(x, a, "pool") : og.avg_pool2d(x, a, "pool");
    } else if (op == "global_avg_pool") {
      y = og.global_avg_pool(x, "gap");
    } else if (op == "lrn") {
      const std::vector<float> f = c.floats("f");
      y = og.lrn(x, c.dims("size")[0], f[0], f[1], f[2], "lrn");
    } else if (op == "add" || op == "sub" || op == "mul" || op == "div") {
      const opgraph::BinaryOp b = op == "add" ? opgraph::BinaryOp::kAdd : op == "sub" ? opgraph::BinaryOp::kSub
                                  : op == "mul" ? opgraph::BinaryOp::kMul : opgraph::BinaryOp::kDiv;
      y = og.binary(b, x, b2, op);
    } else if (op == "leaky_relu" || op == "sigmoid" || op == "tanh" || op == "clip") {
      const opgraph::UnaryOp u = unary_op(op);
      const std::vector<float> f = c.has("f") ? c.floats("f") : std::vector<float>{0, 0};
      y = og.unary(u, x, f[0], f[1], op);
    } else if (op == "transpose") {
      y = og.transpose(x, c.dims("perm"), "t");
    } else if (op == "concat") {
      y = og.concat({x, b2}, c.dims("axis")[0], "cat");
    } else {
      FAIL() << "unknown op " << op;
    }
    if (y.valid()) out["y"] = y;
    for (const std::string& name : c.outputs()) {
      ASSERT_EQ(og.info(out.at(name)).shape, c.dims(name)) << c.name << " " << name;
      og.output(name, out.at(name));
    }
  }

  // Each element within 2e-5 of (1 + |torch's|).
  static void expect_close(const std::vector<float>& got, const std::vector<float>& want, const std::string& what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    size_t bad = 0;
    for (size_t i = 0; i < got.size(); ++i)
      if (!(std::fabs(got[i] - want[i]) <= 2e-5f * (1 + std::fabs(want[i])))) {
        if (++bad <= 3) ADD_FAILURE() << what << " [" << i << "]: " << got[i] << " vs torch " << want[i];
      }
    EXPECT_EQ(bad, 0u) << what;
  }


  // Runs program "infer" of `e` on the emulator; returns the output streams, by name.
  static std::map<std::string, std::vector<float>> run(const exe::Executable& e, const Case& c, emu::Mode mode) {
    return run(e, c, mode, c.inputs(), c.outputs());
  }
  // The case's tensors `inputs` fed to the streams of those names, `outputs` read back.
  static std::map<std::string, std::vector<float>> run(const exe::Executable& e, const Case& c, emu::Mode mode,
                                                       const std::vector<std::string>& inputs,
                                                       const std::vector<std::string>& outputs) {
    std::map<std::string, std::vector<float>> in;
    std::map<std::string, size_t> sizes;
    for (const std::string& name : inputs) in[name] = data(c, name);
    for (const std::string& name : outputs) sizes[name] = data(c, name).size();
    return run_infer(e, mode, std::move(in), sizes);
  }

  static exe::Executable lower_and_compile(const OpGraph& og, opgraph::LowerOptions lo = {}) {
    const passes::CompileOptions co = firmware_options();
    graph::Graph g(*arch::find_target("small"));
    lo.firmware_bytes = co.layout.firmware_end - arch::kSramBase;
    opgraph::lower(og, g, lo);
    return passes::compile(g, co);
  }

  static inline fs::path dir_;
  static inline std::vector<Case> cases_;
};

TEST_F(CnnOps, InterpreterMatchesTorch) {
  for (const Case& c : cases_) {
    OpGraph og;
    build(c, og);
    std::map<std::string, opgraph::Words> in;
    for (const std::string& name : c.inputs()) in[name] = opgraph::to_words(data(c, name));
    const std::vector<opgraph::Words> v = opgraph::evaluate(og, in);
    for (const opgraph::Op& op : og.ops())
      if (op.kind == opgraph::OpKind::kOutput)
        expect_close(opgraph::to_floats(v.at(op.operands[0].id)), data(c, op.name), c.name + "." + op.name + " (interpreter)");
  }
}

TEST_F(CnnOps, LoweredOnTheEmulatorMatchesTorch) {
  const std::set<std::string> iss = {"conv_stride_pad", "conv_depthwise", "max_3x3s2p1", "avg_pad_incl", "lrn5",
                                     "add_channel", "sigmoid", "transpose", "concat_c", "conv_grad_stride",
                                     "max_grad_overlap", "avg_grad_ceil", "tanh_grad"};
  for (const Case& c : cases_) {
    OpGraph og;
    build(c, og);
    const exe::Executable e = lower_and_compile(og);
    const auto native = run(e, c, emu::Mode::kNative);
    for (const auto& [name, got] : native) expect_close(got, data(c, name), c.name + "." + name + " (native)");
    if (iss.count(c.name)) {
      for (const auto& [name, got] : run(e, c, emu::Mode::kIss)) {
        const std::vector<float>& nat = native.at(name);
        EXPECT_EQ(0, std::memcmp(got.data(), nat.data(), got.size() * 4)) << c.name << "." << name << ": ISS and native differ";
      }
    }
  }
}

// Window ops under forced plans: channel blocks and row blocks (partial rows: one vertex per
// channel, input windows with their halo copied per channel; with input channel splits one
// vertex for the tile's channels, its partial added into y channel by channel).
// Every forced split of the window planner, input channel splits (pk, the last field)
// included, against torch's outputs; convs with their weights baked and spread
// (spread_conv_weights).
TEST_F(CnnOps, ForcedSplitsMatchTorch) {
  const std::vector<ops::WindowPlan> plans = {{1, 1, 3, 0, 0, 1}, {2, 2, 2, 0, 0, 1}, {1, 3, 4, 0, 0, 1},
                                              {1, 1, 1, 0, 0, 2}, {2, 2, 1, 0, 0, 3}, {1, 2, 2, 0, 0, 4},
                                              {1, 1, 3, 0, 0, 2}};
  uint32_t input_splits = 0;
  for (const Case& c : cases_) {
    if (c.op != "conv2d" && c.op != "max_pool2d" && c.op != "avg_pool2d") continue;  // forward window ops
    OpGraph og;
    build(c, og);
    const opgraph::Op& op = og.ops()[og.ops().size() - 2];
    ASSERT_TRUE(op.kind == opgraph::OpKind::kConv2d || op.kind == opgraph::OpKind::kMaxPool2d ||
                op.kind == opgraph::OpKind::kAvgPool2d);
    const bool conv = c.op == "conv2d";
    for (const ops::WindowPlan& p : plans)
      for (const bool spread : {false, true}) {
        const std::vector<uint32_t> xs = c.dims("x"), ys = c.dims("y");
        if (spread && !conv) continue;
        if (p.pk > 1 && (!conv || c.dims("groups")[0] != 1 || xs[1] < p.pk)) continue;
        // A partial block, its gather and its part of y on a tile of `small`'s 128 KiB.
        auto part = [](uint32_t n, uint32_t parts) { return uint64_t(n + parts - 1) / parts; };
        const uint64_t y_per_tile = part(ys[0], p.pn) * part(ys[1], p.pc) * part(ys[2], p.ps) * ys[3];
        if (p.pk > 1 && y_per_tile > 8192) continue;
        input_splits += p.pk > 1;
        const passes::CompileOptions co = firmware_options();
        graph::Graph g(*arch::find_target("small"));
        graph::Tensor x = g.add_variable(DType::kF32, xs, "x");
        g.map_linearly(x, xs.back());
        graph::Program body = graph::Sequence();
        body.add(graph::HostWrite(g.add_stream("x", DType::kF32, xs), x));
        ops::WindowGeometry geo;
        geo.c_in = xs[1], geo.h = xs[2], geo.w = xs[3], geo.c_out = ys[1], geo.oh = ys[2], geo.ow = ys[3];
        const std::vector<uint32_t> pads = c.dims("pads");
        geo.pt = pads[0], geo.pl = pads[1], geo.pb = pads[2], geo.pr = pads[3];
        const std::vector<uint32_t> s = c.dims("stride");
        geo.sh = s[0], geo.sw = s[1];
        graph::Tensor y;
        if (conv) {
          const std::vector<uint32_t> w = c.dims("w"), d = c.dims("dil");
          geo.kh = w[2], geo.kw = w[3], geo.dh = d[0], geo.dw = d[1], geo.groups = c.dims("groups")[0];
          ops::ConvWeights wts;
          if (spread) wts.w = ops::spread_conv_weights(g, data(c, "w"), geo, xs[0], p, "conv"), wts.w_blocked = true;
          else wts.w_values = data(c, "w");
          if (c.has("b")) wts.b_values = data(c, "b");
          y = ops::conv2d(g, body, x, wts, geo, p, "conv");
        } else {
          const std::vector<uint32_t> k = c.dims("kernel");
          geo.kh = k[0], geo.kw = k[1], geo.groups = geo.c_in;
          y = c.op == "max_pool2d" ? ops::max_pool2d(g, body, x, geo, p, "pool")
                                   : ops::avg_pool2d(g, body, x, geo, c.dims("include_pad")[0] != 0, p, "pool");
        }
        body.add(graph::HostRead(g.add_stream("y", DType::kF32, ys), y));
        g.add_program("infer", body);
        const exe::Executable e = passes::compile(g, co);
        const std::vector<float> want = data(c, "y");
        expect_close(run(e, c, emu::Mode::kNative).at("y"), want,
                     c.name + " plan " + std::to_string(p.pn) + "x" + std::to_string(p.pc) + "x" + std::to_string(p.ps) +
                         "x" + std::to_string(p.pk) + (spread ? " spread" : ""));
      }
  }
  EXPECT_GT(input_splits, 0u) << "no case tried an input channel split";
}

// A conv whose share of a tile does not fit the budget in one pass runs in passes over its
// output channels (WindowPlan::passes), each pass with its channels' weights: each conv case
// with one group, at the largest memory proportion that needs passes, against torch's
// output (native, and the ISS bit for bit).
TEST_F(CnnOps, ConvInPassesMatchesTorch) {
  uint32_t in_passes = 0;
  for (const Case& c : cases_) {
    if (c.op != "conv2d" || c.dims("groups")[0] != 1) continue;
    OpGraph og;
    build(c, og);
    for (double p = 0.25; p > 1e-3; p /= 2) {
      opgraph::LowerOptions lo;
      lo.memory_proportion = p;
      std::string passes_note;
      lo.note = [&](const std::string& line) {
        if (line.find(" passes of ") != std::string::npos) passes_note = line;
      };
      exe::Executable e;
      try {
        e = lower_and_compile(og, lo);
      } catch (const std::exception& err) {
        EXPECT_NE(std::string(err.what()).find("no split over"), std::string::npos) << c.name << ": " << err.what();
        break;  // nothing fits any more
      }
      if (passes_note.empty()) continue;
      const std::string what = c.name + " at memory proportion " + std::to_string(p) + " (" + passes_note + ")";
      const auto native = run(e, c, emu::Mode::kNative);
      expect_close(native.at("y"), data(c, "y"), what);
      const auto iss = run(e, c, emu::Mode::kIss);
      EXPECT_EQ(0, std::memcmp(iss.at("y").data(), native.at("y").data(), native.at("y").size() * 4)) << what;
      ++in_passes;
      break;
    }
  }
  EXPECT_GE(in_passes, 3u) << "too few conv cases ran in passes";
}

// The planner takes the fewest passes whose share fits: none while one pass fits, and each
// pass within the budget when it does not.
TEST(WindowPlanner, PassesOnlyWhenOnePassDoesNotFit) {
  const arch::Target& t = *arch::find_target("medium");
  const ops::CostModel cost = ops::CostModel::for_target(t);
  ops::WindowGeometry geo;  // AlexNet's second conv: 64 -> 192 channels, 27x27, 5x5, pad 2
  geo.c_in = 64, geo.h = geo.w = 27, geo.c_out = 192, geo.oh = geo.ow = 27, geo.kh = geo.kw = 5;
  geo.pt = geo.pl = geo.pb = geo.pr = 2;
  const ops::WindowPlan roomy = ops::plan_window(ops::WindowKind::kConv2d, geo, 1, t.tiles, cost, 200e3, "c", true);
  EXPECT_EQ(roomy.passes, 1u);
  for (const double budget : {118784.0, 80e3, 40e3}) {
    const ops::WindowPlan p = ops::plan_window(ops::WindowKind::kConv2d, geo, 1, t.tiles, cost, budget, "c", true);
    EXPECT_GT(p.passes, 1u) << budget;
    EXPECT_LE(double(p.bytes), budget);
    ops::WindowGeometry fewer = geo;  // one pass fewer does not fit
    fewer.c_out = (geo.c_out + p.passes - 2) / (p.passes - 1);
    EXPECT_GT(ops::plan_window(ops::WindowKind::kConv2d, fewer, 1, t.tiles, cost, budget, "c", true).passes, 1u)
        << budget;
  }
  // Pools never run in passes: they report that nothing fits.
  EXPECT_THROW(ops::plan_window(ops::WindowKind::kMaxPool, geo, 1, t.tiles, cost, 100.0, "p"), graph::GraphError);
}

// ResNet-18's deepest conv (512 -> 512 channels, 7x7, 3x3 kernel) on ipu-gc2: the fastest
// plan reads every input channel on each tile; with input channel splits allowed and a small
// send-list budget, the planner splits over input channels instead, within the tiles and the
// byte budget, and is no faster than the plan without the send budget.
TEST(WindowPlanner, SplitsOverInputChannelsWithinTheSendBudget) {
  const arch::Target& t = *arch::find_target("ipu-gc2");
  const ops::CostModel cost = ops::CostModel::for_target(t);
  ops::WindowGeometry geo;
  geo.c_in = geo.c_out = 512, geo.h = geo.w = geo.oh = geo.ow = 7, geo.kh = geo.kw = 3;
  geo.pt = geo.pl = geo.pb = geo.pr = 1;
  const double budget = 0.5 * (double(t.sram_bytes) - 16384);
  const ops::WindowPlan whole = ops::plan_window(ops::WindowKind::kConv2d, geo, 1, t.tiles, cost, budget, "c");
  EXPECT_EQ(whole.pk, 1u);
  const ops::WindowPlan tight =
      ops::plan_window(ops::WindowKind::kConv2d, geo, 1, t.tiles, cost, budget, "c", /*split_inputs=*/true, 3000);
  EXPECT_GT(tight.pk, 1u);
  EXPECT_LE(tight.pn * tight.pc * tight.ps * tight.pk, t.tiles);
  EXPECT_LE(double(tight.bytes), budget);
  const ops::WindowPlan loose =
      ops::plan_window(ops::WindowKind::kConv2d, geo, 1, t.tiles, cost, budget, "c", /*split_inputs=*/true);
  EXPECT_LE(loose.cycles, tight.cycles);
  // Grouped convs and pools never split over input channels.
  geo.groups = 512;
  EXPECT_EQ(ops::plan_window(ops::WindowKind::kConv2d, geo, 1, t.tiles, cost, budget, "c", true, 3000).pk, 1u);
  EXPECT_EQ(ops::plan_window(ops::WindowKind::kMaxPool, geo, 1, t.tiles, cost, budget, "p", true, 3000).pk, 1u);
}

// Planned for native mode (PlanFor::kHost), LeNet-5's convs at batch 100 on `medium` move
// fewer input-window words summed over all tiles than the machine's plans (which split rows
// and channels, each window with its halo, for the busiest tile's cycles), still over at
// least kHostJobs tiles and within the budget; the machine's plan is the default.
TEST(WindowPlanner, PlannedForTheHostMovesFewerWordsOverEnoughTiles) {
  const arch::Target& t = *arch::find_target("medium");
  const ops::CostModel cost = ops::CostModel::for_target(t);
  const double budget = 0.5 * (double(t.sram_bytes) - 16384);
  ops::WindowGeometry conv1, conv2;
  conv1.c_in = 1, conv1.h = conv1.w = conv1.oh = conv1.ow = 28, conv1.c_out = 6, conv1.kh = conv1.kw = 5;
  conv1.pt = conv1.pl = conv1.pb = conv1.pr = 2;
  conv2.c_in = 6, conv2.h = conv2.w = 14, conv2.c_out = 16, conv2.oh = conv2.ow = 10, conv2.kh = conv2.kw = 5;
  for (const ops::WindowGeometry& geo : {conv1, conv2}) {
    const auto words = [&](const ops::WindowPlan& p) {  // every job's window, its halo rows included
      const uint64_t imgs = (100 + p.pn - 1) / p.pn, rows = (geo.oh + p.ps - 1) / p.ps;
      const uint64_t win = std::min<uint64_t>(geo.h, (rows - 1) * geo.sh + geo.kh);
      return uint64_t{p.pn} * p.pc * p.ps * imgs * geo.c_in * win * geo.w;
    };
    const ops::WindowPlan machine = ops::plan_window(ops::WindowKind::kConv2d, geo, 100, t.tiles, cost, budget, "c");
    const ops::WindowPlan host = ops::plan_window(ops::WindowKind::kConv2d, geo, 100, t.tiles, cost, budget, "c", false,
                                                  std::numeric_limits<double>::infinity(), ops::PlanFor::kHost);
    const ops::WindowPlan same = ops::plan_window(ops::WindowKind::kConv2d, geo, 100, t.tiles, cost, budget, "c", false,
                                                  std::numeric_limits<double>::infinity(), ops::PlanFor::kMachine);
    EXPECT_EQ(same.pn, machine.pn);
    EXPECT_EQ(same.pc, machine.pc);
    EXPECT_EQ(same.ps, machine.ps);
    std::printf("c_in %u: machine %u x %u x %u, %llu words; host %u x %u x %u, %llu words\n", geo.c_in, machine.pn,
                machine.pc, machine.ps, static_cast<unsigned long long>(words(machine)), host.pn, host.pc, host.ps,
                static_cast<unsigned long long>(words(host)));
    EXPECT_LT(words(host), words(machine));
    EXPECT_GE(host.pn * host.pc * host.ps, ops::kHostJobs);
    EXPECT_LE(host.pn * host.pc * host.ps, t.tiles);
    EXPECT_LE(double(host.bytes), budget);
    EXPECT_GE(host.cycles, machine.cycles);  // the machine's plan is its fastest
  }
}

// Planned for the host with the window ops spread (LowerOptions::spread_window_ops), each
// takes the tiles after the one before's (a host plan's jobs are few: all of them from the
// first tile piled a model's weights onto a few tiles, and ResNet-18 fitted `ipu-mk2` only
// with every op's share cut to an eighth), and the lowered chain still computes what the
// reference interpreter does. With every plan started at the first tile (op_def.h), the
// ranges overlap and the first check fails.
TEST(HostPlan, WindowOpsTakeTheTilesAfterTheOneBefore) {
  OpGraph og;
  const Value x = og.input("x", DType::kF32, {2, 4, 12, 12});
  std::mt19937 rng(7);
  const std::vector<float> w1 = testutil::seeded(8 * 4 * 9, 0.5f, rng), w2 = testutil::seeded(8 * 8 * 9, 0.5f, rng);
  const std::vector<float> xs = testutil::seeded(2 * 4 * 12 * 12, 0.5f, rng);
  opgraph::Conv2dAttrs pad1;
  pad1.pad_top = pad1.pad_left = pad1.pad_bottom = pad1.pad_right = 1;
  const Value c1 = og.conv2d(x, og.constant("w1", {8, 4, 3, 3}, w1), Value{}, pad1, "c1");
  const Value c2 = og.conv2d(c1, og.constant("w2", {8, 8, 3, 3}, w2), Value{}, pad1, "c2");
  opgraph::Pool2dAttrs pool;
  pool.kernel_h = pool.kernel_w = pool.stride_h = pool.stride_w = 2;
  og.output("y", og.max_pool2d(c2, pool, "p"));

  const passes::CompileOptions co = firmware_options();
  graph::Graph g(*arch::find_target("medium"));
  opgraph::LowerOptions lo;
  lo.firmware_bytes = co.layout.firmware_end - arch::kSramBase;
  lo.plan_for = ops::PlanFor::kHost;
  lo.spread_window_ops = true;
  opgraph::lower(og, g, lo);
  // Each op's tiles (its compute sets named after it), in the order the ops were planned.
  std::map<std::string, std::set<uint32_t>> tiles;
  for (const graph::ComputeSetData& cs : g.compute_sets())
    for (const char* op : {"c1", "c2", "p"})
      if (cs.name.rfind(op, 0) == 0 && (cs.name.size() == std::strlen(op) || cs.name[std::strlen(op)] == '.'))
        for (uint32_t v : cs.vertices) tiles[op].insert(g.vertices()[v].tile);
  ASSERT_EQ(tiles.size(), 3u);
  EXPECT_LT(*tiles["c1"].rbegin(), *tiles["c2"].begin());
  EXPECT_LT(*tiles["c2"].rbegin(), *tiles["p"].begin());

  const std::vector<float> y =
      run_infer(passes::compile(g, co), emu::Mode::kNative, {{"x", xs}}, {{"y", 2 * 8 * 6 * 6}}).at("y");
  const std::vector<opgraph::Words> v = opgraph::evaluate(og, {{"x", opgraph::to_words(xs)}});
  std::vector<float> want;
  for (const opgraph::Op& op : og.ops())
    if (op.kind == opgraph::OpKind::kOutput) want = opgraph::to_floats(v.at(op.operands[0].id));
  ASSERT_EQ(want.size(), y.size());
  for (size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(y[i], want[i], 1e-5f * (1 + std::fabs(want[i]))) << i;
}

// Replicated constants are counted per tile (LowerContext::reserve_constant_bytes): planned for
// the host with the window ops spread, each conv takes tiles of its own, so a second conv's
// weight blocks are baked on its tiles however much the first baked on others; where every
// op starts at the first tile (the machine's plans), the first tile holds both convs'
// replicas, and a conv whose replicas no longer fit beside the first's stores its weights
// once and copies its blocks before each run. Both lowerings compute what the reference
// interpreter does. Counting the replicas over the model as before spreads the second
// conv's weights in both lowerings, and the first check fails.
TEST(HostPlan, EachTilesReplicatedWeightsAreCountedOnThatTile) {
  OpGraph og;
  const Value x = og.input("x", DType::kF32, {1, 16, 16, 16});
  std::mt19937 rng(11);
  const std::vector<float> w1 = testutil::seeded(32 * 16 * 9, 0.5f, rng);
  const std::vector<float> w2 = testutil::seeded(32 * 32 * 9, 0.5f, rng);
  const std::vector<float> xs = testutil::seeded(16 * 16 * 16, 0.5f, rng);
  opgraph::Conv2dAttrs pad1;
  pad1.pad_top = pad1.pad_left = pad1.pad_bottom = pad1.pad_right = 1;
  const Value c1 = og.conv2d(x, og.constant("w1", {32, 16, 3, 3}, w1), Value{}, pad1, "c1");
  og.output("y", og.conv2d(c1, og.constant("w2", {32, 32, 3, 3}, w2), Value{}, pad1, "c2"));
  const std::vector<float> want = testutil::evaluate_output(og, {{"x", opgraph::to_words(xs)}});

  const passes::CompileOptions co = firmware_options();
  for (const bool spread : {true, false}) {
    SCOPED_TRACE(spread ? "window ops spread" : "every window op from the first tile");
    graph::Graph g(*arch::find_target("medium"));
    opgraph::LowerOptions lo;
    lo.firmware_bytes = co.layout.firmware_end - arch::kSramBase;
    lo.plan_for = ops::PlanFor::kHost;
    lo.spread_window_ops = spread;
    lo.memory_proportion = 0.125;  // one conv's replicas fit a tile's share, two do not
    opgraph::lower(og, g, lo);
    // A conv that stores its weights once has a variable of them all (spread_conv_weights).
    std::set<std::string> stored_once;
    for (const auto& var : g.variables())
      for (const char* op : {"c1", "c2"})
        if (var.name == std::string(op) + ".conv.w") stored_once.insert(op);
    EXPECT_EQ(stored_once, spread ? std::set<std::string>{} : std::set<std::string>{"c2"});
    testutil::expect_matches_interpreter(run_infer(passes::compile(g, co), emu::Mode::kNative,
                                                   {{"x", xs}}, {{"y", 32 * 16 * 16}}).at("y"),
                                         want);
  }
}

TEST(CnnOpErrors, NameTheOpAndTheShapes) {
  OpGraph og;
  const Value x = og.input("x", DType::kF32, {1, 3, 8, 8});
  const Value w = og.constant("w", {4, 2, 3, 3}, std::vector<float>(72));
  auto error = [](auto f) {
    try {
      f();
    } catch (const opgraph::OpGraphError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error([&] { og.conv2d(x, w, Value{}, {}, "c1"); }),
            "conv2d 'c1': f32[1,3,8,8] with weights f32[4,2,3,3] and 1 groups: channels do not match");
  opgraph::Pool2dAttrs big;
  big.kernel_h = big.kernel_w = 9;
  EXPECT_EQ(error([&] { og.max_pool2d(x, big, "p"); }),
            "max_pool2d 'p': the kernel 9x9 does not fit the padded input f32[1,3,8,8]");
  EXPECT_EQ(error([&] { og.binary(opgraph::BinaryOp::kAdd, x, og.input("z", DType::kF32, {5}), "a"); }),
            "add 'a': f32[1,3,8,8] and f32[5]: the shapes do not broadcast");
  EXPECT_EQ(error([&] { og.reshape(x, {7}, "r"); }), "reshape 'r': f32[1,3,8,8] to [7]: the element counts differ");
}


// The conv gradients under small budgets: input channel and dx row blocks for dx (weights a
// tensor, gathered per channel block), and for dw input and output channel blocks x parts of
// each image's dy rows, partial sums reduced; against PyTorch's.
TEST_F(CnnOps, ConvGradSplitsMatchTorch) {
  size_t ran = 0;
  for (const Case& c : cases_) {
    if (c.op != "conv2d_grad") continue;
    for (const double budget : {1.0, 600.0, 4000.0}) {
      const passes::CompileOptions co = firmware_options();
      graph::Graph g(*arch::find_target("small"));
      const std::vector<uint32_t> xs = c.dims("x"), ws = c.dims("w"), ys = c.dims("dy");
      graph::Program body = graph::Sequence();
      auto input = [&](const char* name, const std::vector<uint32_t>& shape) {
        graph::Tensor t = g.add_variable(DType::kF32, shape, name);
        g.map_linearly(t, shape.back());
        body.add(graph::HostWrite(g.add_stream(name, DType::kF32, shape), t));
        return t;
      };
      const graph::Tensor x = input("x", xs), w = input("w", ws), dy = input("dy", ys);
      ops::WindowGeometry geo;
      geo.c_in = xs[1], geo.h = xs[2], geo.w = xs[3], geo.c_out = ys[1], geo.oh = ys[2], geo.ow = ys[3];
      const std::vector<uint32_t> pads = c.dims("pads"), s = c.dims("stride"), d = c.dims("dil");
      geo.pt = pads[0], geo.pl = pads[1], geo.pb = pads[2], geo.pr = pads[3];
      geo.sh = s[0], geo.sw = s[1], geo.kh = ws[2], geo.kw = ws[3], geo.dh = d[0], geo.dw = d[1];
      geo.groups = c.dims("groups")[0];
      ops::ConvWeights wts;
      wts.w = w;
      const graph::Tensor dx = ops::conv2d_grad_input(g, body, dy, wts, geo, xs[0], "dx", budget);
      const graph::Tensor dw = ops::conv2d_grad_weight(g, body, x, dy, geo, xs[0], "dw", budget);
      body.add(graph::HostRead(g.add_stream("dx", DType::kF32, xs), dx));
      body.add(graph::HostRead(g.add_stream("dw", DType::kF32, ws), dw));
      g.add_program("infer", body);
      const exe::Executable e = passes::compile(g, co);
      const std::map<std::string, std::vector<float>> got =
          run(e, c, emu::Mode::kNative, {"x", "w", "dy"}, {"dx", "dw"});
      const std::string what = c.name + " budget " + std::to_string(int(budget));
      expect_close(got.at("dx"), data(c, "dx"), what + " dx");
      expect_close(got.at("dw"), data(c, "dw"), what + " dw");
      ++ran;
    }
  }
  EXPECT_GT(ran, 0u);
}

}  // namespace
}  // namespace tessera::testing
