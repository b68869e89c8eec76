// A matmul weight that lives in the device's DRAM for training, with its velocity
// (docs/weight-streaming.md, "Training"): a model whose weights, velocities and gradients do
// not fit the tiles (AlexNet's classifier on ipu-gc2) keeps its biggest weights there and
// streams them through the tiles for each product and each update.
//
// W [k, n] is cut into column chunks. Each chunk is one layer (ops/layer_plan.h) planned for
// its forward product, its input gradient and its weight gradient together, so that the
// chunk keeps one layout: blocks on tiles 0.., stored block by block. Its values and its
// velocity are each a region of device memory in that layout (the velocity zeros at first),
// so a chunk crosses between DRAM and the tiles as one stream either way.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/graph/graph.h"
#include "tessera/ops/cost_model.h"
#include "tessera/ops/layer_plan.h"

namespace tessera::ops {

// sgd_momentum's schedule for a streamed weight (training.h, SgdParam).
struct SgdSchedule {
  float momentum = 0, lr0 = 0;
  uint32_t total_steps = 0;
};

class StreamedWeight {
 public:
  // W [k, n] from `values` (row-major), its products X W with X of `batch` rows, and W
  // named `name` as a device parameter (the host reads it back after a run). Each chunk
  // the widest whose block takes at most `chunk_bytes_per_tile` of a tile; its products
  // planned within `max_bytes` per tile.
  StreamedWeight(graph::Graph& g, uint32_t batch, uint32_t k, const std::vector<float>& values, const CostModel& cost,
                 double chunk_bytes_per_tile, double max_bytes, std::string name);

  uint32_t chunks() const { return static_cast<uint32_t>(chunks_.size()); }
  uint32_t rows() const { return k_; }
  uint32_t cols() const { return n_; }

  // Y = X W (X [m, k], any m: another batch than the planned one keeps W's grid, its batch
  // whole, so W's blocks are read where they land), its
  // rows whole per tile with `whole_rows`, else spread over the tiles. Chunk c + 1 is read
  // while chunk c's product runs (streaming.h's double buffering); the program's host syncs
  // land them.
  graph::Tensor forward(graph::Graph& g, graph::Program& prog, const graph::Tensor& x, bool whole_rows,
                        const std::string& name) const;

  // One training step's backward for W, given X [batch, k] and dY [batch, n]: for each chunk
  // (its values and velocity read one chunk ahead) its part of dX = dY W^T is added up
  // (when `want_dx`), its gradient X^T dY made in its layout, values and velocity updated by
  // sgd_momentum with `s` and written back to device memory. Returns dX, or an invalid
  // tensor without `want_dx`.
  graph::Tensor backward(graph::Graph& g, graph::Program& prog, const graph::Tensor& x, const graph::Tensor& dy,
                         bool want_dx, const SgdSchedule& s, const std::string& name) const;

 private:
  struct Chunk {
    uint32_t n0 = 0, n1 = 0;
    LayerPlan plan;                 // forward, input gradient, weight gradient
    graph::Stream values, velocity;  // the regions of device memory
  };
  // Chunk c's runs of W in device memory (graph::DeviceParameterData), one per block.
  void chunk_runs(const Chunk& c, std::vector<graph::DeviceParameterData::Run>& out) const;
  // A fresh tensor [k, n1 - n0] in chunk c's layout.
  graph::Tensor buffer(graph::Graph& g, const Chunk& c, const std::string& name) const;

  uint32_t batch_ = 0, k_ = 0, n_ = 0;
  CostModel cost_;
  std::vector<Chunk> chunks_;
};

}  // namespace tessera::ops
