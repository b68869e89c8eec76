// Window ops over NCHW images, lowered onto tiles: conv2d, max and average pooling, LRN.
//
// The planner (plan_window) splits the output [N, M, OH, OW] over tiles by images (pn
// parts), output channels (pc blocks) and output rows (ps blocks), and a conv also by input
// channels (pk blocks), exhaustively over pn * pc * ps * pk <= tiles, for the least
// estimated cycles (the codelet's a + b * work, plus the exchange of the input windows and
// weights, by the cost model) among the plans whose bytes per tile fit the budget. Each
// tile's share is one (images, channel block, row block, input channel block); its input
// window (the rows its output rows read, with the halo, of its input channels) is copied
// onto the tile (a Copy per channel when the rows are partial, so each vertex reads one
// contiguous block). With pk = 1 its vertices write the output where the plan maps it; with
// pk > 1 they write a partial sum, and a second compute set adds the pk partials of each
// output block, its elements shared out evenly among the block's pk tiles (reduce_sum).
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "tessera/graph/graph.h"
#include "tessera/ops/cost_model.h"
#include "tessera/ops/plan_for.h"

namespace tessera::ops {

// One image's geometry. For a conv2d, groups as ONNX's (c_in and c_out divisible by it);
// pools and LRN have c_out = c_in and work per channel.
struct WindowGeometry {
  uint32_t c_in = 1, h = 1, w = 1;
  uint32_t c_out = 1, oh = 1, ow = 1;
  uint32_t kh = 1, kw = 1, sh = 1, sw = 1;
  uint32_t pt = 0, pl = 0, pb = 0, pr = 0;
  uint32_t dh = 1, dw = 1;
  uint32_t groups = 1;
};

enum class WindowKind { kConv2d, kMaxPool, kAvgPool, kLrn };

struct WindowPlan {
  uint32_t pn = 1, pc = 1, ps = 1;  // parts over images, output channels, output rows
  double cycles = 0;                // estimated
  uint64_t bytes = 0;               // per tile, the fullest
  uint32_t pk = 1;                  // blocks of input channels (conv2d with one group only)
  uint32_t first = 0;               // its first tile: job j runs on tile first + j's grid index
  // A conv (one group) whose share does not fit in one pass runs as `passes` convs one after
  // another, each over all the plan's tiles, for ceil(c_out / passes) output channels (the
  // last the rest): each pass needs only its channels' weights, so its share is smaller.
  // pn, pc, ps, pk are each pass's split; cycles and bytes are for all passes and one pass.
  uint32_t passes = 1;
  // The jobs of one pass, each on its own tile: [first, first + jobs()).
  uint32_t jobs() const { return pn * pc * ps * pk; }
};

// The most passes plan_window tries before it reports that nothing fits.
inline constexpr uint32_t kMaxConvPasses = 64;

// The plan for `batch` images; throws GraphError naming `name` if no plan fits `budget`
// bytes per tile (with the smallest plan's bytes), a conv with one group in up to
// kMaxConvPasses passes (the fewest that fit). Input channel splits (pk > 1) are tried
// only with `split_inputs`, for a conv2d with one group whose weights are constants.
// `send_budget`: the bytes of send lists the op may add to a tile (they stay for the whole
// run, one entry per copy of an input window's run): the fastest plan within it (estimated:
// a window's copies, by the runs of the input it spans, spread over the tiles), else the
// fastest. `goal`: fastest on the machine or in native mode (PlanFor).
WindowPlan plan_window(WindowKind kind, const WindowGeometry& geo, uint32_t batch, uint32_t tiles,
                       const CostModel& cost, double budget, const std::string& name, bool split_inputs = false,
                       double send_budget = std::numeric_limits<double>::infinity(),
                       PlanFor goal = PlanFor::kMachine);

// The weights of a conv2d: constant data (baked onto the tiles that use each block) or a
// tensor (a parameter, copied to the tiles that use it).
struct ConvWeights {
  graph::Tensor w, b;                 // tensors, or
  std::vector<float> w_values, b_values;  // constant data; b empty: no bias (zeros)
  // w is laid out by the plan's blocks (spread_conv_weights), not as [M, C/g, kh, kw]: the
  // same layout when the plan's pk is 1.
  bool w_blocked = false;
};

// A conv2d's constant weights [M, C/g, kh, kw] stored once instead of baked on every tile
// that reads them: each of the plan's blocks (output channel block x input channel block)
// split evenly over the tiles that use it (a tensor with the values as its initial value),
// which conv2d then copies into a temporary on each tile before its compute set. For plans
// that would replicate a block on many tiles (row or image splits) when the replicas do not
// fit beside the other weights. The tensor holds the blocks one after the other, each block
// [its output channels, its input channels, kh, kw] (with pk = 1 simply [M, C/g * kh * kw]);
// conv2d reads it so when `w_blocked` is set.
graph::Tensor spread_conv_weights(graph::Graph& g, const std::vector<float>& values, const WindowGeometry& geo,
                                  uint32_t batch, const WindowPlan& plan, const std::string& name);
// The bytes of constant weights conv2d would bake on its fullest tile (the replicas).
uint64_t conv_weight_bytes_per_tile(const WindowGeometry& geo, const WindowPlan& plan);

// Where a conv writes its output: channels [c0, c0 + geo.c_out) of y [N, channels, OH, OW]
// (one pass of a conv planned in passes, WindowPlan::passes).
struct ConvOutput {
  graph::Tensor y;
  uint32_t channels = 0, c0 = 0;
};

// y [N, M, OH, OW] = conv2d(x [N, C, H, W]), new tensor mapped by the plan, or written into
// `into`'s channels (mapped there by the plan) and `into->y` returned. One pass: plan.passes
// is not read (the caller runs the passes, each with its channels' weights).
graph::Tensor conv2d(graph::Graph& g, graph::Program& prog, const graph::Tensor& x, const ConvWeights& wts,
                     const WindowGeometry& geo, const WindowPlan& plan, const std::string& name,
                     const ConvOutput* into = nullptr);

// Pools: y [N, C, OH, OW]. count_include_pad for the average pool.
graph::Tensor max_pool2d(graph::Graph& g, graph::Program& prog, const graph::Tensor& x, const WindowGeometry& geo,
                         const WindowPlan& plan, const std::string& name);
graph::Tensor avg_pool2d(graph::Graph& g, graph::Program& prog, const graph::Tensor& x, const WindowGeometry& geo,
                         bool count_include_pad, const WindowPlan& plan, const std::string& name);

// ONNX LRN across channels: each vertex takes whole images' channels at its rows
// (plan.pc must be 1).
graph::Tensor lrn(graph::Graph& g, graph::Program& prog, const graph::Tensor& x, const WindowGeometry& geo,
                  uint32_t size, float alpha, float beta, float bias, const WindowPlan& plan, const std::string& name);

}  // namespace tessera::ops

