// y = x B with B's values in device memory, streamed in column chunks (ops::streamed_matmul):
// the program the weight-streaming tests of each device (emulator, RTL, remote) build. The
// test links tessera_ops.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "tessera/graph/graph.h"
#include "tessera/ops/cost_model.h"
#include "tessera/ops/streaming.h"

namespace tessera::testutil {

struct StreamedMatMul {
  uint32_t m = 0, k = 0, n = 0, chunks = 0;
  std::vector<float> x_values, b;  // x [m, k] for stream "x", B [k, n] row-major
  graph::Tensor x, y;              // [m, k], [m, n]

  // Each element of `got` (y as read out, m x n) within `tol` of x B in doubles.
  void expect_product(const std::vector<float>& got, double tol, const std::string& what) const {
    ASSERT_GE(got.size(), size_t{m} * n) << what;
    for (uint32_t i = 0; i < m; ++i)
      for (uint32_t j = 0; j < n; ++j) {
        double want = 0;
        for (uint32_t p = 0; p < k; ++p) want += double(x_values[i * k + p]) * b[p * n + j];
        EXPECT_NEAR(got[i * n + j], want, tol) << what << ": y[" << i << "][" << j << "]";
      }
  }
};

// Adds to `body` the HostWrite of stream "x" ([m, k], whole rows per tile) and the streamed
// product with chunks of about `chunk_cols` columns (each product's temporaries within
// `max_bytes` per tile); x and B are fixed smooth values.
inline StreamedMatMul add_streamed_matmul(graph::Graph& g, graph::Program& body, uint32_t m, uint32_t k, uint32_t n,
                                          uint32_t chunk_cols, double max_bytes) {
  StreamedMatMul s;
  s.m = m, s.k = k, s.n = n;
  s.x_values.resize(size_t{m} * k);
  s.b.resize(size_t{k} * n);
  for (size_t i = 0; i < s.b.size(); ++i) s.b[i] = std::sin(0.37f * float(i)) * 0.5f;
  for (size_t i = 0; i < s.x_values.size(); ++i) s.x_values[i] = std::cos(0.11f * float(i)) - 0.25f;
  s.x = g.add_variable(exe::DType::kF32, {m, k}, "x");
  g.map_linearly(s.x, k);
  body.add(graph::HostWrite(g.add_stream("x", exe::DType::kF32, {m, k}), s.x));
  ops::StreamedMatMulOptions so;
  so.chunk_bytes_per_tile = 4.0 * k * chunk_cols / g.target().tiles;
  so.max_bytes = max_bytes;
  s.y = ops::streamed_matmul(g, body, s.x, s.b, ops::CostModel::for_target(g.target()), "mm", so, &s.chunks);
  return s;
}

// Adds to `body` a write-back to device memory (tiles_to_dram: a training step's updated
// weights) and a read of it again: x's first 40 values copied to a tensor on tile 20 (not
// where x lies), written to device memory stream "back", read into a tensor on tile 10 (it
// lands by the next host sync, the one that reads it out) and read out by stream "u_out".
// u_out then holds x's first 40 values, as does "back" in device memory.
inline void add_write_back(graph::Graph& g, graph::Program& body, const StreamedMatMul& mm) {
  const graph::Stream region = g.add_device_memory_stream("back", exe::DType::kF32, {40}, std::vector<uint32_t>(40, 0));
  graph::Tensor v = g.add_variable(exe::DType::kF32, {40}, "v"), u = g.add_variable(exe::DType::kF32, {40}, "u");
  g.map_linearly(v, 20);
  g.map_linearly(u, 10);
  body.add(graph::Copy(mm.x.flatten().slice(0, 40), v));
  body.add(graph::HostRead(region, v));
  body.add(graph::HostWrite(region, u));
  body.add(graph::HostRead(g.add_stream("u_out", exe::DType::kF32, {40}), u));
}

}  // namespace tessera::testutil
