// Calibrates the matmul planner's cost model (compiler/ops/src/cost_model.cpp) against the
// ISS: for each codelet the planner models, 1-tile graphs (one vertex on tile 0 of the
// `small` target, its tensors on that tile) are compiled and run on a device from the registry
// that gives a cycle profile (the emulator's ISS, `emu`), the compute cycles of the vertex's
// superstep are read from the run's profile, and a + b * work is
// fitted by least squares (of the relative error). Prints every point, the fit and its worst relative error, and the
// lines to paste into cost_model.cpp's calibrated table.
//
//   calibrate_costs [firmware.elf] [--device URI]
//     (defaults: the build's runtime/tessera-firmware.elf, device emu)
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "tessera/graph/graph.h"
#include "tessera/ops/cost_model.h"
#include "tessera/passes/passes.h"
#include "tessera/registry/registry.h"
#include "tessera/runtime/engine.h"

using namespace tessera;
using namespace tessera::graph;

namespace {

std::vector<uint8_t> g_firmware;
std::string g_device = "emu";

std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<float> random_values(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

Tensor on_tile0(Graph& g, std::vector<uint32_t> shape, const std::string& name, uint32_t seed) {
  size_t size = 1;
  for (uint32_t s : shape) size *= s;
  Tensor t = g.add_variable(DType::kF32, shape, name);
  g.set_tile_mapping(t, 0);
  g.set_initial_value(t, random_values(size, seed));
  return t;
}

// Compiles `g` (program "main" = Execute of the one compute set), runs it on the ISS and
// returns tile 0's compute cycles of the superstep that ran it. One-word copies from tile 0
// to tile 1 before and after put the Execute in a superstep of its own, between two barriers
// (the first superstep also holds the firmware's start, and the last, ended by the halt, is
// not profiled).
uint64_t measure(Graph& g, ComputeSet cs) {
  Tensor s0 = g.add_variable(DType::kF32, {1}, "sync.src"), s1 = g.add_variable(DType::kF32, {1}, "sync.dst");
  g.set_tile_mapping(s0, 0);
  g.set_tile_mapping(s1, 1);
  g.set_initial_value(s0, {0.0f});
  g.add_program("main", Sequence({Copy(s0, s1), Execute(cs), Copy(s0, s1)}));
  passes::CompileOptions o;
  o.firmware = g_firmware;
  const exe::ElfImage elf = exe::parse_elf(o.firmware, "firmware");
  o.layout = exe::firmware_layout(elf);
  const exe::Executable e = passes::compile(g, o);
  auto dev = registry::open(g_device);
  dev->configure(e.target, std::as_bytes(std::span(e.firmware)));
  runtime::EngineOptions eo;
  eo.profile_source = registry::profile_source(*dev);
  if (!eo.profile_source)
    throw std::runtime_error("device '" + g_device + "' gives no cycle profile (use --device emu)");
  runtime::Engine engine(*dev, e, eo);
  engine.load();
  engine.run("main", std::chrono::seconds(60));
  const std::vector<runtime::SuperstepCycles>& profile = engine.reports().back().profile;
  if (std::getenv("CALIBRATE_VERBOSE"))
    for (const runtime::SuperstepCycles& s : profile)
      std::printf("    superstep %u kind %u compute %llu exchange %llu tile0 %u\n", s.superstep, s.kind,
                  static_cast<unsigned long long>(s.compute_cycles), static_cast<unsigned long long>(s.exchange_cycles),
                  s.tile_cycles.empty() ? 0u : s.tile_cycles.at(0));
  if (profile.size() != 2 || profile[1].tile_cycles.empty())
    throw std::runtime_error("device '" + g_device + "': expected 2 profiled supersteps with per-tile cycles, got " +
                             std::to_string(profile.size()) + " (a device with a cycle profile: --device emu)");
  return profile[1].tile_cycles.at(0);
}

Graph small() { return Graph(*arch::find_target("small")); }

// matmul, matmul_tn or matmul_nt (a stored k x m for matmul_tn, b n x k for matmul_nt).
uint64_t matmul_cycles(uint32_t m, uint32_t k, uint32_t n, const char* codelet = "matmul") {
  Graph g = small();
  Tensor a = on_tile0(g, {m, k}, "a", 1), b = on_tile0(g, {k, n}, "b", 2), c = on_tile0(g, {m, n}, "c", 3);
  const ComputeSet cs = g.add_compute_set("cs");
  const Vertex v = g.add_vertex(cs, codelet, 0);
  g.connect(v, "c", c);
  g.connect(v, "a", a);
  g.connect(v, "b", b);
  g.set_field(v, "m", m);
  g.set_field(v, "k", k);
  g.set_field(v, "n", n);
  return measure(g, cs);
}

uint64_t reduce_sum_cycles(uint32_t n, uint32_t k) {
  Graph g = small();
  Tensor in = on_tile0(g, {k, n}, "in", 4), out = on_tile0(g, {n}, "out", 5);
  const ComputeSet cs = g.add_compute_set("cs");
  const Vertex v = g.add_vertex(cs, "reduce_sum", 0);
  g.connect(v, "out", out);
  g.connect(v, "in", in);
  g.set_field(v, "n", n);
  g.set_field(v, "k", k);
  return measure(g, cs);
}

uint64_t add_bias_cycles(uint32_t rows, uint32_t cols) {
  Graph g = small();
  Tensor x = on_tile0(g, {rows, cols}, "x", 6), bias = on_tile0(g, {cols}, "bias", 7);
  const ComputeSet cs = g.add_compute_set("cs");
  const Vertex v = g.add_vertex(cs, "add_bias", 0);
  g.connect(v, "dst", x);
  g.connect(v, "src", x);
  g.connect(v, "bias", bias);
  g.set_field(v, "rows", rows);
  g.set_field(v, "cols", cols);
  return measure(g, cs);
}

uint64_t relu_cycles(uint32_t n) {
  Graph g = small();
  Tensor x = on_tile0(g, {n}, "x", 8);
  const ComputeSet cs = g.add_compute_set("cs");
  const Vertex v = g.add_vertex(cs, "relu", 0);
  g.connect(v, "dst", x);
  g.connect(v, "src", x);
  g.set_field(v, "n", n);
  return measure(g, cs);
}

uint64_t relu_grad_cycles(uint32_t n) {
  Graph g = small();
  Tensor dy = on_tile0(g, {n}, "dy", 9), y = on_tile0(g, {n}, "y", 10);
  const ComputeSet cs = g.add_compute_set("cs");
  const Vertex v = g.add_vertex(cs, "relu_grad", 0);
  g.connect(v, "dx", dy);
  g.connect(v, "dy", dy);
  g.connect(v, "y", y);
  g.set_field(v, "n", n);
  return measure(g, cs);
}

uint64_t softmax_xent_cycles(uint32_t rows, uint32_t cols) {
  Graph g = small();
  Tensor logits = on_tile0(g, {rows, cols}, "logits", 11), d = on_tile0(g, {rows, cols}, "d", 12);
  Tensor loss = on_tile0(g, {rows}, "loss", 13);
  Tensor labels = g.add_variable(DType::kU32, {rows}, "labels");
  g.set_tile_mapping(labels, 0);
  std::vector<uint32_t> l(rows);
  for (uint32_t r = 0; r < rows; ++r) l[r] = (r * 7) % cols;
  g.set_initial_words(labels, l);
  const ComputeSet cs = g.add_compute_set("cs");
  const Vertex v = g.add_vertex(cs, "softmax_xent", 0);
  g.connect(v, "dlogits", d);
  g.connect(v, "loss", loss);
  g.connect(v, "logits", logits);
  g.connect(v, "labels", labels);
  g.set_field(v, "rows", rows);
  g.set_field(v, "cols", cols);
  g.set_field_f32(v, "scale", 1.0f / rows);
  return measure(g, cs);
}

uint64_t sgd_momentum_cycles(uint32_t n) {
  Graph g = small();
  Tensor w = on_tile0(g, {n}, "w", 14), vel = on_tile0(g, {n}, "v", 15), gr = on_tile0(g, {n}, "g", 16);
  Tensor lr = on_tile0(g, {1}, "lr", 17);
  const ComputeSet cs = g.add_compute_set("cs");
  const Vertex v = g.add_vertex(cs, "sgd_momentum", 0);
  g.connect(v, "w", w);
  g.connect(v, "v", vel);
  g.connect(v, "g", gr);
  g.connect(v, "lr", lr);
  g.set_field(v, "n", n);
  g.set_field_f32(v, "momentum", 0.9f);
  return measure(g, cs);
}

// The CNN codelets. A convolution's shape: x [cin][h][wd], w [cout][cin][kh][kw], y
// [cout][oh][ow], with stride s, pad p (both axes) and dilation 1; work = the nominal
// multiply-adds cout*oh*ow*cin*kh*kw (taps in the padding included, as a planner counts).
struct ConvShape {
  uint32_t cin, h, wd, cout, kh, kw, s, p;
  uint32_t oh() const { return (h + 2 * p - kh) / s + 1; }
  uint32_t ow() const { return (wd + 2 * p - kw) / s + 1; }
  ops::ConvWorkShape work_shape() const {
    return {cin, h, wd, cout, oh(), ow(), kh, kw, s, s, int32_t(p), int32_t(p), 1, 1};
  }
  std::string name() const {
    return std::to_string(cin) + "x" + std::to_string(h) + "x" + std::to_string(wd) + " -> " + std::to_string(cout) +
           " k" + std::to_string(kh) + "x" + std::to_string(kw) + " s" + std::to_string(s) + " p" + std::to_string(p);
  }
};

void conv_fields(Graph& g, Vertex v, const ConvShape& c) {
  const char* names[] = {"cin", "h", "wd", "cout", "oh", "ow", "kh", "kw", "sh", "sw", "ph", "pw", "dh", "dw"};
  const uint32_t values[] = {c.cin, c.h, c.wd, c.cout, c.oh(), c.ow(), c.kh, c.kw, c.s, c.s, c.p, c.p, 1, 1};
  for (int i = 0; i < 14; ++i) g.set_field(v, names[i], values[i]);
}

// codelet: conv2d, conv2d_grad_input or conv2d_grad_weight.
uint64_t conv_cycles(const ConvShape& c, const std::string& codelet) {
  Graph g = small();
  Tensor x = on_tile0(g, {c.cin, c.h, c.wd}, "x", 20), w = on_tile0(g, {c.cout, c.cin, c.kh, c.kw}, "w", 21);
  Tensor y = on_tile0(g, {c.cout, c.oh(), c.ow()}, "y", 22);
  const ComputeSet cs = g.add_compute_set("cs");
  const Vertex v = g.add_vertex(cs, codelet, 0);
  if (codelet == "conv2d") {
    g.connect(v, "y", y);
    g.connect(v, "x", x);
    g.connect(v, "w", w);
    g.connect(v, "b", on_tile0(g, {c.cout}, "b", 23));
  } else if (codelet == "conv2d_grad_input") {
    g.connect(v, "dx", x);
    g.connect(v, "dy", y);
    g.connect(v, "w", w);
  } else {
    g.connect(v, "dweight", w);
    g.connect(v, "x", x);
    g.connect(v, "dy", y);
    g.set_field(v, "accumulate", 0);
  }
  conv_fields(g, v, c);
  return measure(g, cs);
}

// A pooling's shape (c planes, kernel k, stride s, pad p); work = c*oh*ow*k*k window taps.
struct PoolShape {
  uint32_t c, h, wd, k, s, p;
  uint32_t oh() const { return (h + 2 * p - k) / s + 1; }
  uint32_t ow() const { return (wd + 2 * p - k) / s + 1; }
  ops::Work4 work() const { return ops::pool_work(c, h, wd, oh(), ow(), k, k, s, s, int32_t(p), int32_t(p)); }
  std::string name() const {
    return std::to_string(c) + "x" + std::to_string(h) + "x" + std::to_string(wd) + " k" + std::to_string(k) + " s" +
           std::to_string(s) + " p" + std::to_string(p);
  }
};

// codelet: maxpool2d or avgpool2d.
uint64_t pool_cycles(const PoolShape& p, const std::string& codelet) {
  Graph g = small();
  Tensor x = on_tile0(g, {p.c, p.h, p.wd}, "x", 24), y = on_tile0(g, {p.c, p.oh(), p.ow()}, "y", 25);
  const ComputeSet cs = g.add_compute_set("cs");
  const Vertex v = g.add_vertex(cs, codelet, 0);
  g.connect(v, "y", y);
  g.connect(v, "x", x);
  const char* names[] = {"c", "h", "wd", "oh", "ow", "kh", "kw", "sh", "sw"};
  const uint32_t values[] = {p.c, p.h, p.wd, p.oh(), p.ow(), p.k, p.k, p.s, p.s};
  for (int i = 0; i < 9; ++i) g.set_field(v, names[i], values[i]);
  if (codelet == "maxpool2d") {
    g.set_field(v, "ph", p.p);
    g.set_field(v, "pw", p.p);
  } else {
    for (const char* f : {"pt", "pl", "pb", "pr"}) g.set_field(v, f, p.p);
    g.set_field(v, "count_include_pad", 1);
  }
  return measure(g, cs);
}

// ewise2 (element-wise, op) or ewise1 (op), n elements.
uint64_t ewise_cycles(const std::string& codelet, uint32_t n, uint32_t op) {
  Graph g = small();
  Tensor a = on_tile0(g, {n}, "a", 26);
  const ComputeSet cs = g.add_compute_set("cs");
  const Vertex v = g.add_vertex(cs, codelet, 0);
  g.connect(v, "dst", a);
  if (codelet == "ewise2") {
    g.connect(v, "a", a);
    g.connect(v, "b", on_tile0(g, {n}, "b", 27));
    // element-wise at some sizes, per channel (b of 8, each for n/8 elements) at others
    const bool per_channel = n == 64 || n == 1024;
    g.set_field(v, "bn", per_channel ? 8 : n);
    g.set_field(v, "inner", per_channel ? n / 8 : 1);
  } else {
    g.connect(v, "src", a);
    g.set_field_f32(v, "p0", 0.01f);
    g.set_field_f32(v, "p1", 6.0f);
  }
  g.set_field(v, "n", n);
  g.set_field(v, "op", op);
  return measure(g, cs);
}

struct Point {
  std::string what;
  double work, cycles;
};

struct Fit {
  double a = 0, b = 0, worst = 0;  // worst relative error over the points
};

Fit fit(const std::string& name, const std::vector<Point>& pts) {
  // Weighted by 1 / cycles^2: least squares of the relative error, so that small vertices
  // (many of them in a plan) count as much as large ones.
  double n = 0, sw = 0, sc = 0, sww = 0, swc = 0;
  for (const Point& p : pts) {
    const double w = 1.0 / (p.cycles * p.cycles);
    n += w;
    sw += w * p.work;
    sc += w * p.cycles;
    sww += w * p.work * p.work;
    swc += w * p.work * p.cycles;
  }
  Fit f;
  f.b = (n * swc - sw * sc) / (n * sww - sw * sw);
  f.a = (sc - f.b * sw) / n;
  std::printf("%s:\n", name.c_str());
  for (const Point& p : pts) {
    const double est = f.a + f.b * p.work, err = (est - p.cycles) / p.cycles;
    f.worst = std::max(f.worst, std::fabs(err));
    std::printf("  %-22s work %8.0f  iss %8.0f  fit %8.0f  (%+.1f%%)\n", p.what.c_str(), p.work, p.cycles, est,
                100 * err);
  }
  std::printf("  fit: cycles = %.1f + %.3f * work   (worst error %.1f%%)\n\n", f.a, f.b, 100 * f.worst);
  return f;
}

// cycles = a + b . w fitted by least squares of the relative error (5 unknowns: the
// normal equations, solved by Gaussian elimination).
struct Point3 {
  std::string what;
  ops::Work4 work;
  double cycles;
};

ops::MultiCost fit3(const std::string& name, const std::vector<Point3>& pts) {
  constexpr int K = 5;
  double m[K][K + 1] = {};
  for (const Point3& p : pts) {
    const double x[K] = {1.0 / p.cycles, p.work[0] / p.cycles, p.work[1] / p.cycles, p.work[2] / p.cycles,
                         p.work[3] / p.cycles};
    for (int i = 0; i < K; ++i) {
      for (int j = 0; j < K; ++j) m[i][j] += x[i] * x[j];
      m[i][K] += x[i];  // target 1 = cycles / cycles
    }
  }
  for (int i = 0; i < K; ++i) {
    int best = i;
    for (int r = i + 1; r < K; ++r)
      if (std::fabs(m[r][i]) > std::fabs(m[best][i])) best = r;
    for (int j = 0; j <= K; ++j) std::swap(m[i][j], m[best][j]);
    for (int r = 0; r < K; ++r)
      if (r != i) {
        const double f = m[r][i] / m[i][i];
        for (int j = i; j <= K; ++j) m[r][j] -= f * m[i][j];
      }
  }
  ops::MultiCost c;
  c.a = m[0][K] / m[0][0];
  for (int i = 0; i < 4; ++i) c.b[i] = m[i + 1][K] / m[i + 1][i + 1];
  double worst = 0;
  std::printf("%s:\n", name.c_str());
  for (const Point3& p : pts) {
    const double est = c(p.work), err = (est - p.cycles) / p.cycles;
    worst = std::max(worst, std::fabs(err));
    std::printf("  %-44s iss %9.0f  fit %9.0f  (%+.1f%%)\n", p.what.c_str(), p.cycles, est, 100 * err);
  }
  std::printf("  fit: cycles = %.1f + %.3f w0 + %.3f w1 + %.3f w2 + %.3f w3  (worst error %.1f%%)\n\n", c.a, c.b[0],
              c.b[1], c.b[2], c.b[3], 100 * worst);
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  std::string firmware = std::string(TESSERA_TILE_BIN_DIR) + "/runtime/tessera-firmware.elf";
  for (int i = 1, positional = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--device" && i + 1 < argc) {
      g_device = argv[++i];
    } else if (a.starts_with("-") || positional++ > 0) {
      std::fprintf(stderr, "usage: calibrate_costs [firmware.elf] [--device URI] (devices: %s)\n",
                   registry::usages().c_str());
      return 2;
    } else {
      firmware = a;
    }
  }
  try {
    registry::check_uri(g_device);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "calibrate_costs: %s\n", e.what());
    return 2;
  }
  try {
    g_firmware = read_bytes(firmware);
    std::vector<Point> mm, rs, ew;
    const uint32_t mm_shapes[][3] = {{1, 16, 1}, {2, 32, 2},  {4, 16, 4},  {4, 64, 4},   {8, 32, 8},
                                     {8, 49, 8}, {7, 40, 9},  {13, 98, 8}, {16, 64, 16}, {25, 49, 32}};
    for (const auto& s : mm_shapes)
      mm.push_back({"matmul " + std::to_string(s[0]) + "x" + std::to_string(s[1]) + "x" + std::to_string(s[2]),
                    double(s[0]) * s[1] * s[2], double(matmul_cycles(s[0], s[1], s[2]))});
    const uint32_t rs_shapes[][2] = {{8, 1}, {8, 2}, {16, 4}, {32, 2}, {32, 8}, {64, 4}, {128, 2}, {128, 16}};
    for (const auto& s : rs_shapes)
      rs.push_back({"reduce_sum n" + std::to_string(s[0]) + " k" + std::to_string(s[1]), double(s[0]) * s[1],
                    double(reduce_sum_cycles(s[0], s[1]))});
    const uint32_t ab_shapes[][2] = {{1, 16}, {2, 32}, {4, 64}, {8, 128}, {16, 128}};
    for (const auto& s : ab_shapes)
      ew.push_back({"add_bias " + std::to_string(s[0]) + "x" + std::to_string(s[1]), double(s[0]) * s[1],
                    double(add_bias_cycles(s[0], s[1]))});
    for (uint32_t n : {16u, 64u, 256u, 1024u, 2048u})
      ew.push_back({"relu " + std::to_string(n), double(n), double(relu_cycles(n))});
    // The training codelets.
    std::vector<Point> tn, nt, rg, sx, sg;
    for (const auto& s : mm_shapes) {
      const std::string shape = std::to_string(s[0]) + "x" + std::to_string(s[1]) + "x" + std::to_string(s[2]);
      tn.push_back({"matmul_tn " + shape, double(s[0]) * s[1] * s[2], double(matmul_cycles(s[0], s[1], s[2], "matmul_tn"))});
      nt.push_back({"matmul_nt " + shape, double(s[0]) * s[1] * s[2], double(matmul_cycles(s[0], s[1], s[2], "matmul_nt"))});
    }
    for (uint32_t n : {16u, 64u, 256u, 1024u, 2048u}) {
      rg.push_back({"relu_grad " + std::to_string(n), double(n), double(relu_grad_cycles(n))});
      sg.push_back({"sgd_momentum " + std::to_string(n), double(n), double(sgd_momentum_cycles(n))});
    }
    const uint32_t sx_shapes[][2] = {{1, 10}, {2, 10}, {4, 10}, {8, 10}, {16, 10}, {32, 10}, {8, 32}};
    for (const auto& s : sx_shapes)
      sx.push_back({"softmax_xent " + std::to_string(s[0]) + "x" + std::to_string(s[1]), double(s[0]) * s[1],
                    double(softmax_xent_cycles(s[0], s[1]))});
    const Fit fm = fit("matmul (work = m*k*n)", mm);
    const Fit fr = fit("reduce_sum (work = n*k)", rs);
    const Fit fe = fit("elementwise: add_bias, relu (work = elements)", ew);
    const Fit ftn = fit("matmul_tn (work = m*k*n)", tn);
    const Fit fnt = fit("matmul_nt (work = m*k*n)", nt);
    const Fit frg = fit("relu_grad (work = n)", rg);
    const Fit fsx = fit("softmax_xent (work = rows*cols)", sx);
    const Fit fsg = fit("sgd_momentum (work = n)", sg);
    // The CNN codelets: conv layers of LeNet/AlexNet/ResNet-like proportions, small to
    // one tile's share; three counts each (ops::conv2d_work and friends).
    const ConvShape conv_shapes[] = {{1, 12, 12, 6, 5, 5, 1, 0}, {6, 14, 14, 16, 5, 5, 1, 0}, {3, 15, 15, 8, 3, 3, 2, 1},
                                     {16, 8, 8, 16, 3, 3, 1, 1}, {8, 9, 9, 4, 1, 1, 1, 0},   {3, 23, 23, 4, 7, 7, 2, 3},
                                     {32, 6, 6, 8, 3, 3, 1, 1},  {4, 10, 10, 8, 3, 3, 2, 1}, {16, 7, 7, 32, 1, 1, 2, 0},
                                     {2, 16, 16, 4, 3, 3, 1, 1}, {8, 12, 12, 8, 5, 5, 2, 2}, {64, 4, 4, 8, 3, 3, 1, 1},
                                     {3, 20, 20, 2, 11, 11, 4, 2}, {24, 5, 5, 12, 1, 1, 1, 0}};
    std::vector<Point3> cf, cgi, cgw, mp, ap;
    for (const ConvShape& c : conv_shapes) {
      const ops::ConvWorkShape w = c.work_shape();
      cf.push_back({"conv2d " + c.name(), ops::conv2d_work(w), double(conv_cycles(c, "conv2d"))});
      cgi.push_back({"grad_input " + c.name(), ops::conv2d_grad_input_work(w), double(conv_cycles(c, "conv2d_grad_input"))});
      cgw.push_back({"grad_weight " + c.name(), ops::conv2d_grad_weight_work(w), double(conv_cycles(c, "conv2d_grad_weight"))});
    }
    const PoolShape pool_shapes[] = {{6, 24, 24, 2, 2, 0}, {16, 8, 8, 2, 2, 0}, {4, 15, 15, 3, 2, 1}, {8, 7, 7, 3, 2, 1},
                                     {2, 9, 9, 3, 1, 1},   {16, 4, 4, 4, 1, 0}, {3, 27, 27, 3, 2, 0}, {1, 20, 20, 5, 3, 2},
                                     {32, 3, 3, 3, 1, 1}};
    for (const PoolShape& p : pool_shapes) {
      mp.push_back({"maxpool2d " + p.name(), p.work(), double(pool_cycles(p, "maxpool2d"))});
      ap.push_back({"avgpool2d " + p.name(), p.work(), double(pool_cycles(p, "avgpool2d"))});
    }
    std::vector<Fit> fe2, fe1;
    for (uint32_t op = 0; op < 6; ++op) {
      std::vector<Point> e;
      for (uint32_t n : {16u, 64u, 256u, 1024u, 2048u})
        e.push_back({"ewise2 op " + std::to_string(op) + " " + std::to_string(n), double(n), double(ewise_cycles("ewise2", n, op))});
      fe2.push_back(fit("ewise2 op " + std::to_string(op) + " (work = n)", e));
    }
    for (uint32_t op = 0; op < 5; ++op) {
      std::vector<Point> e;
      for (uint32_t n : {16u, 64u, 256u, 1024u, 2048u})
        e.push_back({"ewise1 op " + std::to_string(op) + " " + std::to_string(n), double(n), double(ewise_cycles("ewise1", n, op))});
      fe1.push_back(fit("ewise1 op " + std::to_string(op) + " (work = n)", e));
    }
    const ops::MultiCost fcf = fit3("conv2d (w = ops::conv2d_work)", cf);
    const ops::MultiCost fcgi = fit3("conv2d_grad_input (w = ops::conv2d_grad_input_work)", cgi);
    const ops::MultiCost fcgw = fit3("conv2d_grad_weight (w = ops::conv2d_grad_weight_work)", cgw);
    const ops::MultiCost fmp = fit3("maxpool2d (w = ops::pool_work)", mp);
    const ops::MultiCost fap = fit3("avgpool2d (w = ops::pool_work)", ap);
    std::printf("// Paste into compiler/ops/src/cost_model.cpp (kCalibrated):\n");
    std::printf("  /*matmul*/ {%.1f, %.3f},\n  /*reduce_sum*/ {%.1f, %.3f},\n  /*elementwise*/ {%.1f, %.3f},\n", fm.a,
                fm.b, fr.a, fr.b, fe.a, fe.b);
    std::printf("  /*matmul_tn*/ {%.1f, %.3f},\n  /*matmul_nt*/ {%.1f, %.3f},\n  /*relu_grad*/ {%.1f, %.3f},\n"
                "  /*softmax_xent*/ {%.1f, %.3f},\n  /*sgd_momentum*/ {%.1f, %.3f},\n",
                ftn.a, ftn.b, fnt.a, fnt.b, frg.a, frg.b, fsx.a, fsx.b, fsg.a, fsg.b);
    std::printf("// and the CNN figures:\n");
    auto multi = [](const char* name, const ops::MultiCost& c) {
      std::printf("constexpr MultiCost %s = {%.1f, {%.4f, %.4f, %.4f, %.4f}};\n", name, c.a, c.b[0], c.b[1], c.b[2],
                  c.b[3]);
    };
    multi("kConv2d", fcf);
    multi("kConv2dGradInput", fcgi);
    multi("kConv2dGradWeight", fcgw);
    multi("kMaxpool2d", fmp);
    multi("kAvgpool2d", fap);
    std::printf("constexpr std::array<LinearCost, 6> kEwise2 = {{");
    for (const Fit& f : fe2) std::printf("{%.1f, %.3f}%s", f.a, f.b, &f == &fe2.back() ? "}};\n" : ", ");
    std::printf("constexpr std::array<LinearCost, 5> kEwise1 = {{");
    for (const Fit& f : fe1) std::printf("{%.1f, %.3f}%s", f.a, f.b, &f == &fe1.back() ? "}};\n" : ", ");
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "calibrate_costs: %s\n", e.what());
    return 1;
  }
}
