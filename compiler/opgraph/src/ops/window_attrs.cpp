#include "window_attrs.h"

#include <algorithm>

#include "op_def.h"

namespace tessera::opgraph {

uint32_t window_output_size(uint32_t in, uint32_t kernel, uint32_t stride, uint32_t pad_begin, uint32_t pad_end,
                            uint32_t dilation, bool ceil_mode) {
  const uint64_t padded = uint64_t(in) + pad_begin + pad_end, span = uint64_t(dilation) * (kernel - 1) + 1;
  if (stride == 0 || kernel == 0 || padded < span) return 0;
  uint64_t out = (padded - span + (ceil_mode ? stride - 1 : 0)) / stride + 1;
  // Ceil mode: the last window must start inside the input or its top/left padding.
  if (ceil_mode && (out - 1) * stride >= uint64_t(in) + pad_begin) --out;
  return static_cast<uint32_t>(out);
}

Conv2dAttrs conv2d_attrs(const Op& op) {
  const std::vector<uint32_t>& w = op.attrs;
  const bool conv = op.kind == OpKind::kConv2d || op.kind == OpKind::kConv2dGradInput ||
                    op.kind == OpKind::kConv2dGradWeight;
  if (!conv || w.size() != 9) throw OpGraphError("conv2d_attrs: not a conv2d op");
  return {w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7], w[8]};
}

Pool2dAttrs pool2d_attrs(const Op& op) {
  const std::vector<uint32_t>& w = op.attrs;
  const bool pool = op.kind == OpKind::kMaxPool2d || op.kind == OpKind::kAvgPool2d ||
                    op.kind == OpKind::kMaxPool2dGrad || op.kind == OpKind::kAvgPool2dGrad;
  if (!pool || w.size() != 10)
    throw OpGraphError("pool2d_attrs: not a pool op");
  return {w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7], w[8] != 0, w[9] != 0};
}

namespace detail {

std::vector<uint32_t> encode(const Conv2dAttrs& a) {
  return {a.stride_h, a.stride_w, a.pad_top, a.pad_left, a.pad_bottom, a.pad_right, a.dilation_h, a.dilation_w,
          a.groups};
}

std::vector<uint32_t> encode(const Pool2dAttrs& a) {
  return {a.kernel_h, a.kernel_w, a.stride_h, a.stride_w, a.pad_top, a.pad_left, a.pad_bottom, a.pad_right,
          a.ceil_mode ? 1u : 0u, a.count_include_pad ? 1u : 0u};
}

AvgWindow avg_window(const ops::WindowGeometry& g, uint32_t oy, uint32_t ox, bool count_include_pad) {
  const int64_t hs = int64_t(oy) * g.sh - g.pt, ws = int64_t(ox) * g.sw - g.pl;
  const int64_t he = std::min<int64_t>(hs + g.kh, int64_t(g.h) + g.pb);
  const int64_t we = std::min<int64_t>(ws + g.kw, int64_t(g.w) + g.pr);
  AvgWindow a{std::max<int64_t>(hs, 0), std::min<int64_t>(he, g.h), std::max<int64_t>(ws, 0), std::min<int64_t>(we, g.w), 0};
  a.divisor = float(count_include_pad ? (he - hs) * (we - ws) : (a.h1 - a.h0) * (a.w1 - a.w0));
  return a;
}

const ValueInfo& image_operand(const OpGraph& og, Value x, const std::string& what) {
  const ValueInfo& ix = og.info(x);
  if (ix.dtype != DType::kF32 || ix.shape.size() != 4)
    throw OpGraphError(what + ": " + type_string(ix.dtype, ix.shape) + ": needs f32[N,C,H,W]");
  return ix;
}

ops::WindowGeometry geometry(const OpGraph& og, const Op& op) {
  // The forward op's image x, output y and weights w, wherever this op holds them.
  const auto shape = [&](Value v) -> const std::vector<uint32_t>& { return og.info(v).shape; };
  const std::vector<uint32_t>*xs = nullptr, *ys = nullptr, *ws = nullptr;
  switch (op.kind) {
    case OpKind::kConv2d: xs = &shape(op.operands[0]), ys = &shape(op.result), ws = &shape(op.operands[1]); break;
    case OpKind::kConv2dGradInput: xs = &shape(op.result), ys = &shape(op.operands[0]), ws = &shape(op.operands[1]); break;
    case OpKind::kConv2dGradWeight: xs = &shape(op.operands[0]), ys = &shape(op.operands[1]), ws = &shape(op.result); break;
    case OpKind::kMaxPool2dGrad: xs = &shape(op.operands[1]), ys = &shape(op.operands[0]); break;
    case OpKind::kAvgPool2dGrad: xs = &shape(op.result), ys = &shape(op.operands[0]); break;
    default: xs = &shape(op.operands[0]), ys = &shape(op.result); break;
  }
  ops::WindowGeometry g;
  g.c_in = (*xs)[1], g.h = (*xs)[2], g.w = (*xs)[3];
  g.c_out = (*ys)[1], g.oh = (*ys)[2], g.ow = (*ys)[3];
  if (ws) {
    const Conv2dAttrs a = conv2d_attrs(op);
    g.kh = (*ws)[2], g.kw = (*ws)[3], g.sh = a.stride_h, g.sw = a.stride_w;
    g.pt = a.pad_top, g.pl = a.pad_left, g.pb = a.pad_bottom, g.pr = a.pad_right;
    g.dh = a.dilation_h, g.dw = a.dilation_w, g.groups = a.groups;
  } else if (op.kind == OpKind::kLrn) {
    g.groups = 1;  // all channels together
  } else {
    const Pool2dAttrs a = pool2d_attrs(op);
    g.kh = a.kernel_h, g.kw = a.kernel_w, g.sh = a.stride_h, g.sw = a.stride_w;
    g.pt = a.pad_top, g.pl = a.pad_left, g.pb = a.pad_bottom, g.pr = a.pad_right;
    g.groups = g.c_in;
  }
  return g;
}

}  // namespace detail
}  // namespace tessera::opgraph
