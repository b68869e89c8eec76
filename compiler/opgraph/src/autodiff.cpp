// Reverse-mode autodiff over the op graph (autodiff.h). The forward ops are visited from the
// loss back; each op's rule turns the gradient of its result into gradients of the operands
// that need one. The rules are the only place that knows an op's derivative.
#include "tessera/opgraph/autodiff.h"

#include <string>

#include "ops/op_def.h"

namespace tessera::opgraph {

namespace {

// What a rule sees: the graph to add ops to, the forward op, the gradient of its result,
// which operands need a gradient; it returns one gradient per operand (invalid where none
// is needed).
// (The N-D ops' rules live in their files, ops/*.cpp, behind the registry.)
using RuleArgs = detail::GradArgs;
using Rule = std::vector<Value> (*)(RuleArgs&);
using detail::grad_name;

// y = a b:  da = dy b^T,  db = a^T dy.
std::vector<Value> matmul_rule(RuleArgs& r) {
  const Value a = r.op.operands[0], b = r.op.operands[1];
  return {r.need[0] ? r.og.matmul_nt(r.dy, b, grad_name(r.op)) : Value{},
          r.need[1] ? r.og.matmul_tn(a, r.dy, grad_name(r.op)) : Value{}};
}

// y = x + b (per row):  dx = dy,  db = column sums of dy.
std::vector<Value> add_bias_rule(RuleArgs& r) {
  return {r.need[0] ? r.dy : Value{}, r.need[1] ? r.og.bias_grad(r.dy, grad_name(r.op)) : Value{}};
}

// y = relu(x):  dx = dy where y > 0.
std::vector<Value> relu_rule(RuleArgs& r) {
  return {r.og.relu_grad(r.dy, r.op.result, grad_name(r.op))};
}

// y = a + b:  da = db = dy.
std::vector<Value> add_rule(RuleArgs& r) { return {r.need[0] ? r.dy : Value{}, r.need[1] ? r.dy : Value{}}; }

// The table of rules. softmax_xent is the loss and seeds the pass (below); the other kinds
// have no rule yet.
Rule rule_for(OpKind k) {
  switch (k) {
    case OpKind::kMatMul: return matmul_rule;
    case OpKind::kAddBias: return add_bias_rule;
    case OpKind::kRelu: return relu_rule;
    case OpKind::kAdd: return add_rule;
    default: {
      const detail::OpDef* def = detail::find_op_def(k);
      return def ? def->grad : nullptr;
    }
  }
}

std::string what(const Op& op) {
  return std::string(op_kind_name(op.kind)) + (op.name.empty() ? " %" + std::to_string(op.result.id) : " '" + op.name + "'");
}

}  // namespace

std::vector<Value> gradients(OpGraph& og, Value loss, const std::vector<Value>& params) {
  const Op loss_op = og.producer(loss);
  if (loss_op.kind != OpKind::kSoftmaxXent)
    throw OpGraphError("gradients: the loss %" + std::to_string(loss.id) + " is a " + op_kind_name(loss_op.kind) +
                       ", not a softmax_xent");
  const size_t n = og.values().size();
  // Which values depend on a parameter (only those need gradients).
  std::vector<bool> depends(n, false);
  for (const Value p : params) {
    if (og.producer(p).kind != OpKind::kParameter)
      throw OpGraphError("gradients: %" + std::to_string(p.id) + " is a " + op_kind_name(og.producer(p).kind) +
                         ", not a parameter");
    depends[p.id] = true;
  }
  const std::vector<Op> forward = og.ops();  // a copy: the rules append to og
  for (const Op& op : forward) {
    if (!op.result.valid()) continue;
    for (const Value v : op.operands) depends[op.result.id] = depends[op.result.id] || depends[v.id];
  }

  // The seed: d(mean loss)/d(logits) = (softmax - onehot) / rows.
  std::vector<Value> grad(n);
  const Value logits = loss_op.operands[0], labels = loss_op.operands[1];
  const float rows = static_cast<float>(og.info(loss).shape[0]);
  if (depends[logits.id])
    grad[logits.id] = og.softmax_xent_grad(logits, labels, 1.0f / rows, grad_name(loss_op));

  for (auto it = forward.rbegin(); it != forward.rend(); ++it) {
    const Op& op = *it;
    if (!op.result.valid() || op.result.id == loss.id || !grad[op.result.id].valid()) continue;
    if (op.kind == OpKind::kParameter || op.kind == OpKind::kInput || op.kind == OpKind::kConstant) continue;
    const Rule rule = rule_for(op.kind);
    if (!rule) throw OpGraphError("gradients: " + what(op) + " has no gradient rule");
    RuleArgs args{og, op, grad[op.result.id], {}};
    for (const Value v : op.operands) args.need.push_back(depends[v.id]);
    const std::vector<Value> d = rule(args);
    for (size_t i = 0; i < d.size(); ++i) {
      if (!d[i].valid()) continue;
      Value& g = grad[op.operands[i].id];
      g = g.valid() ? og.add(g, d[i], grad_name(op)) : d[i];
    }
  }

  std::vector<Value> out;
  for (const Value p : params) {
    if (!grad[p.id].valid())
      throw OpGraphError("gradients: parameter '" + og.producer(p).name + "' does not reach the loss");
    out.push_back(grad[p.id]);
  }
  return out;
}

}  // namespace tessera::opgraph
