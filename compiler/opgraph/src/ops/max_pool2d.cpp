// max_pool2d: the largest element of each window of f32[N,C,H,W] (PyTorch's rule: the
// first wins, a later one if larger or NaN), padding ignored. Lowered by the window
// planner (ops/window.h) over images, channel blocks and row blocks.
#include <cmath>
#include <limits>

#include "op_def.h"
#include "pool2d.h"
#include "window_attrs.h"

namespace tessera::opgraph {

namespace detail {

std::vector<uint32_t> pool_shape(const ValueInfo& ix, const Pool2dAttrs& a, const std::string& what) {
  if (a.kernel_h == 0 || a.kernel_w == 0 || a.stride_h == 0 || a.stride_w == 0)
    throw OpGraphError(what + ": the kernel and strides must be at least 1");
  if (a.pad_top >= a.kernel_h || a.pad_bottom >= a.kernel_h || a.pad_left >= a.kernel_w || a.pad_right >= a.kernel_w)
    throw OpGraphError(what + ": pads must be smaller than the kernel");
  const uint32_t oh = window_output_size(ix.shape[2], a.kernel_h, a.stride_h, a.pad_top, a.pad_bottom, 1, a.ceil_mode);
  const uint32_t ow = window_output_size(ix.shape[3], a.kernel_w, a.stride_w, a.pad_left, a.pad_right, 1, a.ceil_mode);
  if (oh == 0 || ow == 0)
    throw OpGraphError(what + ": the kernel " + std::to_string(a.kernel_h) + "x" + std::to_string(a.kernel_w) +
                       " does not fit the padded input " + type_string(ix.dtype, ix.shape));
  return {ix.shape[0], ix.shape[1], oh, ow};
}

}  // namespace detail

Value OpGraph::max_pool2d(Value x, const Pool2dAttrs& a, std::string name) {
  const std::string at = detail::op_who("max_pool2d", name);
  operand(x, "max_pool2d", name);
  std::vector<uint32_t> shape = detail::pool_shape(detail::image_operand(*this, x, at), a, at);
  const Value r = add_op(OpKind::kMaxPool2d, std::move(name), {x}, DType::kF32, std::move(shape));
  ops_.back().attrs = detail::encode(a);
  return r;
}

namespace detail {
namespace {

void eval(EvalContext& c, const Op& op) {
  const ops::WindowGeometry g = geometry(c.og, op);
  const std::vector<float> x = c.f32(op.operands[0]);
  const uint32_t n = c.shape(op.operands[0])[0];
  std::vector<float> y(size_t(n) * g.c_out * g.oh * g.ow);
  size_t at = 0;
  for (uint32_t i = 0; i < n * g.c_in; ++i)
    for (uint32_t oy = 0; oy < g.oh; ++oy)
      for (uint32_t ox = 0; ox < g.ow; ++ox) {
        float best = -std::numeric_limits<float>::infinity();
        bool first = true;
        for (uint32_t ky = 0; ky < g.kh; ++ky) {
          const int64_t iy = int64_t(oy) * g.sh + ky - g.pt;
          if (iy < 0 || iy >= g.h) continue;
          for (uint32_t kx = 0; kx < g.kw; ++kx) {
            const int64_t ix = int64_t(ox) * g.sw + kx - g.pl;
            if (ix < 0 || ix >= g.w) continue;
            const float v = x[(size_t(i) * g.h + iy) * g.w + ix];
            if (first || v > best || std::isnan(v)) best = v;
            first = false;
          }
        }
        y[at++] = best;
      }
  c.set(op, y);
}

void lower(LowerContext& c, const Op& op, graph::Program& body) {
  const OpGraph& og = c.op_graph();
  const ops::WindowGeometry geo = geometry(og, op);
  const std::string name = c.base(op) + ".maxpool";
  const ops::WindowPlan plan = c.plan_window(ops::WindowKind::kMaxPool, geo, og.info(op.operands[0]).shape[0], name);
  c.set_result(op, ops::max_pool2d(c.graph(), body, c.mapped(op.operands[0]), geo, plan, name));
}


std::vector<Value> grad(GradArgs& a) {
  return {a.og.max_pool2d_grad(a.dy, a.op.operands[0], pool2d_attrs(a.op), grad_name(a.op))};
}

}  // namespace

extern const OpDef kMaxPool2dDef{OpKind::kMaxPool2d, eval, lower, grad};

}  // namespace detail
}  // namespace tessera::opgraph
