// Initialisation on the device (init.h).
#include "tessera/ops/init.h"

#include <bit>
#include <cmath>
#include <map>

namespace tessera::ops {

using graph::GraphError;
using graph::Tensor;

namespace {

// The runs of `t` on tiles: (tile, logical offset of the run in t, the run as a view); a
// blocked variable's (graph/blocking.h, whole) split where its logical order jumps.
struct Run {
  uint32_t tile, offset;
  Tensor view;
};
std::vector<Run> runs_of(const graph::Graph& g, const Tensor& t, const std::string& what) {
  const Tensor flat = t.flatten();
  const graph::Blocking& bl = g.variables()[t.var].blocking;
  std::vector<Run> out;
  uint32_t covered = 0;
  for (const graph::Interval& i : g.intervals(t)) {
    for (const graph::Blocking::Run& r : bl.stored_runs(i.begin - t.begin, i.end - t.begin))
      out.push_back({i.tile, r.logical, flat.slice(r.stored, r.stored + r.count)});
    covered += i.end - i.begin;
  }
  if (covered != t.size()) throw GraphError(what + ": " + g.describe(t) + " is not mapped to tiles in full");
  return out;
}

}  // namespace

void init_tensors(graph::Graph& g, graph::Program& prog, const Tensor& seed, const std::vector<UniformInit>& uniform,
                  const std::vector<Tensor>& zero, const std::string& name) {
  if (!seed.valid() || seed.size() != 1 || g.variables()[seed.var].dtype != exe::DType::kU32)
    throw GraphError("init '" + name + "': the seed must be one u32 word");
  const std::vector<graph::Interval> seed_at = g.intervals(seed);
  if (seed_at.size() != 1) throw GraphError("init '" + name + "': the seed " + g.describe(seed) + " is not mapped");
  std::map<uint32_t, Tensor> seeds{{seed_at[0].tile, seed}};  // tile -> the seed word there

  struct Vertex {
    Run run;
    const UniformInit* u;
  };
  std::vector<Vertex> todo;
  for (const UniformInit& u : uniform) {
    const std::string what = "init '" + name + "' uniform " + (u.t.valid() ? g.describe(u.t) : std::string("?"));
    if (!u.t.valid() || g.variables()[u.t.var].dtype != exe::DType::kF32) throw GraphError(what + ": needs an f32 tensor");
    const double width = double(u.hi) - double(u.lo);
    if (!std::isfinite(width) || double(float(width)) != width || width < 0x1p-102)
      throw GraphError(what + ": hi - lo = " + std::to_string(width) + " is not a finite f32 of at least 2^-102, exact");
    for (const Run& r : runs_of(g, u.t, what)) {
      if (!seeds.count(r.tile)) {
        Tensor copy = g.add_variable(exe::DType::kU32, {1}, name + ".seed@" + std::to_string(r.tile));
        g.set_tile_mapping(copy, r.tile);
        prog.add(graph::Copy(seed, copy));
        seeds.emplace(r.tile, copy);
      }
      todo.push_back({r, &u});
    }
  }
  const graph::ComputeSet cs = g.add_compute_set(name);
  for (const Vertex& v : todo) {
    const graph::Vertex x = g.add_vertex(cs, "rng_uniform", v.run.tile);
    g.connect(x, "out", v.run.view);
    g.connect(x, "seed", seeds.at(v.run.tile));
    g.set_field(x, "n", v.run.view.size());
    g.set_field(x, "first", v.run.offset);
    g.set_field(x, "stream", v.u->stream);
    g.set_field_f32(x, "lo", v.u->lo);
    g.set_field_f32(x, "step", float(double(v.u->hi) - double(v.u->lo)) * 0x1p-24f);
  }
  for (const Tensor& t : zero) {
    const std::string what = "init '" + name + "' zero " + (t.valid() ? g.describe(t) : std::string("?"));
    if (!t.valid()) throw GraphError(what + ": not a tensor");
    for (const Run& r : runs_of(g, t, what)) {
      const graph::Vertex x = g.add_vertex(cs, "fill", r.tile);
      g.connect(x, "dst", r.view);
      g.set_field(x, "n", r.view.size());
      g.set_field(x, "value", 0u);
    }
  }
  prog.add(graph::Execute(cs));
}

}  // namespace tessera::ops
