// reshape: the same elements in another shape. No data moves: the result is a view of the
// operand's tensor (graph::Tensor::reshape).
#include "op_def.h"

namespace tessera::opgraph {

Value OpGraph::reshape(Value x, std::vector<uint32_t> shape, std::string name) {
  const ValueInfo& ix = operand(x, "reshape", name);
  if (shape.empty() || detail::elements(shape) != detail::elements(ix.shape))
    throw OpGraphError(detail::op_who("reshape", name) + ": " + type_string(ix.dtype, ix.shape) + " to " +
                       detail::shape_str(shape) + ": the element counts differ");
  const DType dt = ix.dtype;
  const Value r = add_op(OpKind::kReshape, std::move(name), {x}, dt, shape);
  ops_.back().attrs = std::move(shape);
  return r;
}

namespace detail {
namespace {

void eval(EvalContext& c, const Op& op) { c.vals[op.result.id] = c.vals[op.operands[0].id]; }

void lower(LowerContext& c, const Op& op, graph::Program&) {
  c.set_result(op, c.mapped(op.operands[0]).reshape(c.op_graph().info(op.result).shape));
}


std::vector<Value> grad(GradArgs& a) { return {a.og.reshape(a.dy, a.og.info(a.op.operands[0]).shape, grad_name(a.op))}; }

}  // namespace

extern const OpDef kReshapeDef{OpKind::kReshape, eval, lower, grad};

}  // namespace detail
}  // namespace tessera::opgraph
