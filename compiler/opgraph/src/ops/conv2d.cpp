// conv2d: x f32[N,C,H,W] * w f32[M,C/groups,kh,kw] + b f32[M] -> f32[N,M,OH,OW], ONNX Conv's
// geometry (Conv2dAttrs). Lowered by the window planner (ops/window.h): images x output
// channel blocks x output row blocks over the tiles, input windows with their halo copied.
#include "op_def.h"
#include "tessera/ops/streaming.h"
#include "window_attrs.h"

namespace tessera::opgraph {

Value OpGraph::conv2d(Value x, Value w, Value b, const Conv2dAttrs& a, std::string name) {
  const std::string at = detail::op_who("conv2d", name);
  operand(x, "conv2d", name);
  const ValueInfo& ix = detail::image_operand(*this, x, at);
  const ValueInfo& iw = operand(w, "conv2d", name);
  if (iw.dtype != DType::kF32 || iw.shape.size() != 4)
    throw OpGraphError(at + ": weights " + type_string(iw.dtype, iw.shape) + ": need f32[M,C/groups,kh,kw]");
  const OpKind wk = ops_[iw.op].kind;
  if (wk != OpKind::kConstant && wk != OpKind::kParameter)
    throw OpGraphError(at + ": the weights must be a constant or a parameter");
  const uint32_t c = ix.shape[1], m = iw.shape[0];
  if (a.groups == 0 || c % a.groups || m % a.groups || iw.shape[1] != c / a.groups)
    throw OpGraphError(at + ": " + type_string(ix.dtype, ix.shape) + " with weights " + type_string(iw.dtype, iw.shape) +
                       " and " + std::to_string(a.groups) + " groups: channels do not match");
  if (a.stride_h == 0 || a.stride_w == 0 || a.dilation_h == 0 || a.dilation_w == 0 || iw.shape[2] == 0 ||
      iw.shape[3] == 0)
    throw OpGraphError(at + ": strides, dilations and the kernel must be at least 1");
  std::vector<Value> operands{x, w};
  if (b.valid()) {
    const ValueInfo& ib = operand(b, "conv2d", name);
    if (ib.dtype != DType::kF32 || ib.shape != std::vector<uint32_t>{m})
      throw OpGraphError(at + ": bias " + type_string(ib.dtype, ib.shape) + ": needs f32[" + std::to_string(m) + "]");
    const OpKind bk = ops_[ib.op].kind;
    if (bk != OpKind::kConstant && bk != OpKind::kParameter)
      throw OpGraphError(at + ": the bias must be a constant or a parameter");
    operands.push_back(b);
  }
  const uint32_t oh = window_output_size(ix.shape[2], iw.shape[2], a.stride_h, a.pad_top, a.pad_bottom, a.dilation_h, false);
  const uint32_t ow = window_output_size(ix.shape[3], iw.shape[3], a.stride_w, a.pad_left, a.pad_right, a.dilation_w, false);
  if (oh == 0 || ow == 0)
    throw OpGraphError(at + ": the kernel " + detail::shape_str(iw.shape) + " does not fit the padded input " +
                       type_string(ix.dtype, ix.shape));
  const Value r = add_op(OpKind::kConv2d, std::move(name), std::move(operands), DType::kF32, {ix.shape[0], m, oh, ow});
  ops_.back().attrs = detail::encode(a);
  return r;
}

namespace detail {
namespace {

void eval(EvalContext& c, const Op& op) {
  const ops::WindowGeometry g = geometry(c.og, op);
  const std::vector<float> x = c.f32(op.operands[0]), w = c.f32(op.operands[1]);
  const std::vector<float> b = op.operands.size() > 2 ? c.f32(op.operands[2]) : std::vector<float>(g.c_out, 0.0f);
  const uint32_t n = c.shape(op.operands[0])[0], cg = g.c_in / g.groups, mg = g.c_out / g.groups;
  std::vector<float> y(size_t(n) * g.c_out * g.oh * g.ow);
  size_t at = 0;
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t m = 0; m < g.c_out; ++m)
      for (uint32_t oy = 0; oy < g.oh; ++oy)
        for (uint32_t ox = 0; ox < g.ow; ++ox) {
          float acc = 0;
          for (uint32_t ci = 0; ci < cg; ++ci) {
            const uint32_t cx = m / mg * cg + ci;
            for (uint32_t ky = 0; ky < g.kh; ++ky) {
              const int64_t iy = int64_t(oy) * g.sh + int64_t(ky) * g.dh - g.pt;
              if (iy < 0 || iy >= g.h) continue;
              for (uint32_t kx = 0; kx < g.kw; ++kx) {
                const int64_t ix = int64_t(ox) * g.sw + int64_t(kx) * g.dw - g.pl;
                if (ix < 0 || ix >= g.w) continue;
                acc += x[((size_t(i) * g.c_in + cx) * g.h + iy) * g.w + ix] *
                       w[((size_t(m) * cg + ci) * g.kh + ky) * g.kw + kx];
              }
            }
          }
          y[at++] = acc + b[m];
        }
  c.set(op, y);
}

// One pass of the conv: output channels [m0, m1) (all of them in one pass) with their
// weights, baked, spread or streamed from device memory right before it.
graph::Tensor lower_pass(LowerContext& c, const Op& op, graph::Program& body, ops::WindowGeometry geo,
                         ops::WindowPlan plan, uint32_t m0, uint32_t m1, const std::string& name,
                         const ops::ConvOutput* into) {
  const OpGraph& og = c.op_graph();
  const uint32_t batch = og.info(op.operands[0]).shape[0];
  const uint32_t per = geo.c_in / geo.groups * geo.kh * geo.kw;  // weights per output channel
  geo.c_out = m1 - m0;
  plan.passes = 1;
  const Value w = op.operands[1];
  const bool constant = og.producer(w).kind == OpKind::kConstant;
  const bool stream = constant && c.streams_weights(op);  // spread, loaded from device memory right before
  auto rows = [&](const std::vector<float>& v, uint32_t width) {
    return std::vector<float>(v.begin() + size_t{m0} * width, v.begin() + size_t{m1} * width);
  };
  ops::ConvWeights wts;
  if (!constant) {
    wts.w = c.mapped(w).flatten().slice(m0 * per, m1 * per);
  } else if (const double bytes = double(ops::conv_weight_bytes_per_tile(geo, plan));
             !stream && c.reserve_constant_bytes(plan.first, plan.jobs(), bytes)) {
    wts.w_values = rows(og.constant_data(w), per);
  } else {
    wts.w = ops::spread_conv_weights(c.graph(), rows(og.constant_data(w), per), geo, batch, plan, name);
    wts.w_blocked = true;
  }
  if (stream) ops::stream_in(c.graph(), body, wts.w, name + ".w");
  if (op.operands.size() > 2) {
    const Value b = op.operands[2];
    if (og.producer(b).kind == OpKind::kConstant) wts.b_values = rows(og.constant_data(b), 1);
    else wts.b = c.mapped(b).slice(m0, m1);
  }
  return ops::conv2d(c.graph(), body, c.mapped(op.operands[0]), wts, geo, plan, name, into);
}

void lower(LowerContext& c, const Op& op, graph::Program& body) {
  const OpGraph& og = c.op_graph();
  const ops::WindowGeometry geo = geometry(og, op);
  const uint32_t batch = og.info(op.operands[0]).shape[0];
  const std::string name = c.base(op) + ".conv";
  const bool constant = og.producer(op.operands[1]).kind == OpKind::kConstant;
  const ops::WindowPlan plan = c.plan_window(ops::WindowKind::kConv2d, geo, batch, name, constant, c.send_budget());
  if (plan.passes == 1) return c.set_result(op, lower_pass(c, op, body, geo, plan, 0, geo.c_out, name, nullptr));
  // In passes (window.h): each writes its channels of one output.
  const uint32_t per_pass = (geo.c_out + plan.passes - 1) / plan.passes;
  c.note(name + ": one pass's share of a tile does not fit the budget (" + std::to_string(uint64_t(c.budget())) +
         " bytes): " + std::to_string(plan.passes) + " passes of " + std::to_string(per_pass) + " output channels, " +
         std::to_string(plan.bytes) + " bytes on the fullest tile each");
  const ops::ConvOutput into{c.graph().add_variable(exe::DType::kF32, {batch, geo.c_out, geo.oh, geo.ow}, name),
                             geo.c_out, 0};
  for (uint32_t m0 = 0; m0 < geo.c_out; m0 += per_pass) {
    ops::ConvOutput pass = into;
    pass.c0 = m0;
    lower_pass(c, op, body, geo, plan, m0, std::min(geo.c_out, m0 + per_pass), name + ".pass" + std::to_string(m0 / per_pass),
               &pass);
  }
  c.set_result(op, into.y);
}

// dx = conv2d_grad_input(dy, w), dw = conv2d_grad_weight(x, dy), db = channel_sum(dy).
std::vector<Value> grad(GradArgs& a) {
  const Conv2dAttrs at = conv2d_attrs(a.op);
  const Value x = a.op.operands[0], w = a.op.operands[1];
  std::vector<Value> r(a.op.operands.size());
  if (a.need[0]) r[0] = a.og.conv2d_grad_input(a.dy, w, at, a.og.info(x).shape, grad_name(a.op));
  if (a.need[1]) r[1] = a.og.conv2d_grad_weight(x, a.dy, at, a.og.info(w).shape, grad_name(a.op));
  if (r.size() > 2 && a.need[2]) r[2] = a.og.channel_sum(a.dy, grad_name(a.op));
  return r;
}

}  // namespace

extern const OpDef kConv2dDef{OpKind::kConv2d, eval, lower, grad};

}  // namespace detail
}  // namespace tessera::opgraph
