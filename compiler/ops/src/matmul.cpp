// Planning and lowering of C = A * B (see matmul.h).
#include "tessera/ops/matmul.h"

#include "host_cost.h"
#include "matmul_detail.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

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
  return g.variables().at(t.var).mapping.none_mapped(t.begin, t.end);
}

const graph::Blocking& blocking(const graph::Graph& g, const Tensor& t) { return g.variables().at(t.var).blocking; }

// Logical elements [l0, l1) of `t` when they are one stored run: that run, else invalid.
Tensor logical_slice(const graph::Graph& g, const Tensor& t, uint32_t l0, uint32_t l1) {
  const graph::Blocking& bl = blocking(g, t);
  if (!bl.blocked()) return t.slice(l0, l1);
  const std::vector<graph::Blocking::Run> runs = bl.logical_runs(l0, l1);
  return runs.size() == 1 ? g.tensor(t.var).slice(runs[0].stored, runs[0].stored + runs[0].count) : Tensor{};
}

// Rows [r0, r1) x columns [c0, c1) of the matrix `t` (`cols` columns) when they are stored
// contiguously, row-major: one block of a blocked variable, or whole rows of a row-major
// one; else invalid.
Tensor contiguous_block(const graph::Graph& g, const Tensor& t, uint32_t cols, uint32_t r0, uint32_t r1,
                        uint32_t c0, uint32_t c1) {
  const graph::Blocking& bl = blocking(g, t);
  if (!bl.blocked()) return c0 == 0 && c1 == cols ? t.slice(r0 * cols, r1 * cols) : Tensor{};
  uint32_t i = 0, j = 0;
  if (!bl.is_block(r0, r1, c0, c1, i, j)) return {};
  const uint32_t at = bl.block_begin(i, j);
  return g.tensor(t.var).slice(at, at + (r1 - r0) * (c1 - c0));
}

// Copies logical elements [l0, l1) of `t` to `dst` (as many elements), one Copy per stored
// run.
void copy_logical(const graph::Graph& g, graph::Program& prog, const Tensor& t, uint32_t l0, uint32_t l1,
                  const Tensor& dst) {
  for (const graph::Blocking::Run& r : blocking(g, t).logical_runs(l0, l1))
    prog.add(Copy(g.tensor(t.var).slice(r.stored, r.stored + r.count),
                  dst.slice(r.logical - l0, r.logical - l0 + r.count)));
}

}  // namespace

MatMulPlan estimate_matmul(uint32_t m, uint32_t k, uint32_t n, uint32_t pm, uint32_t pk, uint32_t pn,
                           const CostModel& cost) {
  MatMulPlan p{pm, pk, pn, 0, 0};
  const double bm = ceil_div(m, pm), bk = ceil_div(k, pk), bn = ceil_div(n, pn);
  const double reduce_rows = std::ceil(bm / pk);
  p.compute = cost.matmul(bm * bk * bn) + reduce_rows * cost.reduce_sum(bn * pk);
  // Gather: every tile receives its A block, and its B block unless B can stay put (a weight
  // placed by the op is stored block by block: graph/blocking.h).
  const double b_words = pm == 1 ? 0.0 : bk * bn;
  const double gather = bm * bk + b_words;
  // Reduce: a tile sends its partial block and receives pk slices of its rows, both through
  // its one SRAM port.
  const double reduce = bm * bn + pk * reduce_rows * bn;
  p.exchange = cost.exchange(gather) + cost.exchange(reduce) + 4 * cost.superstep;
  // B's block (read in place or copied), the partial, and either A's block (while the
  // partials are made) or the gathered partial rows and the rows of C it reduces (after).
  p.bytes = 4 * (bk * bn + bm * bn + std::max(bm * bk, reduce_rows * (pk + 1) * bn));
  p.host_ns = detail::host_matmul_ns(double(pm) * pk * pn, bm, bk, bn, gather, pk > 1 ? pk * reduce_rows * bn : 0);
  return p;
}

