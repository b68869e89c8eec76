// Calibrates the matmul planner's cost model (compiler/ops/src/cost_model.cpp) against the
// ISS: for each codelet the planner models, 1-tile graphs (one vertex on tile 0 of the
// `small` target, its tensors on that tile) are compiled and run in ISS mode, the compute
// cycles of the vertex's superstep are read from Machine::profile(), and a + b * work is
// fitted by least squares (of the relative error). Prints every point, the fit and its worst relative error, and the
// lines to paste into cost_model.cpp's calibrated table.
//
//   calibrate_costs [firmware.elf]     (default: the build's runtime/tessera-firmware.elf)
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "tessera/emu/machine.h"
#include "tessera/graph/graph.h"
#include "tessera/passes/passes.h"
#include "tessera/runtime/engine.h"

using namespace tessera;
using namespace tessera::graph;

namespace {

std::vector<uint8_t> g_firmware;

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
  const emu::ElfImage elf = emu::parse_elf(o.firmware, "firmware");
  o.layout = {elf.symbol("tessera_tile_header"), elf.symbol("__firmware_end")};
  const exe::Executable e = passes::compile(g, o);
  emu::MachineOptions mo;
  mo.target = arch::find_target(e.target);
  mo.mode = emu::Mode::kIss;
  emu::Machine m(mo);
  m.load_firmware(emu::parse_elf(e.firmware, "firmware"));
  runtime::Engine engine(m, e);
  engine.load();
  engine.run("main", std::chrono::seconds(60));
  if (std::getenv("CALIBRATE_VERBOSE"))
    for (const emu::SuperstepProfile& s : m.profile())
      std::printf("    superstep %u kind %u compute %llu exchange %llu tile0 %u\n", s.superstep, s.kind,
                  static_cast<unsigned long long>(s.compute_cycles), static_cast<unsigned long long>(s.exchange_cycles),
                  s.tile_cycles.at(0));
  if (m.profile().size() != 2) throw std::runtime_error("expected 2 profiled supersteps, got " +
                                                        std::to_string(m.profile().size()));
  return m.profile()[1].tile_cycles.at(0);
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

}  // namespace

int main(int argc, char** argv) {
  try {
    g_firmware = read_bytes(argc > 1 ? argv[1]
                                     : std::string(TESSERA_TILE_BIN_DIR) + "/runtime/tessera-firmware.elf");
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
    std::printf("// Paste into compiler/ops/src/cost_model.cpp (kCalibrated):\n");
    std::printf("  /*matmul*/ {%.1f, %.3f},\n  /*reduce_sum*/ {%.1f, %.3f},\n  /*elementwise*/ {%.1f, %.3f},\n", fm.a,
                fm.b, fr.a, fr.b, fe.a, fe.b);
    std::printf("  /*matmul_tn*/ {%.1f, %.3f},\n  /*matmul_nt*/ {%.1f, %.3f},\n  /*relu_grad*/ {%.1f, %.3f},\n"
                "  /*softmax_xent*/ {%.1f, %.3f},\n  /*sgd_momentum*/ {%.1f, %.3f},\n",
                ftn.a, ftn.b, fnt.a, fnt.b, frg.a, frg.b, fsx.a, fsx.b, fsg.a, fsg.b);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "calibrate_costs: %s\n", e.what());
    return 1;
  }
}
