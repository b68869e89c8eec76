// The training ops (training.h).
#include "tessera/ops/training.h"

#include <bit>
#include <map>
#include <tuple>

namespace tessera::ops {

using graph::Copy;
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

// Whether a and b have the same runs (tile, offsets from their starts) and store their
// elements in the same order.
bool same_layout(const graph::Graph& g, const Tensor& a, const Tensor& b) {
  if (a.size() != b.size() || g.variables()[a.var].blocking != g.variables()[b.var].blocking) return false;
  const std::vector<graph::Interval> ia = g.intervals(a), ib = g.intervals(b);
  if (ia.size() != ib.size()) return false;
  for (size_t i = 0; i < ia.size(); ++i)
    if (ia[i].tile != ib[i].tile || ia[i].begin - a.begin != ib[i].begin - b.begin ||
        ia[i].end - a.begin != ib[i].end - b.begin)
      return false;
  return true;
}

// Whether all of t lies in one run on `tile`.
bool on_tile(const graph::Graph& g, const Tensor& t, uint32_t tile) {
  const std::vector<graph::Interval> iv = g.intervals(t);
  return iv.size() == 1 && iv[0].tile == tile;
}

}  // namespace

Tensor variable_like(graph::Graph& g, exe::DType dtype, const Tensor& layout, const std::string& name) {
  const graph::Variable& lv = g.variables()[layout.var];
  const graph::Blocking bl = lv.blocking;
  if (bl.blocked() && (layout.begin != 0 || layout.end != lv.size()))
    throw GraphError("'" + name + "': laid out like part of " + g.describe(layout) + ", which is stored block by block");
  Tensor t = g.add_variable(dtype, bl.blocked() ? lv.shape : layout.shape, name);
  if (bl.blocked()) g.set_blocking(t, bl.pr, bl.pc);
  const Tensor flat = t.flatten();
  for (const graph::Interval& in : g.intervals(layout))
    g.set_tile_mapping(flat.slice(in.begin - layout.begin, in.end - layout.begin), in.tile);
  return t.reshape(layout.shape);
}

Tensor relayout(graph::Graph& g, graph::Program& prog, const Tensor& src, const Tensor& layout,
                const std::string& name) {
  if (src.size() != layout.size())
    throw GraphError("relayout '" + name + "': " + g.describe(src) + " has " + std::to_string(src.size()) +
                     " elements, the layout " + std::to_string(layout.size()));
  if (same_layout(g, src, layout)) return src;
  const Tensor dst = variable_like(g, g.variables()[src.var].dtype, layout, name).reshape(src.shape);
  const graph::Blocking &sb = g.variables()[src.var].blocking, &db = g.variables()[dst.var].blocking;
  if (sb == db) {
    prog.add(Copy(src, dst));
    return dst;
  }
  // Stored in another order (graph/blocking.h; a blocked tensor is whole): element by
  // logical element, one Copy per run stored contiguously in both.
  const Tensor sv = g.tensor(src.var), dv = g.tensor(dst.var);
  for (const graph::Blocking::Run& d : db.stored_runs(0, dst.size()))
    for (const graph::Blocking::Run& r : sb.logical_runs(src.begin + d.logical, src.begin + d.logical + d.count))
      prog.add(Copy(sv.slice(r.stored, r.stored + r.count),
                    dv.slice(d.stored + (r.logical - src.begin - d.logical), d.stored + (r.logical - src.begin - d.logical) + r.count)));
  return dst;
}

Tensor whole_rows(graph::Graph& g, graph::Program& prog, const Tensor& x, const std::string& name) {
  if (x.shape.size() != 2) throw GraphError("'" + name + "': needs a matrix, got " + graph::shape_string(x.shape));
  const uint32_t n = x.shape[1];
  bool whole = true;
  for (const graph::Interval& i : g.intervals(x)) whole = whole && (i.begin - x.begin) % n == 0 && (i.end - x.begin) % n == 0;
  if (whole) return x;
  Tensor t = g.add_variable(g.variables()[x.var].dtype, x.shape, name);
  g.map_linearly(t, n);
  prog.add(Copy(x, t));
  return t;
}

namespace {

// dst = codelet(a, b) element-wise: one vertex per run of dst on a tile, with a and b
// brought to dst's layout first. `fields` names the codelet's dst, a and b fields.
void binary_elementwise(graph::Graph& g, graph::Program& prog, const char* codelet, const char* const (&fields)[3],
                        const Tensor& dst, const Tensor& a, const Tensor& b, const std::string& name) {
  if (dst.size() != a.size() || a.size() != b.size())
    throw GraphError(std::string(codelet) + " '" + name + "': sizes differ: " + g.describe(dst) + ", " +
                     g.describe(a) + ", " + g.describe(b));
  const Tensor af = relayout(g, prog, a, dst, name + "." + fields[1]).flatten();
  const Tensor bf = relayout(g, prog, b, dst, name + "." + fields[2]).flatten();
  const graph::ComputeSet cs = g.add_compute_set(name);
  for (const auto& [tile, run] : runs(g, dst)) {
    const uint32_t s = run.begin - dst.begin, e = run.end - dst.begin;
    const graph::Vertex v = g.add_vertex(cs, codelet, tile);
    g.connect(v, fields[0], run);
    g.connect(v, fields[1], af.slice(s, e));
    g.connect(v, fields[2], bf.slice(s, e));
    g.set_field(v, "n", run.size());
  }
  prog.add(Execute(cs));
}

}  // namespace

