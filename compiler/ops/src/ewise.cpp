#include "tessera/ops/ewise.h"

#include <map>

namespace tessera::ops {

using graph::Tensor;

namespace {

// b is copied whole to a tile that needs it when it has at most this many elements.
constexpr uint32_t kSmallOperand = 4096;

}  // namespace

void ewise1(graph::Graph& g, graph::Program& prog, const Tensor& x, uint32_t op, float p0, float p1,
            const std::string& name) {
  const graph::ComputeSet cs = g.add_compute_set(name);
  const Tensor flat = x.flatten();
  for (const graph::Interval& in : g.intervals(x)) {
    const Tensor run = flat.slice(in.begin - x.begin, in.end - x.begin);
    const graph::Vertex v = g.add_vertex(cs, "ewise1", in.tile);
    g.connect(v, "dst", run);
    g.connect(v, "src", run);
    g.set_field(v, "n", run.size());
    g.set_field(v, "op", op);
    g.set_field_f32(v, "p0", p0);
    g.set_field_f32(v, "p1", p1);
  }
  prog.add(graph::Execute(cs));
}

void ewise2(graph::Graph& g, graph::Program& prog, const Tensor& x, const Operand2& b, uint32_t op,
            const std::string& name) {
  const uint32_t count = b.count, inner = b.inner, period = count * inner;
  const uint32_t b_size = b.tensor.valid() ? b.tensor.size() : static_cast<uint32_t>(b.values.size());
  if (b_size != count || count == 0 || inner == 0)
    throw graph::GraphError("ewise2 '" + name + "': the second operand has " + std::to_string(b_size) +
                            " elements, not " + std::to_string(count));
  graph::Program copies = graph::Sequence();
  std::map<uint32_t, Tensor> whole;  // tile -> all of b there
  uint32_t pieces = 0;
  // b's elements [c0, c1) on `tile`.
  auto b_on = [&](uint32_t tile, uint32_t c0, uint32_t c1) -> Tensor {
    const std::string at = name + ".b@" + std::to_string(tile);
    if (b.tensor.valid()) {
      const Tensor run = b.tensor.flatten().slice(c0, c1);
      const std::vector<graph::Interval> iv = g.intervals(run);
      if (iv.size() == 1 && iv[0].tile == tile) return run;
    }
    if (count <= kSmallOperand) {
      auto it = whole.find(tile);
      if (it == whole.end()) {
        Tensor t = g.add_variable(exe::DType::kF32, {count}, at);
        g.set_tile_mapping(t, tile);
        if (b.tensor.valid()) copies.add(graph::Copy(b.tensor.flatten(), t));
        else g.set_initial_value(t, b.values);
        it = whole.emplace(tile, t).first;
      }
      return it->second.slice(c0, c1);
    }
    Tensor t = g.add_variable(exe::DType::kF32, {c1 - c0}, at + "." + std::to_string(pieces));
    g.set_tile_mapping(t, tile);
    if (b.tensor.valid()) copies.add(graph::Copy(b.tensor.flatten().slice(c0, c1), t));
    else g.set_initial_value(t, std::vector<float>(b.values.begin() + c0, b.values.begin() + c1));
    return t;
  };
  graph::Program vertices = graph::Sequence();
  const graph::ComputeSet cs = g.add_compute_set(name);
  const Tensor flat = x.flatten();
  auto vertex = [&](uint32_t tile, uint32_t p, uint32_t q, uint32_t c0, uint32_t c1, uint32_t vinner) {
    const Tensor run = flat.slice(p, q);
    const graph::Vertex v = g.add_vertex(cs, "ewise2", tile);
    g.connect(v, "dst", run);
    g.connect(v, "a", run);
    g.connect(v, "b", b_on(tile, c0, c1));
    g.set_field(v, "n", q - p);
    g.set_field(v, "bn", c1 - c0);
    g.set_field(v, "inner", vinner);
    g.set_field(v, "op", op);
    ++pieces;
  };
  for (const graph::Interval& in : g.intervals(x)) {
    const uint32_t s = in.begin - x.begin, e = in.end - x.begin;
    for (uint32_t p = s; p < e;) {
      const uint32_t c = (p / inner) % count;
      if (p % inner != 0 || e - p < inner) {
        // Inside one element of b: b[c] as a scalar.
        const uint32_t q = std::min(e, (p / inner + 1) * inner);
        vertex(in.tile, p, q, c, c + 1, 1);
        p = q;
        continue;
      }
      // Whole blocks of `inner` up to the end of b's period or of the run.
      const uint32_t end = std::min(e, (p / period + 1) * period);
      const uint32_t q = p + (end - p) / inner * inner;
      vertex(in.tile, p, q, c, c + (q - p) / inner, inner);
      p = q;
    }
  }
  vertices.add(graph::Execute(cs));
  for (graph::Program& c : copies.body) prog.add(std::move(c));
  for (graph::Program& v : vertices.body) prog.add(std::move(v));
}

}  // namespace tessera::ops

#include "tile_copies.h"

namespace tessera::ops {

void ewise1_grad(graph::Graph& g, graph::Program& prog, const Tensor& dy, const Tensor& v, uint32_t op, float p0,
                 float p1, const std::string& name) {
  if (v.size() != dy.size())
    throw graph::GraphError("ewise1_grad '" + name + "': " + g.describe(v) + " and " + g.describe(dy) + " differ in size");
  detail::TileCopies tc(g, name);
  const graph::ComputeSet cs = g.add_compute_set(name);
  const Tensor flat = dy.flatten(), vflat = v.flatten();
  for (const graph::Interval& in : g.intervals(dy)) {
    const uint32_t b = in.begin - dy.begin, e = in.end - dy.begin;
    // One vertex per run of v within dy's run, v's elements on dy's tile.
    for (const graph::Interval& vi : g.intervals(vflat.slice(b, e))) {
      const uint32_t vb = vi.begin - vflat.begin, ve = vi.end - vflat.begin;
      const Tensor run = flat.slice(vb, ve);
      const graph::Vertex vx = g.add_vertex(cs, "ewise1_grad", in.tile);
      g.connect(vx, "dx", run);
      g.connect(vx, "dy", run);
      g.connect(vx, "v", tc.on(vflat.slice(vb, ve), in.tile));
      g.set_field(vx, "n", ve - vb);
      g.set_field(vx, "op", op);
      g.set_field_f32(vx, "p0", p0);
      g.set_field_f32(vx, "p1", p1);
    }
  }
  tc.finish(prog, graph::Execute(cs));
}

}  // namespace tessera::ops