MatMulPlan plan_matmul(uint32_t m, uint32_t k, uint32_t n, uint32_t tiles, const CostModel& cost, uint32_t max_pn,
                       double max_bytes, PlanFor goal) {
  MatMulPlan best, smallest;
  double best_time = std::numeric_limits<double>::infinity();
  smallest.bytes = std::numeric_limits<double>::infinity();
  for (uint32_t pm = 1; pm <= std::min(m, tiles); ++pm)
    for (uint32_t pk = 1; pk <= std::min(k, tiles / pm); ++pk)
      for (uint32_t pn = 1; pn <= std::min({n, tiles / (pm * pk), max_pn}); ++pn) {
        const MatMulPlan p = estimate_matmul(m, k, n, pm, pk, pn, cost);
        if (p.bytes < smallest.bytes) smallest = p;
        if (p.bytes > max_bytes) continue;
        if (p.time(goal) < best_time - 1e-9) {
          best_time = p.time(goal);
          best = p;
        }
      }
  return best_time < std::numeric_limits<double>::infinity() ? best : smallest;
}

Tensor matmul(graph::Graph& g, graph::Program& prog, const Tensor& a, const Tensor& b, const MatMulPlan& plan,
              const std::string& name, const MatMulOptions& o) {
  if (o.b_values) {
    if (a.shape.size() != 2 || a.shape[1] == 0 || o.b_values->size() % a.shape[1])
      throw GraphError("matmul '" + name + "': " + std::to_string(o.b_values->size()) +
                       " constant values are no whole number of rows of " + std::to_string(a.shape[1]));
    Tensor shaped = b;  // only the shape is read
    shaped.shape = {a.shape[1], static_cast<uint32_t>(o.b_values->size() / a.shape[1])};
    return detail::matmul_general(g, prog, a, shaped, false, false, plan, name, o);
  }
  if (a.shape.size() != 2 || b.shape.size() != 2 || a.shape[1] != b.shape[0])
    throw GraphError("matmul '" + name + "': shapes " + graph::shape_string(a.shape) + " and " +
                     graph::shape_string(b.shape) + " do not multiply");
  return detail::matmul_general(g, prog, a, b, false, false, plan, name, o);
}