namespace tessera::ops {

// ---- Gradients (training). Work is split over images and groups or channel blocks, on
// tiles taken in turn; operands are copied to the tile of the work that reads them.

// dx [N, C, H, W] of conv2d from dy [N, M, OH, OW] and the weights: one conv2d_grad_input
// vertex per image, group, input channel block and dx row block (the block's dy rows and
// weights copied to its tile), the blocks chosen for the least estimated work per vertex
// among those that fit `budget` bytes (0: any) and number at most the tiles; one vertex
// per image and group when those fill the tiles.
graph::Tensor conv2d_grad_input(graph::Graph& g, graph::Program& prog, const graph::Tensor& dy,
                                const ConvWeights& wts, const WindowGeometry& geo, uint32_t batch,
                                const std::string& name, double budget = 0);
// dw [M, C/groups, kh, kw] of conv2d: output channel blocks x image parts, each part's sum
// over its images on its tile (conv2d_grad_weight with accumulate), the parts' partial sums
// added on the block's tile (reduce_sum). When one image's x (a group's channels) takes
// more than a quarter of `budget` bytes (0: no limit), blocks of input and output channels
// x parts of each image's dy rows instead, planned within the budget (the x and dy rows of
// each part copied to its tile, the block's partial sums reduced on its first tile).
graph::Tensor conv2d_grad_weight(graph::Graph& g, graph::Program& prog, const graph::Tensor& x,
                                 const graph::Tensor& dy, const WindowGeometry& geo, uint32_t batch,
                                 const std::string& name, double budget = 0);
// out [C]: sums of dy [N, C, hw] over images and positions, split as conv2d_grad_weight.
graph::Tensor channel_sum(graph::Graph& g, graph::Program& prog, const graph::Tensor& dy, uint32_t channels,
                          uint32_t hw, uint32_t batch, const std::string& name);
// dx [N, C, H, W] of the pools: per image and channel block.
graph::Tensor max_pool2d_grad(graph::Graph& g, graph::Program& prog, const graph::Tensor& dy, const graph::Tensor& x,
                              const WindowGeometry& geo, uint32_t batch, const std::string& name);
graph::Tensor avg_pool2d_grad(graph::Graph& g, graph::Program& prog, const graph::Tensor& dy,
                              const WindowGeometry& geo, bool count_include_pad, uint32_t batch,
                              const std::string& name);

}  // namespace tessera::ops
