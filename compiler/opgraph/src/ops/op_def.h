// The op registry: what each N-D op knows about itself, one file per op in this folder.
//
// An op file (e.g. conv2d.cpp) holds the OpGraph method that adds the op (shape and dtype
// inference, errors naming the op), its reference evaluation (eval.h's interpreter) and its
// lowering into the vertex graph (lower.h), and exports one OpDef. registry.cpp lists the
// OpDefs; adding an op touches its file, that list, its codelet and its test
// (docs/compiler.md, "How to add an op").
#pragma once

#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "tessera/graph/graph.h"
#include "tessera/opgraph/eval.h"
#include "tessera/opgraph/opgraph.h"
#include "tessera/ops/cost_model.h"
#include "tessera/ops/window.h"

namespace tessera::opgraph::detail {

// What an op's reference evaluation sees: its operands' words and a place for its result.
struct EvalContext {
  const OpGraph& og;
  std::vector<Words>& vals;  // by value id
  std::vector<float> f32(Value v) const { return to_floats(vals[v.id]); }
  const std::vector<uint32_t>& shape(Value v) const { return og.info(v).shape; }
  void set(const Op& op, const std::vector<float>& r) { vals[op.result.id] = to_words(r); }
};

// What an op's lowering sees: the vertex graph, its operands' tensors, and the budget.
class LowerContext {
 public:
  virtual ~LowerContext() = default;
  virtual graph::Graph& graph() = 0;
  virtual const OpGraph& op_graph() = 0;
  virtual const ops::CostModel& cost() = 0;
  virtual double budget() = 0;  // bytes one op may use per tile
  // The budget of a gradient op (conv2d_grad_input, conv2d_grad_weight): less than budget()
  // for a model whose weights and velocities fill much of every tile.
  virtual double grad_budget() { return budget(); }
  // Whether `bytes` more of constants replicated on each of tiles [first, first + count)
  // (e.g. a conv's weight blocks baked on every tile that reads them, `bytes` its fullest
  // tile's) still leave room for the rest on every one of them: if so they are counted on
  // those tiles and true returned; if not, the op stores its constants once (spread).
  virtual bool reserve_constant_bytes(uint32_t first, uint32_t count, double bytes) = 0;
  // The bytes of send lists one conv's input windows may add to a tile (they stay for the
  // whole run, so all the model's convs share what is set aside for them).
  virtual double send_budget() = 0;
  // What the window ops are planned for (LowerOptions::plan_for).
  virtual ops::PlanFor plan_for() { return ops::PlanFor::kMachine; }
  // The operand's tensor, mapped somewhere (constants and parameters placed linearly if
  // nothing placed them yet).
  virtual graph::Tensor mapped(Value v) = 0;
  // The operand's tensor where an in-place op may overwrite it (its own if this is its only
  // use and it is not a weight, else a copy with the same mapping).
  virtual graph::Tensor writable(Value v, graph::Program& body, const std::string& name) = 0;
  virtual bool is_weight(Value v) = 0;
  virtual void set_result(const Op& op, const graph::Tensor& t) = 0;
  // The prefix of the op's compute sets and tensors: its layer name, or "op<id>".
  virtual std::string base(const Op& op) = 0;
  // The tiles the window ops (conv2d, pools, LRN) run on: [first, first + count). All of
  // them unless a model's constant matmul weights fill most of the chip (lower.cpp, "weight
  // regions").
  virtual std::pair<uint32_t, uint32_t> window_tiles() { return {0, graph().target().tiles}; }
  // Whether this op's constant weights stay in device memory and stream to its tiles when
  // it runs (weight streaming, lower.cpp).
  virtual bool streams_weights(const Op& op) { (void)op; return false; }
  // A line for the user about how an op was lowered (LowerOptions::note).
  virtual void note(const std::string& line) { (void)line; }
  // Whether each window op starts where the one before ended (LowerOptions::spread_window_ops).
  virtual bool spread_window_ops() { return false; }
  // ops::plan_window over window_tiles(), within budget(): from their first tile, or with
  // spread_window_ops() from the tile after the last one the plan before used, back to the
  // first when its jobs do not fit before the end.
  ops::WindowPlan plan_window(ops::WindowKind kind, const ops::WindowGeometry& geo, uint32_t batch,
                              const std::string& name, bool split_inputs = false,
                              double send_budget = std::numeric_limits<double>::infinity()) {
    const auto [first, count] = window_tiles();
    ops::WindowPlan p =
        ops::plan_window(kind, geo, batch, count, cost(), budget(), name, split_inputs, send_budget, plan_for());
    p.first = first;
    if (spread_window_ops()) {
      const uint32_t jobs = p.jobs();
      if (next_window_tile_ + jobs > count) next_window_tile_ = 0;
      p.first += next_window_tile_;
      next_window_tile_ += jobs;
    }
    return p;
  }

 private:
  uint32_t next_window_tile_ = 0;  // with spread_window_ops(): where the next plan starts
};

// What an op's gradient rule sees (autodiff.h): the graph to add ops to, the forward op,
// the gradient of its result, which operands need a gradient. It returns one gradient per
// operand (an invalid Value where none is needed).
struct GradArgs {
  OpGraph& og;
  const Op& op;
  Value dy;
  std::vector<bool> need;
};

struct OpDef {
  OpKind kind;
  void (*eval)(EvalContext& c, const Op& op);
  void (*lower)(LowerContext& c, const Op& op, graph::Program& body);
  std::vector<Value> (*grad)(GradArgs& a) = nullptr;  // none: not differentiable
};

// The name of the ops a rule adds: the layer's name + ".grad", or "".
inline std::string grad_name(const Op& op) { return op.name.empty() ? std::string() : op.name + ".grad"; }

// The registered op of this kind, or nullptr (the ops still handled in eval.cpp/lower.cpp).
const OpDef* find_op_def(OpKind kind);

// "conv2d 'conv1'" or "conv2d"
std::string op_who(const char* op, const std::string& name);
std::string shape_str(const std::vector<uint32_t>& shape);
uint64_t elements(const std::vector<uint32_t>& shape);

}  // namespace tessera::opgraph::detail
