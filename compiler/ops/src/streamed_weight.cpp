// A matmul weight in device memory for training (streamed_weight.h).
#include "tessera/ops/streamed_weight.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

#include "tessera/graph/blocking.h"
#include "tessera/ops/matmul.h"
#include "tessera/ops/training.h"
#include "streaming_detail.h"

namespace tessera::ops {

using graph::GraphError;
using graph::Tensor;

namespace {

std::vector<LayerProduct> products(uint32_t batch) {
  return {{LayerProduct::kForward, batch}, {LayerProduct::kInputGrad, batch}, {LayerProduct::kWeightGrad, batch}};
}

double block_bytes(uint32_t k, uint32_t cols, const LayerPlan& p) {
  return 4.0 * std::ceil(double(k) / p.pk) * std::ceil(double(cols) / p.pn);
}

// How a chunk [k, cols] under plan `p` is stored: block by block when its columns are split.
graph::Blocking blocking(uint32_t k, uint32_t cols, const LayerPlan& p) {
  return p.pn > 1 ? graph::Blocking{k, cols, p.pk, p.pn} : graph::Blocking{};
}

}  // namespace

StreamedWeight::StreamedWeight(graph::Graph& g, uint32_t batch, uint32_t k, const std::vector<float>& values,
                               const CostModel& cost, double chunk_bytes_per_tile, double max_bytes, std::string name)
    : batch_(batch), k_(k), cost_(cost) {
  if (k == 0 || batch == 0 || values.empty() || values.size() % k)
    throw GraphError("streamed weight '" + name + "': " + std::to_string(values.size()) +
                     " values are no whole number of rows of " + std::to_string(k));
  n_ = static_cast<uint32_t>(values.size() / k);
  const uint32_t tiles = g.target().tiles;
  const std::vector<LayerProduct> prods = products(batch);
  auto plan = [&](uint32_t cols) { return plan_layer(k, cols, prods, tiles, cost, max_bytes); };
  // The widest chunk whose blocks fit the buffer: from the even spread down.
  uint32_t cols = std::clamp<uint32_t>(static_cast<uint32_t>(chunk_bytes_per_tile * tiles / (4.0 * k)), 1, n_);
  while (cols > 1 && block_bytes(k, cols, plan(cols)) > chunk_bytes_per_tile)
    cols = std::min(cols - 1, static_cast<uint32_t>(cols * 0.9));
  if (block_bytes(k, cols, plan(cols)) > chunk_bytes_per_tile)
    throw GraphError("streamed weight '" + name + "': one column of " + std::to_string(k) + " rows takes " +
                     std::to_string(static_cast<uint64_t>(block_bytes(k, cols, plan(cols)))) +
                     " bytes of a tile, more than a chunk's " + std::to_string(static_cast<uint64_t>(chunk_bytes_per_tile)));
  const uint32_t count = (n_ + cols - 1) / cols;
  // Where W's elements lie in the chunks' device memory, for the host to read it back.
  graph::DeviceParameterData readback{name, exe::DType::kF32, {k, n_}, {}};
  for (uint32_t c = 0; c < count; ++c) {
    Chunk ch;
    ch.n0 = graph::Blocking::split(n_, count, c), ch.n1 = graph::Blocking::split(n_, count, c + 1);
    ch.plan = plan(ch.n1 - ch.n0);
    const std::string id = name + ".chunk" + std::to_string(c);
    const std::vector<uint32_t> words =
        detail::chunk_words(blocking(k, ch.n1 - ch.n0, ch.plan), k, values, n_, ch.n0, ch.n1);
    ch.values = g.add_device_memory_stream(id + ".w", exe::DType::kF32, {k, ch.n1 - ch.n0}, words);
    ch.velocity = g.add_zeroed_device_memory_stream(id + ".v", exe::DType::kF32, {k, ch.n1 - ch.n0});
    chunk_runs(ch, readback.runs);
    chunks_.push_back(std::move(ch));
  }
  g.add_device_parameter(std::move(readback));
}

void StreamedWeight::chunk_runs(const Chunk& ch, std::vector<graph::DeviceParameterData::Run>& out) const {
  const uint32_t cols = ch.n1 - ch.n0;
  const graph::Blocking bl = blocking(k_, cols, ch.plan);
  if (!bl.blocked()) {  // the chunk row-major: its k rows of W's columns n0..n1
    out.push_back({ch.values.id, 0, ch.n0, cols, k_, n_});
    return;
  }
  // Each block row-major and contiguous where it is stored (blocking.h).
  for (uint32_t i = 0; i < bl.pr; ++i)
    for (uint32_t j = 0; j < bl.pc; ++j) {
      const uint32_t r0 = bl.row_begin(i), c0 = bl.col_begin(j);
      out.push_back({ch.values.id, bl.block_begin(i, j), r0 * n_ + ch.n0 + c0, bl.col_begin(j + 1) - c0,
                     bl.row_begin(i + 1) - r0, n_});
    }
}

Tensor StreamedWeight::buffer(graph::Graph& g, const Chunk& c, const std::string& name) const {
  const uint32_t cols = c.n1 - c.n0, pk = c.plan.pk, pn = c.plan.pn;
  Tensor t = g.add_variable(exe::DType::kF32, {k_, cols}, name);
  const graph::Blocking bl = blocking(k_, cols, c.plan);
  if (bl.blocked()) g.set_blocking(t, pk, pn);
  // Block (ik, in) on tile ik * pn + in (layer_plan.h), contiguous as stored.
  for (uint32_t ik = 0; ik < pk; ++ik)
    for (uint32_t in = 0; in < pn; ++in) {
      const uint32_t k0 = graph::Blocking::split(k_, pk, ik), k1 = graph::Blocking::split(k_, pk, ik + 1);
      const uint32_t n0 = graph::Blocking::split(cols, pn, in), n1 = graph::Blocking::split(cols, pn, in + 1);
      const uint32_t at = bl.blocked() ? bl.block_begin(ik, in) : k0 * cols;
      g.set_tile_mapping(t.flatten().slice(at, at + (k1 - k0) * (n1 - n0)), ik * pn + in);
    }
  return t;
}

Tensor StreamedWeight::forward(graph::Graph& g, graph::Program& prog, const Tensor& x, bool whole_rows,
                               const std::string& name) const {
  if (x.shape.size() != 2 || x.shape[1] != k_)
    throw GraphError("streamed weight '" + name + "': X " + graph::shape_string(x.shape) + " for W [" +
                     std::to_string(k_) + ", " + std::to_string(n_) + "]");
  const uint32_t m = x.shape[0];
  Tensor y = g.add_variable(exe::DType::kF32, {m, n_}, name);
  // Spread over the tiles unless the rows must stay whole: the next product gathers its
  // blocks of Y from many tiles rather than all from a few (each gather a send-list entry).
  g.map_linearly(y, whole_rows ? n_ : 1);
  std::map<std::array<uint32_t, 5>, Tensor> x_blocks;  // X crosses to each tile once, for every chunk
  std::vector<graph::Program> issue, product;
  for (size_t c = 0; c < chunks_.size(); ++c) {
    const Chunk& ch = chunks_[c];
    const uint32_t cols = ch.n1 - ch.n0;
    const std::string id = name + ".chunk" + std::to_string(c);
    const Tensor w = buffer(g, ch, id + ".w");
    // The planned batch runs on the chunk's layer plan. Another (the inference program's)
    // keeps W's grid with its batch whole, so each block of W is read in place on its tile:
    // a grid of its own would copy W row by row into its blocks, millions of copies for
    // AlexNet's classifier.
    const LayerProduct own{LayerProduct::kForward, m};
    const LayerPlan grid{ch.plan.pk, ch.plan.pn,
                         {estimate_layer_product(k_, cols, ch.plan.pk, ch.plan.pn, own, 1, false, cost_)}};
    const MatMulPlan plan = m == batch_ ? ch.plan.plans[0] : grid.plans[0];
    MatMulOptions mo = m == batch_ ? layer_options(ch.plan, products(batch_), 0) : layer_options(grid, {own}, 0);
    mo.a_blocks = &x_blocks;
    graph::Program p = graph::Sequence();
    const Tensor part = matmul(g, p, x, w, plan, id, mo);
    for (uint32_t r = 0; r < m; ++r)
      p.add(graph::Copy(part.slice(r * cols, (r + 1) * cols), y.slice(r * n_ + ch.n0, r * n_ + ch.n1)));
    product.push_back(std::move(p));
    issue.push_back(graph::HostWrite(ch.values, w));
  }
  detail::one_chunk_ahead(g, prog, std::move(issue), std::move(product), name);
  return y;
}

Tensor StreamedWeight::backward(graph::Graph& g, graph::Program& prog, const Tensor& x, const Tensor& dy,
                                bool want_dx, const SgdSchedule& s, const std::string& name) const {
  if (x.shape != std::vector<uint32_t>{batch_, k_} || dy.shape != std::vector<uint32_t>{batch_, n_})
    throw GraphError("streamed weight '" + name + "': X " + graph::shape_string(x.shape) + " and dY " +
                     graph::shape_string(dy.shape) + " for W [" + std::to_string(k_) + ", " + std::to_string(n_) +
                     "] at batch " + std::to_string(batch_));
  const std::vector<LayerProduct> prods = products(batch_);
  Tensor dx;
  const Tensor dy_flat = dy.flatten();
  std::map<std::array<uint32_t, 5>, Tensor> x_blocks;  // X crosses to each tile once, for every chunk's dW
  std::vector<graph::Program> issue, work;
  for (size_t c = 0; c < chunks_.size(); ++c) {
    const Chunk& ch = chunks_[c];
    const uint32_t cols = ch.n1 - ch.n0;
    const std::string id = name + ".chunk" + std::to_string(c);
    const Tensor w = buffer(g, ch, id + ".w"), v = buffer(g, ch, id + ".v");
    issue.push_back(graph::Sequence());
    issue.back().add(graph::HostWrite(ch.values, w));
    issue.back().add(graph::HostWrite(ch.velocity, v));
    graph::Program& step = work.emplace_back(graph::Sequence());  // chunk c, once it has landed
    // dY's columns of the chunk, stored in W's column blocks (both gradient products split
    // the columns as W does), each block on a tile of its own, rotating with the chunk: each
    // of the pk tiles of a column copies its block from there, so no tile sends every
    // chunk's blocks to the whole chip. From the last tile down: the first ones hold more
    // (the programs' fences, the first blocks of every grid).
    const uint32_t pn = ch.plan.pn, tiles = g.target().tiles;
    Tensor dyc = g.add_variable(exe::DType::kF32, {batch_, cols}, id + ".dy");
    if (pn > 1) g.set_blocking(dyc, 1, pn);
    const graph::Blocking& bl = g.variables()[dyc.var].blocking;
    for (uint32_t j = 0; j < pn; ++j) {
      const uint32_t c0 = graph::Blocking::split(cols, pn, j), c1 = graph::Blocking::split(cols, pn, j + 1);
      const uint32_t at = bl.blocked() ? bl.block_begin(0, j) : 0, width = c1 - c0;
      g.set_tile_mapping(dyc.flatten().slice(at, at + batch_ * width), tiles - 1 - static_cast<uint32_t>((c * pn + j) % tiles));
      for (uint32_t r = 0; r < batch_; ++r)
        step.add(graph::Copy(dy_flat.slice(r * n_ + ch.n0 + c0, r * n_ + ch.n0 + c1),
                             dyc.flatten().slice(at + r * width, at + (r + 1) * width)));
    }
    if (want_dx) {
      const Tensor part = matmul_nt(g, step, dyc, w, ch.plan.plans[1], id + ".dx", layer_options(ch.plan, prods, 1));
      if (c == 0) dx = part;
      else add(g, step, dx, dx, part, id + ".dx.add");
    }
    MatMulOptions to = layer_options(ch.plan, prods, 2);
    to.c = variable_like(g, exe::DType::kF32, w, id + ".dw");  // the gradient where W's blocks lie
    to.a_blocks = &x_blocks;
    const Tensor dw = matmul_tn(g, step, x, dyc, ch.plan.plans[2], id + ".dw", to);
    SgdParam p{w, dw, s.momentum, s.lr0, s.total_steps, id, v};
    sgd_momentum(g, step, {p}, id + ".sgd");
    step.add(graph::HostRead(ch.values, w));  // back to device memory
    step.add(graph::HostRead(ch.velocity, v));
  }
  detail::one_chunk_ahead(g, prog, std::move(issue), std::move(work), name);
  if (!want_dx) return dx;
  // dX in whole rows per tile: the ops before (a bias gradient) sum its rows cheaply so.
  Tensor rows = g.add_variable(exe::DType::kF32, {batch_, k_}, name + ".dx");
  g.map_linearly(rows, k_);
  prog.add(graph::Copy(dx, rows));
  return rows;
}

}  // namespace tessera::ops