void relu_grad(graph::Graph& g, graph::Program& prog, const Tensor& dx, const Tensor& dy, const Tensor& y,
               const std::string& name) {
  binary_elementwise(g, prog, "relu_grad", {"dx", "dy", "y"}, dx, dy, y, name);
}

void add(graph::Graph& g, graph::Program& prog, const Tensor& dst, const Tensor& a, const Tensor& b,
         const std::string& name) {
  binary_elementwise(g, prog, "add", {"dst", "a", "b"}, dst, a, b, name);
}

Tensor bias_grad(graph::Graph& g, graph::Program& prog, const Tensor& dy_in, const std::string& name,
                 const Tensor& dst) {
  if (dy_in.shape.size() != 2)
    throw GraphError("bias_grad '" + name + "': needs a matrix, got " + graph::shape_string(dy_in.shape));
  const uint32_t n = dy_in.shape[1];
  if (dst.valid() && dst.size() != n)
    throw GraphError("bias_grad '" + name + "': destination " + g.describe(dst) + " does not have " +
                     std::to_string(n) + " elements");
  const Tensor dy = whole_rows(g, prog, dy_in, name + ".rows");
  const std::vector<std::pair<uint32_t, Tensor>> rs = runs(g, dy);
  Tensor out = dst.valid() ? dst.flatten() : g.add_variable(exe::DType::kF32, {n}, name);
  if (!dst.valid()) g.set_tile_mapping(out, rs.front().first);
  const std::vector<std::pair<uint32_t, Tensor>> outs = runs(g, out);
  const graph::ComputeSet partials = g.add_compute_set(name + ".partials");
  if (rs.size() == 1 && outs.size() == 1 && outs[0].first == rs[0].first) {
    // One tile holds every row and the result: its column sums are the result.
    const graph::Vertex v = g.add_vertex(partials, "reduce_sum", rs[0].first);
    g.connect(v, "out", out);
    g.connect(v, "in", rs[0].second);
    g.set_field(v, "n", n);
    g.set_field(v, "k", rs[0].second.size() / n);
    prog.add(Execute(partials));
    return dst.valid() ? dst : out;
  }
  // Each tile's partial column sums, then, on each tile holding a run of the result, the
  // sum of the partials' columns of that run.
  const uint32_t k = static_cast<uint32_t>(rs.size());
  std::vector<Tensor> partial;
  for (const auto& [tile, run] : rs) {
    Tensor p = g.add_variable(exe::DType::kF32, {n}, name + ".p" + std::to_string(partial.size()) + "@" +
                                                          std::to_string(tile));
    g.set_tile_mapping(p, tile);
    const graph::Vertex v = g.add_vertex(partials, "reduce_sum", tile);
    g.connect(v, "out", p);
    g.connect(v, "in", run);
    g.set_field(v, "n", n);
    g.set_field(v, "k", run.size() / n);
    partial.push_back(p);
  }
  prog.add(Execute(partials));
  const graph::ComputeSet reduce = g.add_compute_set(name + ".reduce");
  for (const auto& [tile, run] : outs) {
    const uint32_t c0 = run.begin - out.begin, c1 = run.end - out.begin, w = c1 - c0;
    Tensor gather = g.add_variable(exe::DType::kF32, {k, w}, name + ".g@" + std::to_string(tile) +
                                                               (outs.size() > 1 ? "." + std::to_string(c0) : ""));
    g.set_tile_mapping(gather, tile);
    for (uint32_t j = 0; j < k; ++j) prog.add(Copy(partial[j].slice(c0, c1), gather.slice(j * w, (j + 1) * w)));
    const graph::Vertex v = g.add_vertex(reduce, "reduce_sum", tile);
    g.connect(v, "out", run);
    g.connect(v, "in", gather);
    g.set_field(v, "n", w);
    g.set_field(v, "k", k);
  }
  prog.add(Execute(reduce));
  return dst.valid() ? dst : out;
}

