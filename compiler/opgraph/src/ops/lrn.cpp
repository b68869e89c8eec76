// lrn: ONNX LRN across channels of f32[N,C,H,W]: y = x / (bias + alpha / size * sq)^beta,
// sq the sum of x^2 over channels [c - floor((size-1)/2), c + ceil((size-1)/2)] clipped.
// Lowered with whole images on a tile (the window planner with one channel and row block).
#include <cmath>

#include "op_def.h"
#include "window_attrs.h"

namespace tessera::opgraph {

Value OpGraph::lrn(Value x, uint32_t size, float alpha, float beta, float bias, std::string name) {
  const std::string at = detail::op_who("lrn", name);
  operand(x, "lrn", name);
  const ValueInfo& ix = detail::image_operand(*this, x, at);
  if (size == 0) throw OpGraphError(at + ": size must be at least 1");
  if (!std::isfinite(alpha) || !std::isfinite(beta) || !std::isfinite(bias))
    throw OpGraphError(at + ": alpha, beta and bias must be finite");
  std::vector<uint32_t> shape = ix.shape;
  const Value r = add_op(OpKind::kLrn, std::move(name), {x}, DType::kF32, std::move(shape));
  ops_.back().attrs = {size};
  ops_.back().fattrs = {alpha, beta, bias};
  return r;
}

namespace detail {
namespace {

void eval(EvalContext& c, const Op& op) {
  const std::vector<uint32_t>& s = c.shape(op.operands[0]);
  const std::vector<float> x = c.f32(op.operands[0]);
  const uint32_t size = op.attrs[0], ch = s[1], hw = s[2] * s[3];
  const float alpha = op.fattrs[0], beta = op.fattrs[1], bias = op.fattrs[2];
  std::vector<float> y(x.size());
  for (uint32_t n = 0; n < s[0]; ++n)
    for (uint32_t ci = 0; ci < ch; ++ci)
      for (uint32_t p = 0; p < hw; ++p) {
        const int64_t lo = std::max<int64_t>(0, int64_t(ci) - (size - 1) / 2);
        const int64_t hi = std::min<int64_t>(ch - 1, int64_t(ci) + size / 2);
        float sq = 0;
        for (int64_t k = lo; k <= hi; ++k) {
          const float v = x[(size_t(n) * ch + k) * hw + p];
          sq += v * v;
        }
        const size_t i = (size_t(n) * ch + ci) * hw + p;
        y[i] = x[i] / std::pow(bias + alpha / float(size) * sq, beta);
      }
  c.set(op, y);
}

void lower(LowerContext& c, const Op& op, graph::Program& body) {
  const OpGraph& og = c.op_graph();
  const ops::WindowGeometry geo = geometry(og, op);
  const std::string name = c.base(op) + ".lrn";
  const ops::WindowPlan plan = c.plan_window(ops::WindowKind::kLrn, geo, og.info(op.operands[0]).shape[0], name);
  c.set_result(op, ops::lrn(c.graph(), body, c.mapped(op.operands[0]), geo, op.attrs[0], op.fattrs[0], op.fattrs[1],
                            op.fattrs[2], plan, name));
}

}  // namespace

extern const OpDef kLrnDef{OpKind::kLrn, eval, lower};

}  // namespace detail
}  // namespace tessera::opgraph
