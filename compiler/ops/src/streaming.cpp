#include "tessera/ops/streaming.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

#include "tessera/graph/blocking.h"
#include "tessera/ops/matmul.h"
#include "streaming_detail.h"

namespace tessera::ops {

using graph::GraphError;
using graph::Tensor;

namespace {

// The plan of a chunk of `cols` columns, and B's largest block on a tile under it.
struct ChunkPlan {
  MatMulPlan plan;
  double block_bytes = 0;
};

ChunkPlan plan_chunk(uint32_t m, uint32_t k, uint32_t cols, uint32_t tiles, const CostModel& cost,
                     const StreamedMatMulOptions& o) {
  ChunkPlan c;
  c.plan = plan_matmul(m, k, cols, tiles, cost, o.whole_rows ? 1 : 0xFFFFFFFFu, o.max_bytes);
  c.block_bytes = 4.0 * std::ceil(double(k) / c.plan.pk) * std::ceil(double(cols) / c.plan.pn);
  return c;
}

}  // namespace

namespace detail {

std::vector<uint32_t> chunk_words(const graph::Blocking& bl, uint32_t k, const std::vector<float>& b, uint32_t n,
                                  uint32_t n0, uint32_t n1) {
  const uint32_t cols = n1 - n0;
  std::vector<uint32_t> words(size_t{k} * cols);
  auto put = [&](uint32_t stored, uint32_t logical, uint32_t count) {
    for (uint32_t i = 0; i < count; ++i) {
      const uint32_t l = logical + i;
      std::memcpy(&words[stored + i], &b[size_t{l / cols} * n + n0 + l % cols], 4);
    }
  };
  if (bl.blocked())
    for (const graph::Blocking::Run& r : bl.stored_runs(0, k * cols)) put(r.stored, r.logical, r.count);
  else
    put(0, 0, k * cols);
  return words;
}

graph::Program fence(graph::Graph& g, const std::string& name) {
  Tensor t = g.add_variable(exe::DType::kF32, {1}, name + ".fence");
  g.set_tile_mapping(t, 0);
  const uint32_t zero = 0;
  return graph::HostWrite(g.add_device_memory_stream(name + ".fence", exe::DType::kF32, {1}, std::span(&zero, 1)), t);
}

void one_chunk_ahead(graph::Graph& g, graph::Program& prog, std::vector<graph::Program> issue,
                     std::vector<graph::Program> work, const std::string& name) {
  if (issue.empty() || issue.size() != work.size())
    throw GraphError("'" + name + "': " + std::to_string(issue.size()) + " reads for " + std::to_string(work.size()) +
                     " chunks of work");
  prog.add(std::move(issue[0]));
  for (size_t c = 0; c < work.size(); ++c) {
    prog.add(c + 1 < issue.size() ? std::move(issue[c + 1]) : fence(g, name));
    prog.add(std::move(work[c]));
  }
}

}  // namespace detail

void stream_in(graph::Graph& g, graph::Program& prog, const Tensor& t, const std::string& name) {
  prog.add(graph::HostWrite(g.move_initial_value_to_device_memory(t, name), t));
  prog.add(detail::fence(g, name));
}

Tensor streamed_matmul(graph::Graph& g, graph::Program& prog, const Tensor& a, const std::vector<float>& b,
                       const CostModel& cost, const std::string& name, const StreamedMatMulOptions& o,
                       uint32_t* chunks_out) {
  if (a.shape.size() != 2 || a.shape[1] == 0 || b.size() % a.shape[1])
    throw GraphError("streamed matmul '" + name + "': " + std::to_string(b.size()) +
                     " constant values are no whole number of rows of " + std::to_string(a.shape[1]));
  const uint32_t m = a.shape[0], k = a.shape[1], n = static_cast<uint32_t>(b.size() / k);
  const uint32_t tiles = g.target().tiles;
  if (!(o.chunk_bytes_per_tile >= 4.0 * k / tiles))
    throw GraphError("streamed matmul '" + name + "': " + std::to_string(o.chunk_bytes_per_tile) +
                     " bytes per tile cannot hold one column of B (" + std::to_string(k) + " rows) over " +
                     std::to_string(tiles) + " tiles");
  // The widest chunk whose blocks fit the buffer: from the even spread down.
  uint32_t cols = std::clamp<uint32_t>(static_cast<uint32_t>(o.chunk_bytes_per_tile * tiles / (4.0 * k)), 1, n);
  while (cols > 1 && plan_chunk(m, k, cols, tiles, cost, o).block_bytes > o.chunk_bytes_per_tile)
    cols = std::min(cols - 1, static_cast<uint32_t>(cols * 0.9));
  const uint32_t chunks = (n + cols - 1) / cols;
  if (chunks_out) *chunks_out = chunks;

  Tensor c = g.add_variable(exe::DType::kF32, {m, n}, name);
  g.map_linearly(c, n);  // whole rows per tile
  std::vector<graph::Program> issue, product;
  std::map<std::array<uint32_t, 5>, Tensor> a_blocks;  // A crosses to each tile once, for every chunk
  for (uint32_t ch = 0; ch < chunks; ++ch) {
    const uint32_t n0 = graph::Blocking::split(n, chunks, ch), n1 = graph::Blocking::split(n, chunks, ch + 1);
    const std::string id = name + ".chunk" + std::to_string(ch);
    const ChunkPlan cp = plan_chunk(m, k, n1 - n0, tiles, cost, o);
    Tensor w = g.add_variable(exe::DType::kF32, {k, n1 - n0}, id + ".b");
    graph::Program p = graph::Sequence();
    MatMulOptions mo;
    mo.a_blocks = &a_blocks;
    const Tensor part = matmul(g, p, a, w, cp.plan, id, mo);  // places w where the partials read it
    for (uint32_t r = 0; r < m; ++r)
      p.add(graph::Copy(part.slice(r * (n1 - n0), (r + 1) * (n1 - n0)), c.slice(r * n + n0, r * n + n1)));
    product.push_back(std::move(p));
    const std::vector<uint32_t> words = detail::chunk_words(g.variables()[w.var].blocking, k, b, n, n0, n1);
    issue.push_back(graph::HostWrite(g.add_device_memory_stream(id + ".b", exe::DType::kF32, w.shape, words), w));
  }
  detail::one_chunk_ahead(g, prog, std::move(issue), std::move(product), name);
  return c;
}

}  // namespace tessera::ops
