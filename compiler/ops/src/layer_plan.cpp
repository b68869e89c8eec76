// Planning a weight's forward, input-gradient and weight-gradient matmuls together
// (layer_plan.h).
#include "tessera/ops/layer_plan.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "host_cost.h"

namespace tessera::ops {

namespace {

double ceil_div(uint32_t a, uint32_t b) { return static_cast<double>((a + b - 1) / b); }

// Whether the product's own n is split (then its rows are not whole on a tile).
bool splits_rows(const LayerProduct& p, uint32_t pk, uint32_t pn) {
  return p.kind == LayerProduct::kInputGrad ? pk > 1 : pn > 1;
}

}  // namespace

MatMulPlan estimate_layer_product(uint32_t k, uint32_t n, uint32_t pk, uint32_t pn, const LayerProduct& p,
                                  uint32_t pb, bool with_grad, const CostModel& cost) {
  const uint32_t b = p.batch;
  MatMulPlan r;
  // The product's (m, k, n) split and its blocks.
  double bm, bk, bn;
  switch (p.kind) {
    case LayerProduct::kForward:  // X [b, k] W [k, n]
      r.pm = pb, r.pk = pk, r.pn = pn;
      bm = ceil_div(b, pb), bk = ceil_div(k, pk), bn = ceil_div(n, pn);
      break;
    case LayerProduct::kInputGrad:  // dY [b, n] W^T
      r.pm = pb, r.pk = pn, r.pn = pk;
      bm = ceil_div(b, pb), bk = ceil_div(n, pn), bn = ceil_div(k, pk);
      break;
    default:  // X^T dY: (k, b, n)
      r.pm = pk, r.pk = pb, r.pn = pn;
      bm = ceil_div(k, pk), bk = ceil_div(b, pb), bn = ceil_div(n, pn);
      break;
  }
  const double w_block = ceil_div(k, pk) * ceil_div(n, pn);
  const bool grad = p.kind == LayerProduct::kWeightGrad;
  // W's block (stored contiguously) is read in place on the first batch block's tiles; a
  // batch split copies it to the other tiles (the busiest port receives a block).
  const double b_words = grad ? bk * bn : pb == 1 ? 0.0 : bk * bn;
  const double gather = bm * bk + b_words;
  double reduce_compute = 0, reduce_words = 0, reduce_bytes = 0, supersteps = 4;
  double reduce_received = 0;  // the partial words a tile receives to add (native mode's cost)
  if (!grad) {
    // Each output block's rows shared out among its r.pk tiles.
    const double rows = std::ceil(bm / r.pk);
    reduce_compute = rows * cost.reduce_sum(bn * r.pk);
    reduce_words = bm * bn + r.pk * rows * bn;  // sent and received through one port
    reduce_bytes = rows * (r.pk + 1) * bn;
    if (r.pk > 1) reduce_received = r.pk * rows * bn;
  } else if (pb > 1) {
    // Every row of a gradient block reduced on W's tile for the block.
    reduce_compute = bm * cost.reduce_sum(bn * pb);
    reduce_words = reduce_received = pb * bm * bn;
    reduce_bytes = pb * bm * bn;
  } else {
    supersteps = 2;  // the vertex writes the gradient block itself
  }
  const LinearCost& vertex = grad ? cost.matmul_tn : p.kind == LayerProduct::kInputGrad ? cost.matmul_nt : cost.matmul;
  r.compute = vertex(bm * bk * bn) + reduce_compute;
  r.exchange = cost.exchange(gather) + (reduce_words > 0 ? cost.exchange(reduce_words) : 0.0) +
               supersteps * cost.superstep;
  const double partial = (grad && supersteps == 2) ? 0.0 : bm * bn;  // else the gradient block itself
  r.bytes = 4 * (bm * bk + b_words + partial + reduce_bytes + w_block * (with_grad ? 3 : 1));
  r.host_ns = detail::host_matmul_ns(double(r.pm) * r.pk * r.pn, bm, bk, bn, gather, reduce_received);
  return r;
}

LayerPlan plan_layer(uint32_t k, uint32_t n, const std::vector<LayerProduct>& products, uint32_t tiles,
                     const CostModel& cost, double max_bytes, PlanFor goal) {
  bool with_grad = false;
  for (const LayerProduct& p : products) with_grad = with_grad || p.kind == LayerProduct::kWeightGrad;
  LayerPlan best, smallest;
  best.total = best.host_ns = std::numeric_limits<double>::infinity();
  double smallest_bytes = std::numeric_limits<double>::infinity();
  for (uint32_t pk = 1; pk <= std::min(k, tiles); ++pk)
    for (uint32_t pn = 1; pn <= std::min(n, tiles / pk); ++pn) {
      LayerPlan fit{pk, pn, {}, 0}, least{pk, pn, {}, 0};
      double least_bytes = 0;  // the largest product's bytes in `least`
      bool fits = true, possible = true;
      for (const LayerProduct& p : products) {
        if (p.whole_rows && splits_rows(p, pk, pn)) {
          possible = false;
          break;
        }
        MatMulPlan pick, low;
        pick.compute = pick.host_ns = std::numeric_limits<double>::infinity();
        low.bytes = std::numeric_limits<double>::infinity();
        for (uint32_t pb = 1; pb <= std::min(p.batch, tiles / (pk * pn)); ++pb) {
          const MatMulPlan e = estimate_layer_product(k, n, pk, pn, p, pb, with_grad, cost);
          if (e.bytes < low.bytes) low = e;
          if (e.bytes <= max_bytes && e.time(goal) < pick.time(goal) - 1e-9) pick = e;
        }
        least.plans.push_back(low);
        least.total += low.total();
        least.host_ns += low.host_ns;
        least_bytes = std::max(least_bytes, low.bytes);
        if (pick.compute == std::numeric_limits<double>::infinity()) fits = false;
        fit.plans.push_back(pick);
        fit.total += pick.total();
        fit.host_ns += pick.host_ns;
      }
      if (!possible) continue;
      if (fits && fit.time(goal) < best.time(goal) - 1e-9) best = fit;
      if (least_bytes < smallest_bytes) smallest_bytes = least_bytes, smallest = least;
    }
  return best.total < std::numeric_limits<double>::infinity() ? best : smallest;
}

MatMulOptions layer_options(const LayerPlan& plan, const std::vector<LayerProduct>& products, size_t i) {
  const uint32_t pk = plan.pk, pn = plan.pn;
  auto at = [pk, pn](uint32_t ib, uint32_t ik, uint32_t in) { return (ib * pk + ik) * pn + in; };
  MatMulOptions o;
  switch (products.at(i).kind) {
    case LayerProduct::kForward:  // (batch, k, n)
      o.tile = [at](uint32_t im, uint32_t ik, uint32_t in) { return at(im, ik, in); };
      break;
    case LayerProduct::kInputGrad:  // (batch, n, k)
      o.tile = [at](uint32_t im, uint32_t ik, uint32_t in) { return at(im, in, ik); };
      break;
    case LayerProduct::kWeightGrad:  // (k, batch, n)
      o.tile = [at](uint32_t im, uint32_t ik, uint32_t in) { return at(ik, im, in); };
      break;
  }
  return o;
}

}  // namespace tessera::ops
