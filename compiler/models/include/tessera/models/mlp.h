// Built-in models, first of them the MNIST multi-layer perceptron: 784 -> hidden (relu) ->
// 10, from the weights examples/mnist/train_reference.py writes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/graph/graph.h"

namespace tessera::models {

// Layer i maps sizes[i] inputs to sizes[i + 1] outputs: y = x * w[i] + b[i], w[i] row-major
// sizes[i] x sizes[i + 1]; relu between layers.
struct MlpWeights {
  std::vector<uint32_t> sizes;
  std::vector<std::vector<float>> w, b;
};

// Reads w1.f32, b1.f32, w2.f32, b2.f32 (raw little-endian f32) from `dir`, for 784 inputs
// and 10 classes; the hidden size comes from b1. Throws std::runtime_error naming the file.
MlpWeights read_mlp_weights(const std::string& dir);

struct MlpOptions {
  uint32_t batch = 100;   // images per host transfer
  uint32_t batches = 1;   // transfers per run (the program repeats)
  uint32_t firmware_bytes = 16384;  // SRAM the firmware takes on every tile (its __firmware_end)
};

// Adds program "infer" to `g`: `batches` times { stream "x" (batch x 784 f32) in; the
// layers; stream "logits" (batch x 10 f32) out; stream "preds" (batch u32) out }. Each
// matmul is planned by the ops library's planner for g's target.
void build_mlp_inference(graph::Graph& g, const MlpWeights& w, const MlpOptions& o);

}  // namespace tessera::models