namespace detail {

namespace {

// Rows [r0, r1) of an output block reduced on `tile`.
struct RowRun {
  uint32_t r0, r1, tile;
};

}  // namespace

Tensor matmul_general(graph::Graph& g, graph::Program& prog, const Tensor& a, const Tensor& b, bool ta, bool tb,
                      const MatMulPlan& plan, const std::string& name, const MatMulOptions& o) {
  // op(a) is m x k, op(b) k x n; a is stored k x m when ta, b n x k when tb.
  const uint32_t m = ta ? a.shape[1] : a.shape[0], k = ta ? a.shape[0] : a.shape[1];
  const uint32_t n = tb ? b.shape[0] : b.shape[1];
  const uint32_t pm = plan.pm, pk = plan.pk, pn = plan.pn;
  if (pm == 0 || pk == 0 || pn == 0 || pm > m || pk > k || pn > n || plan.tiles() > g.target().tiles)
    throw GraphError("matmul '" + name + "': plan does not fit the shapes or the target");
  if (o.c.valid() && o.c.shape != std::vector<uint32_t>{m, n})
    throw GraphError("matmul '" + name + "': destination " + g.describe(o.c) + " is not " +
                     graph::shape_string({m, n}));
  const bool baked = o.b_values != nullptr;  // B is data: each block a constant of its own
  if (baked && (ta || tb)) throw GraphError("matmul '" + name + "': constant B only for the plain product");
  const bool place_b = !baked && !ta && !tb && unmapped(g, b);
  // A blocked operand (graph/blocking.h) is used whole: its offsets are not the logical ones.
  for (const Tensor* t : {&a, &b, &o.c})
    if (t->valid() && blocking(g, *t).blocked() && (t->begin != 0 || t->end != g.variables()[t->var].size()))
      throw GraphError("matmul '" + name + "': " + g.describe(*t) + " is part of a variable stored block by block");
  const char* codelet = ta ? "matmul_tn" : tb ? "matmul_nt" : "matmul";
  auto tile_of = [&](uint32_t im, uint32_t ik, uint32_t in) {
    const uint32_t t = o.tile ? o.tile(im, ik, in) : (im * pk + ik) * pn + in;
    if (t >= g.target().tiles) throw GraphError("matmul '" + name + "': tile " + std::to_string(t) + " out of range");
    return t;
  };
  const std::string at = "@";

  // B's blocks: a weight not yet placed goes to tile (0, ik, in), where the partials of the
  // first row block read it in place. With its columns split it is stored block by block
  // (graph/blocking.h), so that each block is contiguous.
  if (place_b) {
    if (pn > 1 && b.begin == 0 && b.end == g.variables()[b.var].size()) g.set_blocking(b, pk, pn);
    for (uint32_t ik = 0; ik < pk; ++ik)
      for (uint32_t in = 0; in < pn; ++in) {
        const uint32_t k0 = split_begin(k, pk, ik), k1 = split_begin(k, pk, ik + 1);
        const uint32_t n0 = split_begin(n, pn, in), n1 = split_begin(n, pn, in + 1);
        if (const Tensor blk = contiguous_block(g, b, n, k0, k1, n0, n1); blk.valid())
          g.set_tile_mapping(blk, tile_of(0, ik, in));
        else
          for (uint32_t p = k0; p < k1; ++p) g.set_tile_mapping(b.slice(p * n + n0, p * n + n1), tile_of(0, ik, in));
      }
  }

  const graph::ComputeSet partials = g.add_compute_set(name + ".partials");
  Tensor c = o.c.valid() ? o.c : g.add_variable(exe::DType::kF32, {m, n}, name);
  std::vector<Tensor> partial(size_t{pm} * pk * pn);
  auto slot = [&](uint32_t im, uint32_t ik, uint32_t in) { return (im * pk + ik) * pn + in; };
  // With a destination and pk == 1, a block stored contiguously on its tile is written
  // directly.
  auto direct = [&](uint32_t im, uint32_t in) -> Tensor {
    if (!o.c.valid() || pk != 1) return {};
    const Tensor blk = contiguous_block(g, c, n, split_begin(m, pm, im), split_begin(m, pm, im + 1),
                                        split_begin(n, pn, in), split_begin(n, pn, in + 1));
    return blk.valid() && g.lies_on(blk, tile_of(im, 0, in)) ? blk : Tensor{};
  };

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
        Tensor* cached = o.a_blocks ? &(*o.a_blocks)[{t, m0, m1, k0, k1}] : nullptr;
        Tensor ablk;
        if (cached && cached->valid()) {
          ablk = *cached;  // gathered by an earlier product of the same A
        } else {
          ablk = g.add_variable(exe::DType::kF32, ta ? std::vector<uint32_t>{depth, rows}
                                                     : std::vector<uint32_t>{rows, depth}, name + ".a" + id);
          g.set_tile_mapping(ablk, t);
          if (ta)
            for (uint32_t p = 0; p < depth; ++p)
              copy_logical(g, prog, a, (k0 + p) * m + m0, (k0 + p) * m + m1, ablk.slice(p * rows, (p + 1) * rows));
          else
            for (uint32_t r = 0; r < rows; ++r)
              copy_logical(g, prog, a, (m0 + r) * k + k0, (m0 + r) * k + k1, ablk.slice(r * depth, (r + 1) * depth));
          if (cached) *cached = ablk;
        }
        // B's block as the codelet takes it (cols x depth when tb, else depth x cols): in
        // place when it is stored contiguously (all of b's columns, or a block of a blocked
        // b) and lies on this tile; copied whole when only contiguous.
        Tensor bop;
        const Tensor b_blk = baked ? Tensor{} : tb ? contiguous_block(g, b, k, n0, n1, k0, k1)
                                                   : contiguous_block(g, b, n, k0, k1, n0, n1);
        if (baked) {
          bop = g.add_variable(exe::DType::kF32, {depth, cols},
                               o.b_name + "[" + std::to_string(k0) + ":" + std::to_string(k1) + "," +
                                   std::to_string(n0) + ":" + std::to_string(n1) + "]" + id);
          g.set_tile_mapping(bop, t);
          std::vector<float> blk(size_t{depth} * cols);
          for (uint32_t p = 0; p < depth; ++p)
            std::copy_n(o.b_values->begin() + (size_t{k0} + p) * n + n0, cols, blk.begin() + size_t{p} * cols);
          g.set_initial_value(bop, blk);
        } else if (b_blk.valid() && g.lies_on(b_blk, t)) {
          bop = b_blk;
        } else {
          bop = g.add_variable(exe::DType::kF32, tb ? std::vector<uint32_t>{cols, depth} : std::vector<uint32_t>{depth, cols},
                               name + ".b" + id);
          g.set_tile_mapping(bop, t);
          if (b_blk.valid())
            prog.add(Copy(b_blk, bop));
          else if (tb)  // rows n0..n1 of b, columns k0..k1
            for (uint32_t j = 0; j < cols; ++j)
              copy_logical(g, prog, b, (n0 + j) * k + k0, (n0 + j) * k + k1, bop.slice(j * depth, (j + 1) * depth));
          else
            for (uint32_t p = 0; p < depth; ++p)
              copy_logical(g, prog, b, (k0 + p) * n + n0, (k0 + p) * n + n1, bop.slice(p * cols, (p + 1) * cols));
        }
        Tensor& out = partial[slot(im, ik, in)];
        out = direct(im, in);
        if (!out.valid()) {
          out = g.add_variable(exe::DType::kF32, {rows, cols}, name + ".p" + id);
          g.set_tile_mapping(out, t);
        }
        const graph::Vertex v = g.add_vertex(partials, codelet, t);
        g.connect(v, "c", out);
        g.connect(v, "a", ablk);
        g.connect(v, "b", bop);
        g.set_field(v, "m", rows);
        g.set_field(v, "k", depth);
        g.set_field(v, "n", cols);
      }
  prog.add(Execute(partials));

