#include "tessera/ops/softmax.h"

namespace tessera::ops {

using graph::GraphError;
using graph::Tensor;

void softmax(graph::Graph& g, graph::Program& prog, const Tensor& x, const std::string& name) {
  if (x.shape.size() != 2) throw GraphError("softmax '" + name + "': needs a matrix, got " + graph::shape_string(x.shape));
  const uint32_t n = x.shape[1];
  const graph::ComputeSet cs = g.add_compute_set(name);
  const Tensor flat = x.flatten();
  for (const graph::Interval& i : g.intervals(x)) {
    const uint32_t begin = i.begin - x.begin, end = i.end - x.begin;
    if (begin % n || end % n)
      throw GraphError("softmax '" + name + "': rows of " + g.describe(x) + " are split across tiles at element " +
                       std::to_string(begin % n ? begin : end));
    const Tensor run = flat.slice(begin, end);
    const graph::Vertex v = g.add_vertex(cs, "softmax", i.tile);
    g.connect(v, "dst", run);
    g.connect(v, "src", run);
    g.set_field(v, "rows", (end - begin) / n);
    g.set_field(v, "cols", n);
  }
  prog.add(graph::Execute(cs));
}

}  // namespace tessera::ops
