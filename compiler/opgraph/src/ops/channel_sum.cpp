// channel_sum: f32[N,C,H,W] -> f32[C], the sum over images and positions (in that order) of
// each channel: a conv bias's gradient. Lowered by ops::channel_sum (codelet channel_sum).
#include "op_def.h"
#include "window_attrs.h"

namespace tessera::opgraph {

Value OpGraph::channel_sum(Value dy, std::string name) {
  const std::string at = detail::op_who("channel_sum", name);
  operand(dy, "channel_sum", name);
  const ValueInfo& i = detail::image_operand(*this, dy, at);
  const uint32_t c = i.shape[1];
  return add_op(OpKind::kChannelSum, std::move(name), {dy}, DType::kF32, {c});
}

namespace detail {
namespace {

void eval(EvalContext& c, const Op& op) {
  const std::vector<uint32_t>& s = c.shape(op.operands[0]);
  const std::vector<float> dy = c.f32(op.operands[0]);
  const size_t hw = size_t(s[2]) * s[3];
  std::vector<float> r(s[1], 0.0f);
  for (uint32_t n = 0; n < s[0]; ++n)
    for (uint32_t ch = 0; ch < s[1]; ++ch)
      for (size_t p = 0; p < hw; ++p) r[ch] += dy[(size_t(n) * s[1] + ch) * hw + p];
  c.set(op, r);
}

void lower(LowerContext& c, const Op& op, graph::Program& body) {
  const std::vector<uint32_t>& s = c.op_graph().info(op.operands[0]).shape;
  c.set_result(op, ops::channel_sum(c.graph(), body, c.mapped(op.operands[0]), s[1], s[2] * s[3], s[0],
                                    c.base(op) + ".channel_sum"));
}

}  // namespace

extern const OpDef kChannelSumDef{OpKind::kChannelSum, eval, lower};

}  // namespace detail
}  // namespace tessera::opgraph
