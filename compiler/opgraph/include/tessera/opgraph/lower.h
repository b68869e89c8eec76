// Lowering the op graph into the vertex graph through the ops library.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "tessera/graph/graph.h"
#include "tessera/opgraph/opgraph.h"
#include "tessera/ops/streamed_weight.h"
#include "tessera/ops/window.h"
#include "tessera/ops/training.h"

namespace tessera::opgraph {

// An op as lowering made it: the first variable it added to the graph, its index in the op
// graph, its name (its layer's, else "op<index>") and the vertices it added (a plan that did
// not change with a smaller share adds as many).
struct LoweredOp {
  uint32_t first_variable = 0;
  size_t op = 0;
  std::string name;
  size_t vertices = 0;
};

struct LowerOptions {
  uint32_t batches = 1;             // times the program repeats (one host transfer each)
  uint32_t firmware_bytes = 16384;  // SRAM the firmware takes on every tile (its __firmware_end)
  // The share of a tile's SRAM above the firmware one op's temporaries may use (as Poplar's
  // availableMemoryProportion): the planners' budget. Constants replicated on a tile may take
  // half of it over the whole model, and the convs' send lists another half. Smaller values
  // make the planners split ops finer (convs over input channels too) at some cost in cycles.
  double memory_proportion = 0.5;
  // Ops (by their index in the op graph) given a smaller proportion of their own: an op's
  // budget is the smaller of this and memory_proportion. `tessera compile` lowers again with
  // these for the ops whose temporaries fill the tiles that did not fit (the memory plan's
  // peaks), where halving memory_proportion would make every op finer.
  std::map<size_t, double> op_proportions = {};
  // If set, filled with each op lowered, in order: the variables from its first_variable up
  // to the next entry's (or the last) were made by it.
  std::vector<LoweredOp>* lowered_ops = nullptr;
  // The number of this graph's first op in op_proportions and lowered_ops: where two op
  // graphs are lowered into one vertex graph (training's "train" and "infer"), the second's
  // ops are numbered after the first's.
  size_t first_op_index = 0;
  // Training: the program is called "train" and the graph's updates (sgd_momentum) are
  // lowered; without it a graph with updates is an error.
  bool train = false;
  // The program's name; empty: "train" with `train`, else "infer".
  std::string program = {};
  // The big-model rules (layers spread by their weights' share, each parameter updated
  // right after its gradient, conv gradients within what the weights leave), which are on
  // by themselves when the layers' weights, velocities and gradients would take more than
  // half of what the firmware leaves on every tile: on for any model (tests).
  bool big_model = false;
  // The memory savings, each on by default (off to measure what it saves): element-wise ops
  // in place on an operand with no other use; a big model's updates right after their
  // gradient (each gradient released then). Recomputation: forward values made by ops of
  // these kinds (e.g. kMaxPool2d, kLrn) and read by gradient ops are made again right before
  // the first such read (reshapes of them too), so that the forward copy is released after
  // its last forward use; the op's operands then live until then (a pool's input does
  // anyway: its gradient reads it).
  bool in_place = true;
  bool early_updates = true;
  // What the window ops (conv2d, pools, LRN) are planned for: the machine's time or native
  // mode's (ops::PlanFor).
  ops::PlanFor plan_for = ops::PlanFor::kMachine;
  // Each window op's tiles start where the one before's ended (around window_tiles), not at
  // the first: for plans for the host, whose few jobs each would otherwise pile the model's
  // weights onto the same tiles (LowerContext::plan_window). Off, each op follows the one
  // before on the same tiles, its input mostly there already.
  bool spread_window_ops = false;
  std::set<OpKind> recompute = {};
  // Tensors already in the graph to use for the op graph's parameters of these names (e.g.
  // those that lowering a training graph into the same vertex graph returned), so that a
  // second program works on the same, persistent parameter values: such a parameter gets
  // no variable and no initial value of its own (its op graph's initial value is ignored),
  // must match the tensor's dtype and shape, and is read where the tensor already lies
  // (a matmul copies the blocks it needs). Parameters not named here get new variables.
  std::map<std::string, graph::Tensor> parameters = {};
  // Weights kept in device memory (docs/weight-streaming.md, "Training"), by parameter name:
  // a training lowering on a target with device memory whose weights, velocities and
  // gradients would not fit the tiles streams its biggest matmul weights and adds them here;
  // a second lowering given the same map reads them from there (its matmuls with such a
  // weight stream it too). Null: none streamed.
  std::shared_ptr<std::map<std::string, std::shared_ptr<const ops::StreamedWeight>>> streamed = nullptr;
  // Told, one line each, the placement decisions a user would want to see (weight regions:
  // which tiles each big constant matmul and the window ops were given).
  std::function<void(const std::string&)> note = {};
};

// Training weights in device memory (docs/weight-streaming.md, "Training"): a training
// lowering with LowerOptions::streamed on a target with device memory streams its biggest
// matmul weights when the parameters with their velocities and gradients (`persistent`
// bytes) would take more than kStreamAbove of `chip` (what the firmware leaves on all
// tiles), until the rest take at most kStreamDownTo of it.
inline constexpr double kStreamAbove = 0.85, kStreamDownTo = 0.25;
// The persistent bytes left on the tiles by that rule, where enough weights can stream: a
// first estimate for the memory proportion (the lowering decides weight by weight).
inline double resident_training_bytes(double persistent, double chip, bool device_memory) {
  return device_memory && persistent > kStreamAbove * chip ? std::min(persistent, kStreamDownTo * chip) : persistent;
}

// Adds program "infer" to `g`: Repeat(batches) { HostWrite of every input (streams named as
// the inputs, mapped in whole rows per tile); the ops in order; HostRead of every output }.
// Each matmul is planned by ops::plan_matmul for g's target with memory_proportion of the SRAM
// the firmware leaves as its per-tile budget; a matmul whose rows reach argmax or softmax (through
// add_bias / relu) keeps its rows whole (max_pn = 1). add_bias, relu and softmax work in
// place where their operand has no other use, else on a copy. Throws OpGraphError naming
// the op if it cannot be lowered.
//
// With o.train, program "train": Repeat(batches) { HostWrite of every input; the ops in
// order (forward and gradients); HostRead of every output; the updates }. The updates come
// after the reads, so outputs are the step's values as the interpreter gives them
// (Interpreter::step), even an output of a parameter. Training ops: a parameter matrix
// whose first use is a forward matmul is planned with its matmul_nt (input gradient) and
// matmul_tn (weight gradient) products as one layer (ops::plan_layer: one block grid for
// the weight, its gradient reduced into the weight's layout); other matmul_tn / matmul_nt
// planned as matmul on (m, k, n) of the product; relu_grad and add in place on the
// gradient where it has no other use; bias_grad as partial column sums per tile and their
// sum on the bias's tile (on one tile if it is no parameter's gradient); softmax_xent and
// softmax_xent_grad of the same operands as one softmax_xent vertex per row block (rows
// kept whole as for softmax);
// add_bias of a parameter reads the bias tensor (copied to each tile that needs it) rather
// than baking its initial value in. Parameters are variables with an initial value, loaded
// once before the program runs and persistent (never sharing memory, as constants);
// matrices are placed by their first matmul as weights are, vectors whole on one tile
// (tiles in turn). All updates are one compute set (ops::sgd_momentum): each tile holding
// part of a parameter advances its own learning rate (lr_linear on a persistent lr and
// step word) and then updates its runs of the parameter with a persistent velocity mapped
// like it, the gradient copied to the parameter's layout where it lies elsewhere.
//
// Several programs over the same parameters: lower the training graph first (its ops place
// the parameters), then, for example, an inference graph with parameters of the same names
// bound by LowerOptions::parameters to the tensors the first call returned, under another
// program name and with distinct stream names (streams are per graph, not per program).
//
// Returns the tensors of the op graph's parameters (those ops use), by parameter name. With
// `sgd`, *sgd receives the optimizer state the updates made (ops::SgdState: velocities in
// update order, the per-tile lr and step words; empty without updates), e.g. for a program
// that resets it (models/mlp_train.h "init").
std::map<std::string, graph::Tensor> lower(const OpGraph& og, graph::Graph& g, const LowerOptions& o = {},
                                           ops::SgdState* sgd = nullptr);

}  // namespace tessera::opgraph
