// Lowering the op graph into the vertex graph through the ops library.
#pragma once

#include <cstdint>

#include "tessera/graph/graph.h"
#include "tessera/opgraph/opgraph.h"

namespace tessera::opgraph {

struct LowerOptions {
  uint32_t batches = 1;             // times the program repeats (one host transfer each)
  uint32_t firmware_bytes = 16384;  // SRAM the firmware takes on every tile (its __firmware_end)
};

// Adds program "infer" to `g`: Repeat(batches) { HostWrite of every input (streams named as
// the inputs, mapped in whole rows per tile); the ops in order; HostRead of every output }.
// Each matmul is planned by ops::plan_matmul for g's target with half the SRAM the firmware
// leaves as its per-tile budget; a matmul whose rows reach argmax or softmax (through
// add_bias / relu) keeps its rows whole (max_pn = 1). add_bias, relu and softmax work in
// place where their operand has no other use, else on a copy. Throws OpGraphError naming
// the op if it cannot be lowered.
void lower(const OpGraph& og, graph::Graph& g, const LowerOptions& o = {});

}  // namespace tessera::opgraph
