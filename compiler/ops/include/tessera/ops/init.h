// Initialisation on the device (init.cpp): tensors filled with seeded uniform random
// numbers (the rng_uniform codelet: Philox4x32-10 of the element's index, a per-tensor
// stream id and a seed word read on the device) and tensors set to zero (fill), all in one
// compute set, for a program that (re)initialises persistent state without reloading.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/graph/graph.h"

namespace tessera::ops {

// A mapped f32 tensor to fill with U(lo, hi): element j (its flat row-major index in `t`)
// gets rng_uniform's value for first + i = j, stream `stream`, lo, step = (hi - lo) * 2^-24,
// i.e. fp_fma((x >> 8) * 2^-24, hi - lo, lo) with x = word 0 of Philox4x32-10(counter {j,
// stream, 0, 0}, key {seed, 0x54535241}).
struct UniformInit {
  graph::Tensor t;
  uint32_t stream = 0;
  float lo = 0, hi = 1;
};

// Adds to `prog`: a Copy of the one-word u32 `seed` to each tile holding part of a
// `uniform` tensor (except the seed's own tile; copies "<name>.seed@<tile>"), then one
// compute set `name` with one rng_uniform vertex per run of each `uniform` tensor on its
// tile (reading the seed there) and one fill vertex (value 0) per run of each `zero` tensor
// (any 32-bit dtype: +0.0f or 0u). hi - lo must be exact in f32, finite and at least 2^-102
// (so that step is exact), else GraphError naming the tensor; unmapped tensors and a seed
// that is not one mapped u32 word are errors too.
void init_tensors(graph::Graph& g, graph::Program& prog, const graph::Tensor& seed,
                  const std::vector<UniformInit>& uniform, const std::vector<graph::Tensor>& zero,
                  const std::string& name);

}  // namespace tessera::ops
