// unary: leaky_relu (p0 = alpha), sigmoid, tanh, clip (p0 = min, p1 = max), f32, lowered in
// place where the operand lies (codelet ewise1, whose op codes are UnaryOp's).
#include <cmath>

#include "op_def.h"
#include "tessera/ops/ewise.h"

namespace tessera::opgraph {

const char* unary_op_name(UnaryOp op) {
  switch (op) {
    case UnaryOp::kLeakyRelu: return "leaky_relu";
    case UnaryOp::kSigmoid: return "sigmoid";
    case UnaryOp::kTanh: return "tanh";
    case UnaryOp::kClip: return "clip";
  }
  return "?";
}

Value OpGraph::unary(UnaryOp op, Value x, float p0, float p1, std::string name) {
  const char* what = unary_op_name(op);
  const ValueInfo& ix = operand(x, what, name);
  if (ix.dtype != DType::kF32)
    throw OpGraphError(detail::op_who(what, name) + ": " + type_string(ix.dtype, ix.shape) + ": needs f32");
  if (op == UnaryOp::kClip && !(p0 <= p1))
    throw OpGraphError(detail::op_who(what, name) + ": min " + std::to_string(p0) + " above max " + std::to_string(p1));
  std::vector<uint32_t> shape = ix.shape;
  const Value r = add_op(OpKind::kUnary, std::move(name), {x}, DType::kF32, std::move(shape));
  ops_.back().attrs = {static_cast<uint32_t>(op)};
  ops_.back().fattrs = {p0, p1};
  return r;
}

namespace detail {
namespace {

float apply(UnaryOp op, float x, float p0, float p1) {
  switch (op) {
    case UnaryOp::kLeakyRelu: return x >= 0 ? x : x * p0;
    case UnaryOp::kSigmoid: return 1.0f / (1.0f + std::exp(-x));
    case UnaryOp::kTanh: return std::tanh(x);
    case UnaryOp::kClip: return std::isnan(x) ? x : std::min(std::max(x, p0), p1);
  }
  return 0;
}

void eval(EvalContext& c, const Op& op) {
  std::vector<float> x = c.f32(op.operands[0]);
  for (float& v : x) v = apply(static_cast<UnaryOp>(op.attrs[0]), v, op.fattrs[0], op.fattrs[1]);
  c.set(op, x);
}

void lower(LowerContext& c, const Op& op, graph::Program& body) {
  const char* what = unary_op_name(static_cast<UnaryOp>(op.attrs[0]));
  const graph::Tensor x = c.writable(op.operands[0], body, c.base(op) + "." + what + ".in");
  ops::ewise1(c.graph(), body, x, op.attrs[0], op.fattrs[0], op.fattrs[1], c.base(op) + "." + what);
  c.set_result(op, x);
}


// v is x for leaky_relu and clip, the result for sigmoid and tanh.
std::vector<Value> grad(GradArgs& a) {
  const auto u = static_cast<UnaryOp>(a.op.attrs[0]);
  const Value v = u == UnaryOp::kSigmoid || u == UnaryOp::kTanh ? a.op.result : a.op.operands[0];
  return {a.og.unary_grad(u, a.dy, v, a.op.fattrs[0], a.op.fattrs[1], grad_name(a.op))};
}

}  // namespace

extern const OpDef kUnaryDef{OpKind::kUnary, eval, lower, grad};

}  // namespace detail
}  // namespace tessera::opgraph
