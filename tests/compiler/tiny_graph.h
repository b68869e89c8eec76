// A tiny graph on the `tiny` target (4 tiles) that touches every program kind: a host
// write, a compute set on every tile inside a Repeat, a Copy split along both tensors'
// intervals, an If on a flag, a host read, and a second named program.
#pragma once

#include "tessera/graph/graph.h"

namespace tessera::testing {

inline graph::Graph tiny_graph() {
  using namespace graph;
  Graph g(*arch::find_target("tiny"));
  Tensor a = g.add_variable(DType::kF32, {8}, "a");
  g.map_linearly(a, 2);  // 2 elements per tile
  Tensor b = g.add_variable(DType::kF32, {2, 4}, "b");
  g.set_tile_mapping(b.flatten().slice(0, 4), 1);
  g.set_tile_mapping(b.flatten().slice(4, 8), 2);
  Tensor flag = g.add_variable(DType::kU32, {1}, "flag");
  g.set_tile_mapping(flag, 3);
  g.set_initial_words(flag, {1});

  ComputeSet twice = g.add_compute_set("twice");
  for (uint32_t t = 0; t < 4; ++t) {
    Vertex v = g.add_vertex(twice, "add", t);
    const Tensor part = a.slice(2 * t, 2 * t + 2);
    g.connect(v, "dst", part);
    g.connect(v, "a", part);
    g.connect(v, "b", part);
    g.set_field(v, "n", 2);
  }
  ComputeSet half = g.add_compute_set("half");
  for (uint32_t t : {1u, 2u}) {
    Vertex v = g.add_vertex(half, "scale", t);
    const Tensor part = b.flatten().slice(4 * (t - 1), 4 * t);
    g.connect(v, "dst", part);
    g.connect(v, "src", part);
    g.set_field(v, "n", 4);
    g.set_field_f32(v, "scale", 0.5f);
  }
  Stream in = g.add_stream("in", DType::kF32, {8});
  Stream out = g.add_stream("out", DType::kF32, {2, 4});
  g.add_program("main", Sequence({HostWrite(in, a), Repeat(2, Execute(twice)), Copy(a, b.flatten()),
                                  If(flag, Execute(half)), HostRead(out, b)}));
  g.add_program("back", Sequence({Copy(b.flatten().slice(0, 4), a.slice(4, 8)), Copy(b.flatten().slice(4, 8), a.slice(0, 4)),
                                  HostRead(out, b)}));
  return g;
}

}  // namespace tessera::testing
