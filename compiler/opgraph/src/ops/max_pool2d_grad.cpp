// max_pool2d_grad: dx of max_pool2d(x): for each output in order, dy added to its window's
// first largest element (PyTorch's rule, NaN counts as largest). Lowered per image and
// channel block (ops::max_pool2d_grad, codelet maxpool2d_grad).
#include <cmath>

#include "op_def.h"
#include "window_attrs.h"

namespace tessera::opgraph {

Value OpGraph::max_pool2d_grad(Value dy, Value x, const Pool2dAttrs& a, std::string name) {
  const std::string at = detail::op_who("max_pool2d_grad", name);
  operand(dy, "max_pool2d_grad", name);
  operand(x, "max_pool2d_grad", name);
  detail::image_operand(*this, dy, at);
  std::vector<uint32_t> shape = detail::image_operand(*this, x, at).shape;
  const Value r = add_op(OpKind::kMaxPool2dGrad, std::move(name), {dy, x}, DType::kF32, std::move(shape));
  ops_.back().attrs = detail::encode(a);
  return r;
}

namespace detail {
namespace {

void eval(EvalContext& c, const Op& op) {
  const ops::WindowGeometry g = geometry(c.og, op);
  const std::vector<float> dy = c.f32(op.operands[0]), x = c.f32(op.operands[1]);
  const uint32_t n = c.shape(op.result)[0];
  std::vector<float> dx(x.size(), 0.0f);
  size_t at = 0;
  for (uint32_t i = 0; i < n * g.c_in; ++i)
    for (uint32_t oy = 0; oy < g.oh; ++oy)
      for (uint32_t ox = 0; ox < g.ow; ++ox) {
        size_t best = SIZE_MAX;
        for (uint32_t ky = 0; ky < g.kh; ++ky) {
          const int64_t iy = int64_t(oy) * g.sh + ky - g.pt;
          if (iy < 0 || iy >= g.h) continue;
          for (uint32_t kx = 0; kx < g.kw; ++kx) {
            const int64_t ix = int64_t(ox) * g.sw + kx - g.pl;
            if (ix < 0 || ix >= g.w) continue;
            const size_t k = (size_t(i) * g.h + iy) * g.w + ix;
            if (best == SIZE_MAX || x[k] > x[best] || std::isnan(x[k])) best = k;
          }
        }
        if (best != SIZE_MAX) dx[best] += dy[at];
        ++at;
      }
  c.set(op, dx);
}

void lower(LowerContext& c, const Op& op, graph::Program& body) {
  const OpGraph& og = c.op_graph();
  c.set_result(op, ops::max_pool2d_grad(c.graph(), body, c.mapped(op.operands[0]), c.mapped(op.operands[1]),
                                        geometry(og, op), og.info(op.result).shape[0], c.base(op) + ".maxpool_dx"));
}

}  // namespace

extern const OpDef kMaxPool2dGradDef{OpKind::kMaxPool2dGrad, eval, lower};

}  // namespace detail
}  // namespace tessera::opgraph
