// Weights that stay in the device's DRAM (the executable's device memory, loaded once) and
// stream to the tiles as the program needs them (docs/weight-streaming.md). A stream from
// device memory lands by the next host sync: each use below is followed by one before the
// tensor is read.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/graph/graph.h"
#include "tessera/ops/cost_model.h"

namespace tessera::ops {

struct StreamedMatMulOptions {
  double chunk_bytes_per_tile = 0;  // B's bytes one chunk may put on a tile (one of two buffers)
  double max_bytes = 1e300;         // each chunk's product's temporaries per tile (plan_matmul)
  bool whole_rows = false;          // C's rows whole on a tile (for a row-wise op after it)
};

// C (m x n) = A (m x k) * B, B given as row-major k x n constant data. B is cut into chunks
// of whole columns, each at most chunk_bytes_per_tile on any tile of its product's grid
// (ops::matmul's, planned by plan_matmul within max_bytes), and each chunk's blocks are a
// device memory stream (Graph::add_device_memory_stream) written into a tensor placed as
// the product reads it in place. The program: chunks 0 and 1 issued, then for each chunk c
// its product while chunk c + 1 is in flight (issued right before it: device memory reads
// land by the next host sync, so the memory plan keeps two chunks' buffers live and
// reuses them), a one-word fence before the last product; each product's columns copied
// into C, rows mapped whole per tile. Returns C and sets *chunks if given.
// `t` (a whole variable with an initial value, mapped) loaded by the program instead of
// before it: its initial value moved to device memory, a HostWrite of it and a fence (a
// one-word device memory stream, so that it has landed) added to `prog`.
void stream_in(graph::Graph& g, graph::Program& prog, const graph::Tensor& t, const std::string& name);

graph::Tensor streamed_matmul(graph::Graph& g, graph::Program& prog, const graph::Tensor& a,
                              const std::vector<float>& b, const CostModel& cost, const std::string& name,
                              const StreamedMatMulOptions& o, uint32_t* chunks = nullptr);

}  // namespace tessera::ops
