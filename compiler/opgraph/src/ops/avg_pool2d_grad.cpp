// avg_pool2d_grad: dx of avg_pool2d: for each output in order, dy / its divisor added to
// every element of its window inside the input. Lowered per image and channel block
// (ops::avg_pool2d_grad, codelet avgpool2d_grad).
#include "op_def.h"
#include "window_attrs.h"

namespace tessera::opgraph {

Value OpGraph::avg_pool2d_grad(Value dy, const Pool2dAttrs& a, std::vector<uint32_t> x_shape, std::string name) {
  const std::string at = detail::op_who("avg_pool2d_grad", name);
  operand(dy, "avg_pool2d_grad", name);
  const ValueInfo& idy = detail::image_operand(*this, dy, at);
  if (x_shape.size() != 4 || x_shape[0] != idy.shape[0] || x_shape[1] != idy.shape[1])
    throw OpGraphError(at + ": dy " + type_string(idy.dtype, idy.shape) + " for x " + detail::shape_str(x_shape));
  const Value r = add_op(OpKind::kAvgPool2dGrad, std::move(name), {dy}, DType::kF32, std::move(x_shape));
  ops_.back().attrs = detail::encode(a);
  return r;
}

namespace detail {
namespace {

void eval(EvalContext& c, const Op& op) {
  const ops::WindowGeometry g = geometry(c.og, op);
  const bool include_pad = pool2d_attrs(op).count_include_pad;
  const std::vector<float> dy = c.f32(op.operands[0]);
  const uint32_t n = c.shape(op.result)[0];
  std::vector<float> dx(size_t(n) * g.c_in * g.h * g.w, 0.0f);
  size_t at = 0;
  for (uint32_t i = 0; i < n * g.c_in; ++i)
    for (uint32_t oy = 0; oy < g.oh; ++oy)
      for (uint32_t ox = 0; ox < g.ow; ++ox) {
        const AvgWindow a = avg_window(g, oy, ox, include_pad);
        const float v = dy[at++] / a.divisor;
        for (int64_t iy = a.h0; iy < a.h1; ++iy)
          for (int64_t ix = a.w0; ix < a.w1; ++ix) dx[(size_t(i) * g.h + iy) * g.w + ix] += v;
      }
  c.set(op, dx);
}

void lower(LowerContext& c, const Op& op, graph::Program& body) {
  const OpGraph& og = c.op_graph();
  c.set_result(op, ops::avg_pool2d_grad(c.graph(), body, c.mapped(op.operands[0]), geometry(og, op),
                                        pool2d_attrs(op).count_include_pad, og.info(op.result).shape[0],
                                        c.base(op) + ".avgpool_dx"));
}

}  // namespace

extern const OpDef kAvgPool2dGradDef{OpKind::kAvgPool2dGrad, eval, lower};

}  // namespace detail
}  // namespace tessera::opgraph
