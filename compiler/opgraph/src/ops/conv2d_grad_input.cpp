// conv2d_grad_input: dx f32[x_shape] of conv2d(x, w) from dy and w. Lowered per image and
// group (ops::conv2d_grad_input, codelet conv2d_grad_input).
#include "op_def.h"
#include "window_attrs.h"

namespace tessera::opgraph {

Value OpGraph::conv2d_grad_input(Value dy, Value w, const Conv2dAttrs& a, std::vector<uint32_t> x_shape,
                                 std::string name) {
  const std::string at = detail::op_who("conv2d_grad_input", name);
  operand(dy, "conv2d_grad_input", name);
  operand(w, "conv2d_grad_input", name);
  const ValueInfo &idy = detail::image_operand(*this, dy, at), &iw = info(w);
  if (x_shape.size() != 4 || iw.shape.size() != 4 || idy.shape[1] != iw.shape[0] || x_shape[0] != idy.shape[0])
    throw OpGraphError(at + ": dy " + type_string(idy.dtype, idy.shape) + ", weights " +
                       type_string(iw.dtype, iw.shape) + " and x " + detail::shape_str(x_shape) + " do not match");
  const Value r = add_op(OpKind::kConv2dGradInput, std::move(name), {dy, w}, DType::kF32, std::move(x_shape));
  ops_.back().attrs = detail::encode(a);
  return r;
}

namespace detail {
namespace {

void eval(EvalContext& c, const Op& op) {
  const ops::WindowGeometry g = geometry(c.og, op);
  const std::vector<float> dy = c.f32(op.operands[0]), w = c.f32(op.operands[1]);
  const uint32_t n = c.shape(op.result)[0], cg = g.c_in / g.groups, mg = g.c_out / g.groups;
  std::vector<float> dx(size_t(n) * g.c_in * g.h * g.w, 0.0f);
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t ci = 0; ci < g.c_in; ++ci)
      for (uint32_t iy = 0; iy < g.h; ++iy)
        for (uint32_t ix = 0; ix < g.w; ++ix) {
          float acc = 0;
          const uint32_t gi = ci / cg;
          for (uint32_t m = gi * mg; m < (gi + 1) * mg; ++m)
            for (uint32_t ky = 0; ky < g.kh; ++ky) {
              const int64_t ty = int64_t(iy) + g.pt - int64_t(ky) * g.dh;
              if (ty < 0 || ty % g.sh || ty / g.sh >= g.oh) continue;
              for (uint32_t kx = 0; kx < g.kw; ++kx) {
                const int64_t tx = int64_t(ix) + g.pl - int64_t(kx) * g.dw;
                if (tx < 0 || tx % g.sw || tx / g.sw >= g.ow) continue;
                acc += dy[((size_t(i) * g.c_out + m) * g.oh + ty / g.sh) * g.ow + tx / g.sw] *
                       w[((size_t(m) * cg + ci % cg) * g.kh + ky) * g.kw + kx];
              }
            }
          dx[((size_t(i) * g.c_in + ci) * g.h + iy) * g.w + ix] = acc;
        }
  c.set(op, dx);
}

void lower(LowerContext& c, const Op& op, graph::Program& body) {
  const OpGraph& og = c.op_graph();
  ops::ConvWeights wts;
  const Value w = op.operands[1];
  if (og.producer(w).kind == OpKind::kConstant) wts.w_values = og.constant_data(w);
  else wts.w = c.mapped(w);
  c.set_result(op, ops::conv2d_grad_input(c.graph(), body, c.mapped(op.operands[0]), wts, geometry(og, op),
                                          og.info(op.result).shape[0], c.base(op) + ".conv_dx", c.grad_budget()));
}

}  // namespace

extern const OpDef kConv2dGradInputDef{OpKind::kConv2dGradInput, eval, lower};

}  // namespace detail
}  // namespace tessera::opgraph
