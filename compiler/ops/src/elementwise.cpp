#include "tessera/ops/elementwise.h"

#include <algorithm>
#include <cstdint>
#include <map>

namespace tessera::ops {

using graph::Execute;
using graph::GraphError;
using graph::Tensor;

namespace {

// The runs of `x` on tiles, as views of x's variable.
std::vector<std::pair<uint32_t, Tensor>> runs(const graph::Graph& g, const Tensor& x) {
  std::vector<std::pair<uint32_t, Tensor>> out;
  const Tensor flat = x.flatten();
  for (const graph::Interval& i : g.intervals(x))
    out.push_back({i.tile, flat.slice(i.begin - x.begin, i.end - x.begin)});
  return out;
}

}  // namespace

namespace {

// Each tile's runs of x and the span of columns [lo, hi) they cover.
struct TileRuns {
  std::vector<Tensor> runs;
  uint32_t lo = UINT32_MAX, hi = 0;
};
std::map<uint32_t, TileRuns> runs_by_tile(const graph::Graph& g, const Tensor& x) {
  const uint32_t n = x.shape.back();
  std::map<uint32_t, TileRuns> out;
  for (auto& [tile, run] : runs(g, x)) {
    TileRuns& t = out[tile];
    const uint32_t begin = run.begin - x.begin, end = run.end - x.begin;
    const bool whole = end - begin >= n || begin / n != (end - 1) / n;  // a row boundary inside
    t.lo = std::min(t.lo, whole ? 0 : begin % n);
    t.hi = std::max(t.hi, whole ? n : (end - 1) % n + 1);
    t.runs.push_back(run);
  }
  return out;
}

// The add_bias vertices of x's runs; `bias_on(tile, lo, hi)` gives bias[lo, hi) on a tile,
// the columns its runs of x cover (so a tile holding a few columns keeps only their bias).
template <typename BiasOn>
void add_bias_vertices(graph::Graph& g, graph::Program& prog, const Tensor& x, const std::string& name,
                       BiasOn&& bias_on) {
  const uint32_t n = x.shape.back();
  const graph::ComputeSet cs = g.add_compute_set(name);
  for (const auto& [tile, t] : runs_by_tile(g, x)) {
    const Tensor bias = bias_on(tile, t.lo, t.hi);
    for (const Tensor& run : t.runs) {
      // Split the run at row boundaries: whole rows in one vertex, partial rows on their own.
      const uint32_t begin = run.begin - x.begin, end = run.end - x.begin;
      for (uint32_t at = begin; at < end;) {
        const uint32_t col = at % n;
        uint32_t rows = 1, cols = std::min(n - col, end - at);
        if (col == 0 && end - at >= n) {
          rows = (end - at) / n;
          cols = n;
        }
        const Tensor seg = x.flatten().slice(at, at + rows * cols);
        const graph::Vertex v = g.add_vertex(cs, "add_bias", tile);
        g.connect(v, "dst", seg);
        g.connect(v, "src", seg);
        g.connect(v, "bias", bias.slice(col - t.lo, col - t.lo + cols));
        g.set_field(v, "rows", rows);
        g.set_field(v, "cols", cols);
        at += rows * cols;
      }
    }
  }
  prog.add(Execute(cs));
}

}  // namespace

void add_bias(graph::Graph& g, graph::Program& prog, const Tensor& x, const std::vector<float>& bias,
              const std::string& name) {
  const uint32_t n = x.shape.back();
  if (bias.size() != n)
    throw GraphError("add_bias '" + name + "': bias has " + std::to_string(bias.size()) + " values for rows of " +
                     std::to_string(n));
  add_bias_vertices(g, prog, x, name, [&](uint32_t tile, uint32_t lo, uint32_t hi) {
    Tensor b = g.add_variable(exe::DType::kF32, {hi - lo}, name + ".bias@" + std::to_string(tile));
    g.set_tile_mapping(b, tile);
    g.set_initial_value(b, std::vector<float>(bias.begin() + lo, bias.begin() + hi));
    return b;
  });
}

void add_bias(graph::Graph& g, graph::Program& prog, const Tensor& x, const Tensor& bias, const std::string& name) {
  const uint32_t n = x.shape.back();
  if (bias.size() != n)
    throw GraphError("add_bias '" + name + "': bias " + g.describe(bias) + " has " + std::to_string(bias.size()) +
                     " values for rows of " + std::to_string(n));
  // The copies are made before the vertices' compute set runs.
  graph::Program copies = graph::Sequence();
  graph::Program vertices = graph::Sequence();
  add_bias_vertices(g, vertices, x, name, [&](uint32_t tile, uint32_t lo, uint32_t hi) {
    const Tensor part = bias.flatten().slice(lo, hi);
    const std::vector<graph::Interval> iv = g.intervals(part);
    if (iv.size() == 1 && iv[0].tile == tile) return part;  // read in place
    Tensor b = g.add_variable(exe::DType::kF32, {hi - lo}, name + ".bias@" + std::to_string(tile));
    g.set_tile_mapping(b, tile);
    copies.add(graph::Copy(part, b));
    return b;
  });
  for (graph::Program& p : copies.body) prog.add(std::move(p));
  for (graph::Program& p : vertices.body) prog.add(std::move(p));
}

void relu(graph::Graph& g, graph::Program& prog, const Tensor& x, const std::string& name) {
  const graph::ComputeSet cs = g.add_compute_set(name);
  for (const auto& [tile, run] : runs(g, x)) {
    const graph::Vertex v = g.add_vertex(cs, "relu", tile);
    g.connect(v, "dst", run);
    g.connect(v, "src", run);
    g.set_field(v, "n", run.size());
  }
  prog.add(Execute(cs));
}

Tensor argmax(graph::Graph& g, graph::Program& prog, const Tensor& x, const std::string& name) {
  if (x.shape.size() != 2) throw GraphError("argmax '" + name + "': needs a matrix, got " + graph::shape_string(x.shape));
  const uint32_t m = x.shape[0], n = x.shape[1];
  Tensor out = g.add_variable(exe::DType::kU32, {m}, name);
  const graph::ComputeSet cs = g.add_compute_set(name);
  for (const auto& [tile, run] : runs(g, x)) {
    const uint32_t begin = run.begin - x.begin, end = run.end - x.begin;
    if (begin % n || end % n)
      throw GraphError("argmax '" + name + "': rows of " + g.describe(x) + " are split across tiles at element " +
                       std::to_string(begin % n ? begin : end));
    const uint32_t r0 = begin / n, r1 = end / n;
    g.set_tile_mapping(out.slice(r0, r1), tile);
    const graph::Vertex v = g.add_vertex(cs, "argmax", tile);
    g.connect(v, "out", out.slice(r0, r1));
    g.connect(v, "src", run);
    g.set_field(v, "rows", r1 - r0);
    g.set_field(v, "cols", n);
  }
  prog.add(Execute(cs));
  return out;
}

}  // namespace tessera::ops
