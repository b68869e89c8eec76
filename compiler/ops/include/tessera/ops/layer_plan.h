// One weight's matmuls planned together (layer_plan.cpp): a weight W [K, N] used by forward
// products Y = X W, input gradients dX = dY W^T (matmul_nt) and weight gradients
// dW = X^T dY (matmul_tn) keeps one layout. W's blocks form a pk x pn grid, block (ik, in)
// (rows split_begin(K, pk, ik).., columns split_begin(N, pn, in)..) on tile ik * pn + in;
// each product adds its own split of the batch, pb, its grid position (ib, ik, in) on tile
// (ib * pk + ik) * pn + in, so the first batch block's tiles are W's. W is stored block by
// block when pn > 1 (graph/blocking.h), so a product reads W's block in place there; other
// batch blocks copy it. A weight gradient's block (ik, in) is reduced over the batch on W's
// tile for that block, into a tensor laid out like W (written by the matmul_tn vertex
// itself when pb == 1), so the update needs no copy.
#pragma once

#include <cstdint>
#include <vector>

#include "tessera/ops/cost_model.h"
#include "tessera/ops/matmul.h"

namespace tessera::ops {

struct LayerProduct {
  enum Kind { kForward, kInputGrad, kWeightGrad };
  Kind kind = kForward;
  uint32_t batch = 1;       // rows of X (and dY)
  bool whole_rows = false;  // the product's rows must stay whole on a tile (its n not split)
};

struct LayerPlan {
  uint32_t pk = 1, pn = 1;         // W's block grid
  std::vector<MatMulPlan> plans;   // per product, on the product's own (m, k, n)
  double total = 0;                // the products' estimated cycles, summed
  double host_ns = 0;              // and their times in native mode (PlanFor::kHost)
  double time(PlanFor goal) const { return goal == PlanFor::kHost ? host_ns : total; }
  uint32_t tiles() const { return pk * pn; }
};

// The grid of W [k, n] and each product's batch split with the least summed estimated cycles
// (or native mode's time: `goal`; exhaustive), each product within `max_bytes` per tile
// (its temporaries plus W's block, and with a weight gradient also the block's velocity and
// gradient). If none fits, the plan whose largest product needs the fewest bytes.
LayerPlan plan_layer(uint32_t k, uint32_t n, const std::vector<LayerProduct>& products, uint32_t tiles,
                     const CostModel& cost, double max_bytes = 1e300, PlanFor goal = PlanFor::kMachine);

// Estimated cycles and bytes of one product with W's grid (pk, pn) and batch split pb.
// `with_grad`: W's velocity and gradient lie beside its blocks.
MatMulPlan estimate_layer_product(uint32_t k, uint32_t n, uint32_t pk, uint32_t pn, const LayerProduct& p,
                                  uint32_t pb, bool with_grad, const CostModel& cost);

// The tile assignment of product `i` of the plan (MatMulOptions::tile).
MatMulOptions layer_options(const LayerPlan& plan, const std::vector<LayerProduct>& products, size_t i);

}  // namespace tessera::ops
