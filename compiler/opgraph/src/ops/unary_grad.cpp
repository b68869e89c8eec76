// unary_grad: dx of unary(op, x) from dy and v (x for leaky_relu and clip, the result y
// for sigmoid and tanh), PyTorch's formulas; lowered in place on dy (codelet ewise1_grad).
#include "op_def.h"
#include "tessera/ops/ewise.h"

namespace tessera::opgraph {

Value OpGraph::unary_grad(UnaryOp op, Value dy, Value v, float p0, float p1, std::string name) {
  const ValueInfo &idy = operand(dy, "unary_grad", name), &iv = operand(v, "unary_grad", name);
  if (idy.dtype != DType::kF32 || iv.dtype != DType::kF32 || idy.shape != iv.shape)
    throw OpGraphError(detail::op_who("unary_grad", name) + ": " + type_string(idy.dtype, idy.shape) + " and " +
                       type_string(iv.dtype, iv.shape) + ": needs two f32 tensors of one shape");
  std::vector<uint32_t> shape = idy.shape;
  const Value r = add_op(OpKind::kUnaryGrad, std::move(name), {dy, v}, DType::kF32, std::move(shape));
  ops_.back().attrs = {static_cast<uint32_t>(op)};
  ops_.back().fattrs = {p0, p1};
  return r;
}

namespace detail {
namespace {

float apply(UnaryOp op, float dy, float v, float p0, float p1) {
  switch (op) {
    case UnaryOp::kLeakyRelu: return v > 0 ? dy : dy * p0;
    case UnaryOp::kSigmoid: return dy * (v * (1.0f - v));
    case UnaryOp::kTanh: return dy * (1.0f - v * v);
    case UnaryOp::kClip: return (v <= p0 || v >= p1) ? 0.0f : dy;
  }
  return 0;
}

void eval(EvalContext& c, const Op& op) {
  std::vector<float> dy = c.f32(op.operands[0]);
  const std::vector<float> v = c.f32(op.operands[1]);
  for (size_t i = 0; i < dy.size(); ++i)
    dy[i] = apply(static_cast<UnaryOp>(op.attrs[0]), dy[i], v[i], op.fattrs[0], op.fattrs[1]);
  c.set(op, dy);
}

void lower(LowerContext& c, const Op& op, graph::Program& body) {
  const graph::Tensor dy = c.writable(op.operands[0], body, c.base(op) + ".unary_grad.in");
  ops::ewise1_grad(c.graph(), body, dy, c.mapped(op.operands[1]), op.attrs[0], op.fattrs[0], op.fattrs[1],
                   c.base(op) + ".unary_grad");
  c.set_result(op, dy);
}

}  // namespace

extern const OpDef kUnaryGradDef{OpKind::kUnaryGrad, eval, lower};

}  // namespace detail
}  // namespace tessera::opgraph
