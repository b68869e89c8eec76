// Matrix multiplication lowered onto tiles: C (m x n) = A (m x k) * B (k x n), all f32
// row-major, split over a grid of pm x pk x pn tiles chosen by a planner.
//
// Tile (im, ik, in) computes the partial product of A's block (im, ik) and B's block
// (ik, in) with one matmul vertex; the pk partials of output block (im, in) are reduced
// on the pk tiles of that block, each taking a share of its rows (reduce_sum vertices, one
// per row), and those rows of C live there (or where a given destination holds them:
// MatMulOptions). Operand blocks are gathered by Copy unless the operand already lies where
// the vertex needs it.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "tessera/graph/graph.h"
#include "tessera/ops/cost_model.h"
#include "tessera/ops/plan_for.h"

namespace tessera::ops {

struct MatMulPlan {
  uint32_t pm = 1, pk = 1, pn = 1;  // tiles along m, k, n
  double compute = 0, exchange = 0; // estimated cycles
  double bytes = 0;                 // estimated temporary bytes on the busiest tile
  double host_ns = 0;               // estimated time in native mode (PlanFor::kHost)
  double total() const { return compute + exchange; }
  double time(PlanFor goal) const { return goal == PlanFor::kHost ? host_ns : total(); }
  uint32_t tiles() const { return pm * pk * pn; }
};

// The split of (m, k, n) over at most `tiles` tiles with the least estimated cycles, or
// native mode's time for PlanFor::kHost (exhaustive over pm, pk, pn). B, a weight, stays
// where it is used when pm == 1 and pn == 1.
// `max_pn` = 1 keeps every row of C whole on one tile (for a row-wise op after it). Plans
// needing more than `max_bytes` per tile are skipped (if none fits, the smallest is
// returned and the memory planner will say where it does not fit).
MatMulPlan plan_matmul(uint32_t m, uint32_t k, uint32_t n, uint32_t tiles, const CostModel& cost,
                       uint32_t max_pn = 0xFFFFFFFFu, double max_bytes = 1e300, PlanFor goal = PlanFor::kMachine);
// Estimated cycles and native mode's time of one plan (what plan_matmul minimises).
MatMulPlan estimate_matmul(uint32_t m, uint32_t k, uint32_t n, uint32_t pm, uint32_t pk, uint32_t pn,
                           const CostModel& cost);

// Where a product's tiles are and where C goes (a layer plan's products, layer_plan.h);
// default: tile (im, ik, in) = (im * pk + ik) * pn + in and C's rows shared out as above.
struct MatMulOptions {
  // Tile of grid position (im, ik, in), for (im, ik, in) < (pm, pk, pn); distinct positions
  // must get distinct tiles.
  std::function<uint32_t(uint32_t im, uint32_t ik, uint32_t in)> tile;
  // C's destination, mapped (e.g. like a weight, for its gradient): each row of an output
  // block is reduced on the tile holding it (every row piece of a block must lie on one
  // tile); with pk == 1 a block lying whole and contiguous on its tile is the vertex's
  // output (no reduction).
  graph::Tensor c;
  // B given as constant data (row-major k x n, for matmul only) instead of a tensor: each
  // tile's block becomes a constant of its own, laid out as the codelet takes it, so the
  // weight is stored once per block (pm times with pm > 1) and never copied at run time.
  const std::vector<float>* b_values = nullptr;
  std::string b_name;  // the constant's name, for its blocks' names
  // A's blocks already gathered on tiles, by (tile, first row, end row, first column, end
  // column of A): products of one A (a streamed matmul's chunks) share them, so A crosses
  // to each tile once, not once per product. Blocks this product gathers are added. The
  // products sharing a map must agree in how they take A (plain, or transposed as
  // matmul_tn does), and A must not change between them.
  std::map<std::array<uint32_t, 5>, graph::Tensor>* a_blocks = nullptr;
};

// Adds C = A * B to `g`: the operand copies, the partials and the reduction as steps of
// `prog` (a Sequence), and returns C, mapped. A and B must be mapped; they are only read.
// With o.b_values, `b` is ignored (pass an invalid tensor) and each block is baked.
// If B is unmapped it is mapped here, block by block where the plan needs it (weights):
// block (ik, in) on tile (0, ik, in); with pn > 1 B is then stored block by block
// (Graph::set_blocking), so that every block is contiguous. Blocked operands and
// destinations (graph/blocking.h) are taken whole; their blocks are read and written in
// place where the plan's blocks are theirs. An operand block lying whole and contiguous on the
// vertex's tile (as the codelet takes it) is read in place; other blocks are copied.
graph::Tensor matmul(graph::Graph& g, graph::Program& prog, const graph::Tensor& a, const graph::Tensor& b,
                     const MatMulPlan& plan, const std::string& name, const MatMulOptions& o = {});

// The transposed forms (matmul_t.cpp), for gradients, on the same grid and reduction, with
// the matmul_tn / matmul_nt codelets on each tile's blocks (gathered as the codelet takes
// them): C (m x n) = A^T B with A stored k x m and B k x n (a weight gradient X^T dY), and
// C = A B^T with A m x k and B stored n x k (an input gradient dY W^T). `plan` is for
// (m, k, n) of the product. A and B must be mapped; they are only read.
graph::Tensor matmul_tn(graph::Graph& g, graph::Program& prog, const graph::Tensor& a, const graph::Tensor& b,
                        const MatMulPlan& plan, const std::string& name, const MatMulOptions& o = {});
graph::Tensor matmul_nt(graph::Graph& g, graph::Program& prog, const graph::Tensor& a, const graph::Tensor& b,
                        const MatMulPlan& plan, const std::string& name, const MatMulOptions& o = {});

}  // namespace tessera::ops