  // Reduce each output block over k, one reduce_sum per row straight into C, on the tile
  // that gathers the row's pk partials: without a destination the block's rows are shared
  // out among its pk tiles (and C mapped there); with one, each row goes where C holds it.
  std::optional<graph::ComputeSet> reduce;  // made if some block is reduced
  for (uint32_t im = 0; im < pm; ++im)
    for (uint32_t in = 0; in < pn; ++in) {
      if (direct(im, in).valid()) continue;
      const uint32_t m0 = split_begin(m, pm, im), rows = split_begin(m, pm, im + 1) - m0;
      const uint32_t n0 = split_begin(n, pn, in), cols = split_begin(n, pn, in + 1) - n0;
      auto row_of_c = [&](uint32_t r) {
        const uint32_t l0 = (m0 + r) * n + n0;
        const Tensor row = logical_slice(g, c, l0, l0 + cols);
        if (!row.valid())
          throw GraphError("matmul '" + name + "': row " + std::to_string(m0 + r) + " of block (" + std::to_string(im) +
                           ", " + std::to_string(in) + ") runs across the blocks of the destination " + g.describe(o.c));
        return row;
      };
      std::vector<RowRun> runs;
      if (!o.c.valid()) {
        for (uint32_t ir = 0; ir < pk; ++ir) {
          const uint32_t r0 = split_begin(rows, pk, ir), r1 = split_begin(rows, pk, ir + 1);
          if (r0 < r1) runs.push_back({r0, r1, tile_of(im, ir, in)});
        }
      } else {
        for (uint32_t r = 0; r < rows; ++r) {
          const std::vector<graph::Interval> iv = g.intervals(row_of_c(r));
          if (iv.size() != 1)
            throw GraphError("matmul '" + name + "': row " + std::to_string(m0 + r) + " of block (" +
                             std::to_string(im) + ", " + std::to_string(in) + ") of the destination " +
                             g.describe(o.c) + " is split across tiles");
          if (!runs.empty() && runs.back().tile == iv[0].tile) ++runs.back().r1;
          else runs.push_back({r, r + 1, iv[0].tile});
        }
      }
      for (const RowRun& run : runs) {
        const uint32_t t = run.tile;
        const std::string where = o.c.valid() ? "." + std::to_string(m0 + run.r0) + "." + std::to_string(n0) : "";
        Tensor gather = g.add_variable(exe::DType::kF32, {run.r1 - run.r0, pk, cols}, name + ".g" + at + std::to_string(t) + where);
        g.set_tile_mapping(gather, t);
        for (uint32_t r = run.r0; r < run.r1; ++r) {
          const uint32_t first = (r - run.r0) * pk;
          for (uint32_t j = 0; j < pk; ++j)
            prog.add(Copy(partial[slot(im, j, in)].slice(r * cols, (r + 1) * cols),
                          gather.slice((first + j) * cols, (first + j + 1) * cols)));
          const Tensor out = row_of_c(r);
          if (!o.c.valid()) g.set_tile_mapping(out, t);
          if (!reduce) reduce = g.add_compute_set(name + ".reduce");
          const graph::Vertex v = g.add_vertex(*reduce, "reduce_sum", t);
          g.connect(v, "out", out);
          g.connect(v, "in", gather.slice(first * cols, (first + pk) * cols));
          g.set_field(v, "n", cols);
          g.set_field(v, "k", pk);
        }
      }
    }
  if (reduce) prog.add(Execute(*reduce));
  return c;
}

}  // namespace detail

}  // namespace tessera::ops
