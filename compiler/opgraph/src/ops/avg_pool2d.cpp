// avg_pool2d: the mean of each window of f32[N,C,H,W], PyTorch's divisor rule (the window
// clipped to the padded input; count_include_pad or only the elements inside);
// global_avg_pool is the one window over all of H and W. Lowered by the window planner.
#include "op_def.h"
#include "pool2d.h"
#include "window_attrs.h"

namespace tessera::opgraph {

Value OpGraph::avg_pool2d(Value x, const Pool2dAttrs& a, std::string name) {
  const std::string at = detail::op_who("avg_pool2d", name);
  operand(x, "avg_pool2d", name);
  std::vector<uint32_t> shape = detail::pool_shape(detail::image_operand(*this, x, at), a, at);
  const Value r = add_op(OpKind::kAvgPool2d, std::move(name), {x}, DType::kF32, std::move(shape));
  ops_.back().attrs = detail::encode(a);
  return r;
}

Value OpGraph::global_avg_pool(Value x, std::string name) {
  const std::string at = detail::op_who("global_avg_pool", name);
  operand(x, "global_avg_pool", name);
  const ValueInfo& ix = detail::image_operand(*this, x, at);
  Pool2dAttrs a;
  a.kernel_h = ix.shape[2];
  a.kernel_w = ix.shape[3];
  return avg_pool2d(x, a, std::move(name));
}

namespace detail {
namespace {

void eval(EvalContext& c, const Op& op) {
  const ops::WindowGeometry g = geometry(c.og, op);
  const bool include_pad = pool2d_attrs(op).count_include_pad;
  const std::vector<float> x = c.f32(op.operands[0]);
  const uint32_t n = c.shape(op.operands[0])[0];
  std::vector<float> y(size_t(n) * g.c_out * g.oh * g.ow);
  size_t at = 0;
  for (uint32_t i = 0; i < n * g.c_in; ++i)
    for (uint32_t oy = 0; oy < g.oh; ++oy)
      for (uint32_t ox = 0; ox < g.ow; ++ox) {
        const AvgWindow a = avg_window(g, oy, ox, include_pad);
        float sum = 0;
        for (int64_t iy = a.h0; iy < a.h1; ++iy)
          for (int64_t ix = a.w0; ix < a.w1; ++ix) sum += x[(size_t(i) * g.h + iy) * g.w + ix];
        y[at++] = sum / a.divisor;
      }
  c.set(op, y);
}

void lower(LowerContext& c, const Op& op, graph::Program& body) {
  const OpGraph& og = c.op_graph();
  const ops::WindowGeometry geo = geometry(og, op);
  const std::string name = c.base(op) + ".avgpool";
  const ops::WindowPlan plan = c.plan_window(ops::WindowKind::kAvgPool, geo, og.info(op.operands[0]).shape[0], name);
  c.set_result(op, ops::avg_pool2d(c.graph(), body, c.mapped(op.operands[0]), geo,
                                   pool2d_attrs(op).count_include_pad, plan, name));
}


std::vector<Value> grad(GradArgs& a) {
  return {a.og.avg_pool2d_grad(a.dy, pool2d_attrs(a.op), a.og.info(a.op.operands[0]).shape, grad_name(a.op))};
}

}  // namespace

extern const OpDef kAvgPool2dDef{OpKind::kAvgPool2d, eval, lower, grad};

}  // namespace detail
}  // namespace tessera::opgraph
