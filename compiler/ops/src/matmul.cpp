// Planning and lowering of C = A * B (see matmul.h).
#include "tessera/ops/matmul.h"

#include "matmul_detail.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tessera::ops {

using graph::Copy;
using graph::Execute;
using graph::GraphError;
using graph::Tensor;

namespace {

// [begin, end) of part i when `total` is split into `parts` near-equal runs.
uint32_t split_begin(uint32_t total, uint32_t parts, uint32_t i) {
  return static_cast<uint32_t>(uint64_t{total} * i / parts);
}

uint32_t ceil_div(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

bool unmapped(const graph::Graph& g, const Tensor& t) {
  const auto& tiles = g.variables().at(t.var).tile;
  return std::all_of(tiles.begin() + t.begin, tiles.begin() + t.end, [](int32_t x) { return x < 0; });
}

}  // namespace

MatMulPlan estimate_matmul(uint32_t m, uint32_t k, uint32_t n, uint32_t pm, uint32_t pk, uint32_t pn,
                           const CostModel& cost) {
  MatMulPlan p{pm, pk, pn, 0, 0};
  const double bm = ceil_div(m, pm), bk = ceil_div(k, pk), bn = ceil_div(n, pn);
  const double reduce_rows = std::ceil(bm / pk);
  p.compute = cost.matmul(bm * bk * bn) + reduce_rows * cost.reduce_sum(bn * pk);
  // Gather: every tile receives its A block, and its B block unless B can stay put.
  const double b_words = (pm == 1 && pn == 1) ? 0.0 : bk * bn;
  const double gather = bm * bk + b_words;
  // Reduce: a tile sends its partial block and receives pk slices of its rows.
  const double reduce = std::max(bm * bn, pk * reduce_rows * bn);
  p.exchange = cost.exchange(gather) + cost.exchange(reduce) + 4 * cost.superstep;
  // A and B blocks, the partial, the gathered partial rows and the rows of C it reduces.
  p.bytes = 4 * (bm * bk + bk * bn + bm * bn + reduce_rows * (pk + 1) * bn);
  // A weight placed by the op stays on tile (0, ik, in) besides the copies the plan makes.
  if (pm > 1 || pn > 1) p.bytes += 4 * bk * bn;
  return p;
}

MatMulPlan plan_matmul(uint32_t m, uint32_t k, uint32_t n, uint32_t tiles, const CostModel& cost, uint32_t max_pn,
                       double max_bytes) {
  MatMulPlan best, smallest;
  double best_cycles = std::numeric_limits<double>::infinity();
  smallest.bytes = std::numeric_limits<double>::infinity();
  for (uint32_t pm = 1; pm <= std::min(m, tiles); ++pm)
    for (uint32_t pk = 1; pk <= std::min(k, tiles / pm); ++pk)
      for (uint32_t pn = 1; pn <= std::min({n, tiles / (pm * pk), max_pn}); ++pn) {
        const MatMulPlan p = estimate_matmul(m, k, n, pm, pk, pn, cost);
        if (p.bytes < smallest.bytes) smallest = p;
        if (p.bytes > max_bytes) continue;
        if (p.total() < best_cycles - 1e-9) {
          best_cycles = p.total();
          best = p;
        }
      }
  return best_cycles < std::numeric_limits<double>::infinity() ? best : smallest;
}

Tensor matmul(graph::Graph& g, graph::Program& prog, const Tensor& a, const Tensor& b, const MatMulPlan& plan,
              const std::string& name) {
  if (a.shape.size() != 2 || b.shape.size() != 2 || a.shape[1] != b.shape[0])
    throw GraphError("matmul '" + name + "': shapes " + graph::shape_string(a.shape) + " and " +
                     graph::shape_string(b.shape) + " do not multiply");
  return detail::matmul_general(g, prog, a, b, false, false, plan, name);
}

namespace detail {

Tensor matmul_general(graph::Graph& g, graph::Program& prog, const Tensor& a, const Tensor& b, bool ta, bool tb,
                      const MatMulPlan& plan, const std::string& name) {
  // op(a) is m x k, op(b) k x n; a is stored k x m when ta, b n x k when tb.
  const uint32_t m = ta ? a.shape[1] : a.shape[0], k = ta ? a.shape[0] : a.shape[1];
  const uint32_t n = tb ? b.shape[0] : b.shape[1];
  const uint32_t pm = plan.pm, pk = plan.pk, pn = plan.pn;
  if (pm == 0 || pk == 0 || pn == 0 || pm > m || pk > k || pn > n || plan.tiles() > g.target().tiles)
    throw GraphError("matmul '" + name + "': plan does not fit the shapes or the target");
  const bool place_b = !ta && !tb && unmapped(g, b);
  const char* codelet = ta ? "matmul_tn" : tb ? "matmul_nt" : "matmul";
  auto tile_of = [&](uint32_t im, uint32_t ik, uint32_t in) { return (im * pk + ik) * pn + in; };
  const std::string at = "@";

  // B's blocks: a weight not yet placed goes row by row to tile (0, ik, in), where it is
  // used as it lies when pm == 1 and pn == 1 (its rows k0..k1 are then contiguous).
  if (place_b)
    for (uint32_t ik = 0; ik < pk; ++ik)
      for (uint32_t in = 0; in < pn; ++in) {
        const uint32_t k0 = split_begin(k, pk, ik), k1 = split_begin(k, pk, ik + 1);
        const uint32_t n0 = split_begin(n, pn, in), n1 = split_begin(n, pn, in + 1);
        for (uint32_t p = k0; p < k1; ++p) g.set_tile_mapping(b.slice(p * n + n0, p * n + n1), tile_of(0, ik, in));
      }

  const graph::ComputeSet partials = g.add_compute_set(name + ".partials");
  const graph::ComputeSet reduce = g.add_compute_set(name + ".reduce");
  Tensor c = g.add_variable(exe::DType::kF32, {m, n}, name);
  std::vector<Tensor> partial(plan.tiles());

  // Gather operand blocks and compute the partials.
  for (uint32_t im = 0; im < pm; ++im)
    for (uint32_t ik = 0; ik < pk; ++ik)
      for (uint32_t in = 0; in < pn; ++in) {
        const uint32_t t = tile_of(im, ik, in);
        const uint32_t m0 = split_begin(m, pm, im), m1 = split_begin(m, pm, im + 1);
        const uint32_t k0 = split_begin(k, pk, ik), k1 = split_begin(k, pk, ik + 1);
        const uint32_t n0 = split_begin(n, pn, in), n1 = split_begin(n, pn, in + 1);
        const uint32_t rows = m1 - m0, depth = k1 - k0, cols = n1 - n0;
        const std::string id = at + std::to_string(t);
        // A's block as the codelet takes it: rows x depth, or depth x rows when ta.
        Tensor ablk = g.add_variable(exe::DType::kF32, ta ? std::vector<uint32_t>{depth, rows}
                                                          : std::vector<uint32_t>{rows, depth}, name + ".a" + id);
        g.set_tile_mapping(ablk, t);
        if (ta)
          for (uint32_t p = 0; p < depth; ++p)
            prog.add(Copy(a.slice((k0 + p) * m + m0, (k0 + p) * m + m1), ablk.slice(p * rows, (p + 1) * rows)));
        else
          for (uint32_t r = 0; r < rows; ++r)
            prog.add(Copy(a.slice((m0 + r) * k + k0, (m0 + r) * k + k1), ablk.slice(r * depth, (r + 1) * depth)));
        Tensor bop;
        if (place_b && pm == 1 && pn == 1) {
          bop = b.slice(k0 * n, k1 * n);  // placed on this tile above
        } else if (tb) {
          // B's block cols x depth (rows n0..n1 of b, columns k0..k1).
          bop = g.add_variable(exe::DType::kF32, {cols, depth}, name + ".b" + id);
          g.set_tile_mapping(bop, t);
          for (uint32_t j = 0; j < cols; ++j)
            prog.add(Copy(b.slice((n0 + j) * k + k0, (n0 + j) * k + k1), bop.slice(j * depth, (j + 1) * depth)));
        } else {
          bop = g.add_variable(exe::DType::kF32, {depth, cols}, name + ".b" + id);
          g.set_tile_mapping(bop, t);
          for (uint32_t p = 0; p < depth; ++p)
            prog.add(Copy(b.slice((k0 + p) * n + n0, (k0 + p) * n + n1), bop.slice(p * cols, (p + 1) * cols)));
        }
        partial[t] = g.add_variable(exe::DType::kF32, {rows, cols}, name + ".p" + id);
        g.set_tile_mapping(partial[t], t);
        const graph::Vertex v = g.add_vertex(partials, codelet, t);
        g.connect(v, "c", partial[t]);
        g.connect(v, "a", ablk);
        g.connect(v, "b", bop);
        g.set_field(v, "m", rows);
        g.set_field(v, "k", depth);
        g.set_field(v, "n", cols);
      }
  prog.add(Execute(partials));

  // Reduce each output block over k: its rows are shared out among the block's pk tiles,
  // each gathering the pk partial rows it sums (one reduce_sum per row, straight into C).
  for (uint32_t im = 0; im < pm; ++im)
    for (uint32_t in = 0; in < pn; ++in) {
      const uint32_t m0 = split_begin(m, pm, im), rows = split_begin(m, pm, im + 1) - m0;
      const uint32_t n0 = split_begin(n, pn, in), cols = split_begin(n, pn, in + 1) - n0;
      for (uint32_t ir = 0; ir < pk; ++ir) {
        const uint32_t r0 = split_begin(rows, pk, ir), r1 = split_begin(rows, pk, ir + 1);
        if (r0 == r1) continue;
        const uint32_t t = tile_of(im, ir, in);
        Tensor gather = g.add_variable(exe::DType::kF32, {r1 - r0, pk, cols}, name + ".g" + at + std::to_string(t));
        g.set_tile_mapping(gather, t);
        for (uint32_t r = r0; r < r1; ++r) {
          const uint32_t slot = (r - r0) * pk;
          for (uint32_t j = 0; j < pk; ++j)
            prog.add(Copy(partial[tile_of(im, j, in)].slice(r * cols, (r + 1) * cols),
                          gather.slice((slot + j) * cols, (slot + j + 1) * cols)));
          const Tensor out = c.slice((m0 + r) * n + n0, (m0 + r) * n + n0 + cols);
          g.set_tile_mapping(out, t);
          const graph::Vertex v = g.add_vertex(reduce, "reduce_sum", t);
          g.connect(v, "out", out);
          g.connect(v, "in", gather.slice(slot * cols, (slot + pk) * cols));
          g.set_field(v, "n", cols);
          g.set_field(v, "k", pk);
        }
      }
    }
  prog.add(Execute(reduce));
  return c;
}

}  // namespace detail

}  // namespace tessera::ops