SoftmaxXent softmax_xent(graph::Graph& g, graph::Program& prog, const Tensor& logits, const Tensor& labels,
                         float scale, const std::string& name) {
  if (logits.shape.size() != 2 || labels.size() != logits.shape[0])
    throw GraphError("softmax_xent '" + name + "': logits " + graph::shape_string(logits.shape) + ", labels " +
                     graph::shape_string(labels.shape));
  const uint32_t m = logits.shape[0], n = logits.shape[1];
  SoftmaxXent r;
  r.loss = g.add_variable(exe::DType::kF32, {m}, name + ".loss");
  r.dlogits = variable_like(g, exe::DType::kF32, logits, name + ".dlogits");
  const graph::ComputeSet cs = g.add_compute_set(name);
  const Tensor dflat = r.dlogits.flatten();
  for (const auto& [tile, run] : runs(g, logits)) {
    const uint32_t begin = run.begin - logits.begin, end = run.end - logits.begin;
    if (begin % n || end % n)
      throw GraphError("softmax_xent '" + name + "': rows of " + g.describe(logits) +
                       " are split across tiles at element " + std::to_string(begin % n ? begin : end));
    const uint32_t r0 = begin / n, r1 = end / n;
    g.set_tile_mapping(r.loss.slice(r0, r1), tile);
    Tensor lab = labels.flatten().slice(r0, r1);
    if (!on_tile(g, lab, tile)) {
      Tensor copy = g.add_variable(exe::DType::kU32, {r1 - r0}, name + ".labels@" + std::to_string(tile) + "." +
                                                                     std::to_string(r0));
      g.set_tile_mapping(copy, tile);
      prog.add(Copy(lab, copy));
      lab = copy;
    }
    const graph::Vertex v = g.add_vertex(cs, "softmax_xent", tile);
    g.connect(v, "dlogits", dflat.slice(begin, end));
    g.connect(v, "loss", r.loss.slice(r0, r1));
    g.connect(v, "logits", run);
    g.connect(v, "labels", lab);
    g.set_field(v, "rows", r1 - r0);
    g.set_field(v, "cols", n);
    g.set_field_f32(v, "scale", scale);
  }
  prog.add(Execute(cs));
  return r;
}

SgdState sgd_momentum(graph::Graph& g, graph::Program& prog, const std::vector<SgdParam>& params,
                      const std::string& name) {
  SgdState state;
  if (params.empty()) return state;
  const graph::ComputeSet cs = g.add_compute_set(name);
  // The learning rate per tile and schedule: made (with its lr_linear vertex, first in the
  // compute set on its tile) before the tile's first update.
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, Tensor> lrs;  // (tile, lr0 bits, total) -> lr
  struct Run {
    uint32_t tile;
    Tensor w, v, g;
    const SgdParam* p;
  };
  std::vector<Run> todo;
  for (const SgdParam& p : params) {
    if (p.grad.size() != p.w.size())
      throw GraphError("sgd_momentum '" + p.name + "': gradient " + g.describe(p.grad) + " for " + g.describe(p.w));
    Tensor v = p.velocity;
    if (!v.valid()) {
      v = variable_like(g, exe::DType::kF32, p.w, p.name + ".velocity");
      g.set_initial_zeros(v);
      state.velocities.push_back(v);
    } else if (!same_layout(g, v, p.w)) {
      throw GraphError("sgd_momentum '" + p.name + "': velocity " + g.describe(v) + " is not laid out like " +
                       g.describe(p.w));
    }
    const Tensor grad = relayout(g, prog, p.grad, p.w, p.name + ".grad").flatten();
    const Tensor vf = v.flatten();
    for (const auto& [tile, run] : runs(g, p.w)) {
      const uint32_t b = run.begin - p.w.begin, e = run.end - p.w.begin;
      todo.push_back({tile, run, vf.slice(b, e), grad.slice(b, e), &p});
    }
  }
  for (const Run& r : todo) {
    const auto key = std::make_tuple(r.tile, std::bit_cast<uint32_t>(r.p->lr0), r.p->total_steps);
    if (lrs.count(key)) continue;
    const std::string id = "@" + std::to_string(r.tile) + "." + std::to_string(lrs.size());
    Tensor lr = g.add_variable(exe::DType::kF32, {1}, name + ".lr" + id);
    Tensor step = g.add_variable(exe::DType::kU32, {1}, name + ".step" + id);
    g.set_tile_mapping(lr, r.tile);
    g.set_tile_mapping(step, r.tile);
    g.set_initial_value(lr, {0.0f});
    g.set_initial_words(step, {0u});
    const graph::Vertex v = g.add_vertex(cs, "lr_linear", r.tile);
    g.connect(v, "lr", lr);
    g.connect(v, "step", step);
    g.set_field_f32(v, "lr0", r.p->lr0);
    g.set_field(v, "total", r.p->total_steps);
    lrs.emplace(key, lr);
    state.lrs.push_back(lr);
    state.steps.push_back(step);
  }
  for (const Run& r : todo) {
    const graph::Vertex v = g.add_vertex(cs, "sgd_momentum", r.tile);
    g.connect(v, "w", r.w);
    g.connect(v, "v", r.v);
    g.connect(v, "g", r.g);
    g.connect(v, "lr", lrs.at(std::make_tuple(r.tile, std::bit_cast<uint32_t>(r.p->lr0), r.p->total_steps)));
    g.set_field(v, "n", r.w.size());
    g.set_field_f32(v, "momentum", r.p->momentum);
  }
  prog.add(Execute(cs));
  return state;
}

}  // namespace tessera::ops
