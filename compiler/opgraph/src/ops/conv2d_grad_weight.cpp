// conv2d_grad_weight: dw f32[w_shape] of conv2d(x, w) from x and dy, summed over the images
// in index order. Lowered by ops::conv2d_grad_weight (channel blocks x image parts).
#include "op_def.h"
#include "window_attrs.h"

namespace tessera::opgraph {

Value OpGraph::conv2d_grad_weight(Value x, Value dy, const Conv2dAttrs& a, std::vector<uint32_t> w_shape,
                                  std::string name) {
  const std::string at = detail::op_who("conv2d_grad_weight", name);
  operand(x, "conv2d_grad_weight", name);
  operand(dy, "conv2d_grad_weight", name);
  const ValueInfo &ix = detail::image_operand(*this, x, at), &idy = detail::image_operand(*this, dy, at);
  if (w_shape.size() != 4 || idy.shape[1] != w_shape[0] || ix.shape[0] != idy.shape[0] || a.groups == 0 ||
      ix.shape[1] != w_shape[1] * a.groups)
    throw OpGraphError(at + ": x " + type_string(ix.dtype, ix.shape) + ", dy " + type_string(idy.dtype, idy.shape) +
                       " and weights " + detail::shape_str(w_shape) + " do not match");
  const Value r = add_op(OpKind::kConv2dGradWeight, std::move(name), {x, dy}, DType::kF32, std::move(w_shape));
  ops_.back().attrs = detail::encode(a);
  return r;
}

namespace detail {
namespace {

void eval(EvalContext& c, const Op& op) {
  const ops::WindowGeometry g = geometry(c.og, op);
  const std::vector<float> x = c.f32(op.operands[0]), dy = c.f32(op.operands[1]);
  const uint32_t n = c.shape(op.operands[0])[0], cg = g.c_in / g.groups, mg = g.c_out / g.groups;
  std::vector<float> dw(size_t(g.c_out) * cg * g.kh * g.kw);
  size_t at = 0;
  for (uint32_t m = 0; m < g.c_out; ++m)
    for (uint32_t ci = 0; ci < cg; ++ci)
      for (uint32_t ky = 0; ky < g.kh; ++ky)
        for (uint32_t kx = 0; kx < g.kw; ++kx) {
          float acc = 0;
          const uint32_t cx = m / mg * cg + ci;
          for (uint32_t i = 0; i < n; ++i)
            for (uint32_t oy = 0; oy < g.oh; ++oy) {
              const int64_t iy = int64_t(oy) * g.sh + int64_t(ky) * g.dh - g.pt;
              if (iy < 0 || iy >= g.h) continue;
              for (uint32_t ox = 0; ox < g.ow; ++ox) {
                const int64_t ix = int64_t(ox) * g.sw + int64_t(kx) * g.dw - g.pl;
                if (ix < 0 || ix >= g.w) continue;
                acc += dy[((size_t(i) * g.c_out + m) * g.oh + oy) * g.ow + ox] *
                       x[((size_t(i) * g.c_in + cx) * g.h + iy) * g.w + ix];
              }
            }
          dw[at++] = acc;
        }
  c.set(op, dw);
}

void lower(LowerContext& c, const Op& op, graph::Program& body) {
  const OpGraph& og = c.op_graph();
  c.set_result(op, ops::conv2d_grad_weight(c.graph(), body, c.mapped(op.operands[0]), c.mapped(op.operands[1]),
                                           geometry(og, op), og.info(op.operands[0]).shape[0],
                                           c.base(op) + ".conv_dw", c.grad_budget()));
}

}  // namespace

extern const OpDef kConv2dGradWeightDef{OpKind::kConv2dGradWeight, eval, lower};

}  // namespace detail
}  // namespace tessera::opgraph
