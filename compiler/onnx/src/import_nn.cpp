// ONNX import of the CNN ops: Conv (BatchNormalization folded into it), MaxPool,
// AveragePool, GlobalAveragePool, LRN, and BatchNormalization as multiply and add.
#include <cmath>

#include "importer.h"

namespace tessera::onnx_import::detail {

namespace {

// Pads (top, left, bottom, right) for auto_pad SAME_UPPER / SAME_LOWER: the output is
// ceil(in / stride), the padding split evenly with the odd one at the end (UPPER) or the
// start (LOWER).
void same_pads(bool upper, uint32_t in, uint32_t k_eff, uint32_t stride, uint32_t& begin, uint32_t& end) {
  const uint64_t out = (uint64_t{in} + stride - 1) / stride;
  const int64_t total = std::max<int64_t>(0, static_cast<int64_t>((out - 1) * stride + k_eff) - in);
  const auto small = static_cast<uint32_t>(total / 2), big = static_cast<uint32_t>(total - total / 2);
  begin = upper ? small : big;
  end = upper ? big : small;
}

}  // namespace

// The window geometry attributes shared by Conv and the pools, checked.
struct Window {
  uint32_t kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1;
  uint32_t top = 0, left = 0, bottom = 0, right = 0;
};

static Window window(const Importer& im, const std::vector<uint32_t>& x, uint32_t kh, uint32_t kw) {
  Window w;
  w.kh = kh;
  w.kw = kw;
  auto pair = [&](const char* name, uint32_t& a, uint32_t& b, int64_t lo) {
    const std::vector<int64_t> v = im.attr_ints(name, {});
    if (v.empty()) return;
    if (v.size() != 2)
      im.fail(std::string("attribute ") + name + " has " + std::to_string(v.size()) + " values, expected 2 (2-D)");
    for (int64_t e : v)
      if (e < lo || e > 65535) im.fail(std::string("attribute ") + name + " value " + std::to_string(e) + " is out of range");
    a = static_cast<uint32_t>(v[0]);
    b = static_cast<uint32_t>(v[1]);
  };
  pair("strides", w.sh, w.sw, 1);
  pair("dilations", w.dh, w.dw, 1);
  const std::string auto_pad = im.attr_string("auto_pad", "NOTSET");
  if (auto_pad == "NOTSET") {
    const std::vector<int64_t> p = im.attr_ints("pads", {0, 0, 0, 0});
    if (p.size() != 4) im.fail("attribute pads has " + std::to_string(p.size()) + " values, expected 4 (2-D)");
    for (int64_t e : p)
      if (e < 0 || e > 65535) im.fail("attribute pads value " + std::to_string(e) + " is out of range");
    w.top = static_cast<uint32_t>(p[0]);
    w.left = static_cast<uint32_t>(p[1]);
    w.bottom = static_cast<uint32_t>(p[2]);
    w.right = static_cast<uint32_t>(p[3]);
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    if (im.has_attr("pads")) im.fail("attributes auto_pad " + auto_pad + " and pads both given");
    const bool upper = auto_pad == "SAME_UPPER";
    same_pads(upper, x[2], (w.kh - 1) * w.dh + 1, w.sh, w.top, w.bottom);
    same_pads(upper, x[3], (w.kw - 1) * w.dw + 1, w.sw, w.left, w.right);
  } else if (auto_pad != "VALID") {
    im.fail("attribute auto_pad '" + auto_pad + "' is not supported (NOTSET, SAME_UPPER, SAME_LOWER, VALID)");
  }
  return w;
}

static void need_4d(const Importer& im, const std::vector<uint32_t>& x, const char* what) {
  if (x.size() != 4)
    im.fail(std::string("only 2-D ") + what + " (a 4-D NCHW input) is supported, the input is " +
            std::to_string(x.size()) + "-D");
}

int Importer::foldable_batch_norm(const std::string& conv_out) const {
  const auto it = consumers_.find(conv_out);
  if (it == consumers_.end() || it->second.size() != 1 || graph_outputs_.count(conv_out)) return -1;
  const onnx::NodeProto& bn = m_.graph().node(it->second[0]);
  if (bn.op_type() != "BatchNormalization" || !(bn.domain().empty() || bn.domain() == "ai.onnx")) return -1;
  if (bn.input_size() != 5 || bn.input(0) != conv_out || bn.output_size() < 1 || bn.output(0).empty()) return -1;
  for (int i = 1; i < 5; ++i) {
    const auto t = env_.find(bn.input(i));
    if (t == env_.end() || !t->second.c || !t->second.c->is_float) return -1;
  }
  for (const onnx::AttributeProto& a : bn.attribute()) {
    if (a.name() == "training_mode" && a.i() != 0) return -1;
    if (a.name() != "training_mode" && a.name() != "epsilon" && a.name() != "momentum") return -1;
  }
  for (int o = 1; o < bn.output_size(); ++o)
    if (!bn.output(o).empty() && (consumers_.count(bn.output(o)) || graph_outputs_.count(bn.output(o)))) return -1;
  if (env_.count(bn.output(0))) return -1;
  return it->second[0];
}

void Importer::conv() {
  known_attrs({"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"});
  input_count(2, 3);
  only_outputs(1);
  const std::vector<uint32_t> x = shape(0);
  need_4d(*this, x, "convolution");
  Const w = constant(1, "the weights");
  if (!w.is_float || w.dims.size() != 4)
    fail("the weights must be a 4-D float tensor, got " + std::to_string(w.dims.size()) + "-D");
  const int64_t group = attr_int("group", 1);
  const auto m = static_cast<uint32_t>(w.dims[0]);
  if (group < 1 || x[1] % group || m % group || static_cast<int64_t>(x[1] / group) != w.dims[1])
    fail("group " + std::to_string(group) + " does not fit " + std::to_string(x[1]) + " input channels and weights [" +
         std::to_string(w.dims[0]) + "," + std::to_string(w.dims[1]) + ",...]");
  const std::vector<int64_t> ks = attr_ints("kernel_shape", {w.dims[2], w.dims[3]});
  if (ks.size() != 2 || ks[0] != w.dims[2] || ks[1] != w.dims[3])
    fail("attribute kernel_shape differs from the weights' kernel");
  const Window win = window(*this, x, static_cast<uint32_t>(w.dims[2]), static_cast<uint32_t>(w.dims[3]));
  Const b;
  b.dims = {w.dims[0]};
  b.f.assign(m, 0.0f);
  const bool has_bias = has_input(2);
  if (has_bias) {
    b = constant(2, "the bias");
    if (!b.is_float || b.dims != std::vector<int64_t>{w.dims[0]})
      fail("the bias must be a float vector of " + std::to_string(m) + " values");
  }
  // BatchNormalization folded: w' = w * s, b' = (b - mean) * s + beta, s = scale / sqrt(var + eps).
  std::string wname = node_->input(1), bname = has_bias ? node_->input(2) : layer() + ".bias";
  const int bn_index = foldable_batch_norm(node_->output(0));
  const onnx::NodeProto* bn = bn_index >= 0 ? &m_.graph().node(bn_index) : nullptr;
  if (bn) {
    const Const& scale = *env_.at(bn->input(1)).c;
    const Const& beta = *env_.at(bn->input(2)).c;
    const Const& mean = *env_.at(bn->input(3)).c;
    const Const& var = *env_.at(bn->input(4)).c;
    float eps = 1e-5f;
    for (const onnx::AttributeProto& a : bn->attribute())
      if (a.name() == "epsilon") eps = a.f();
    for (const Const* c : {&scale, &beta, &mean, &var})
      if (c->f.size() != m) fail("the BatchNormalization after it has parameters that are not " + std::to_string(m) + " long");
    const size_t per = w.f.size() / m;
    for (uint32_t o = 0; o < m; ++o) {
      const double s = double{scale.f[o]} / std::sqrt(double{var.f[o]} + double{eps});
      for (size_t k = 0; k < per; ++k) w.f[o * per + k] = static_cast<float>(w.f[o * per + k] * s);
      b.f[o] = static_cast<float>((double{b.f[o]} - mean.f[o]) * s + beta.f[o]);
    }
    wname += "+" + bn->input(1);
    bname = layer() + ".bias+" + bn->input(2);
  }
  opgraph::Conv2dAttrs a;
  a.stride_h = win.sh;
  a.stride_w = win.sw;
  a.pad_top = win.top;
  a.pad_left = win.left;
  a.pad_bottom = win.bottom;
  a.pad_right = win.right;
  a.dilation_h = win.dh;
  a.dilation_w = win.dw;
  a.groups = static_cast<uint32_t>(group);
  const opgraph::Value wv = bn ? make_constant(wname, w) : value(1);
  const opgraph::Value bv = bn || !has_bias ? make_constant(bname, b) : value(2);
  const opgraph::Value y = og_.conv2d(value(0), wv, bv, a, layer());
  set(0, y);
  if (bn) fold_into(bn_index, bn->output(0), y);
}

void Importer::pool(bool max) {
  if (max) known_attrs({"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "storage_order", "strides"});
  else known_attrs({"auto_pad", "ceil_mode", "count_include_pad", "kernel_shape", "pads", "strides"});
  input_count(1, 1);
  only_outputs(1);  // MaxPool's Indices: not supported
  const std::vector<uint32_t> x = shape(0);
  need_4d(*this, x, "pooling");
  const std::vector<int64_t> k = attr_ints("kernel_shape", {});
  if (k.size() != 2) fail("attribute kernel_shape must give 2 sizes (2-D pooling), got " + std::to_string(k.size()));
  for (int64_t e : k)
    if (e < 1 || e > 65535) fail("attribute kernel_shape value " + std::to_string(e) + " is out of range");
  const Window w = window(*this, x, static_cast<uint32_t>(k[0]), static_cast<uint32_t>(k[1]));
  if (w.dh != 1 || w.dw != 1) fail("dilated pooling (dilations other than 1) is not supported");
  const int64_t ceil = attr_int("ceil_mode", 0), cip = attr_int("count_include_pad", 0);
  if (ceil != 0 && ceil != 1) fail("attribute ceil_mode " + std::to_string(ceil) + " is not 0 or 1");
  if (cip != 0 && cip != 1) fail("attribute count_include_pad " + std::to_string(cip) + " is not 0 or 1");
  opgraph::Pool2dAttrs a;
  a.kernel_h = w.kh;
  a.kernel_w = w.kw;
  a.stride_h = w.sh;
  a.stride_w = w.sw;
  a.pad_top = w.top;
  a.pad_left = w.left;
  a.pad_bottom = w.bottom;
  a.pad_right = w.right;
  a.ceil_mode = ceil == 1;
  a.count_include_pad = cip == 1;
  set(0, max ? og_.max_pool2d(value(0), a, layer()) : og_.avg_pool2d(value(0), a, layer()));
}

void Importer::global_average_pool() {
  known_attrs({});
  input_count(1, 1);
  need_4d(*this, shape(0), "global average pooling");
  set(0, og_.global_avg_pool(value(0), layer()));
}

void Importer::lrn() {
  known_attrs({"alpha", "beta", "bias", "size"});
  input_count(1, 1);
  need_4d(*this, shape(0), "LRN");
  const int64_t size = attr_int("size", 0);
  if (size < 1 || size > 65535) fail("attribute size " + std::to_string(size) + " is missing or out of range");
  set(0, og_.lrn(value(0), static_cast<uint32_t>(size), attr_float("alpha", 1e-4f), attr_float("beta", 0.75f),
                 attr_float("bias", 1.0f), layer()));
}

void Importer::batch_norm() {
  known_attrs({"epsilon", "momentum", "training_mode"});
  input_count(5, 5);
  only_outputs(1);
  if (attr_int("training_mode", 0) != 0) fail("training_mode 1 is not supported (inference only)");
  const std::vector<uint32_t> x = shape(0);
  if (x.size() < 2) fail("the input must have a channel dimension (N, C, ...)");
  const uint32_t c = x[1];
  std::vector<const Const*> p;
  const char* roles[] = {"", "the scale", "the bias", "the mean", "the variance"};
  for (int i = 1; i < 5; ++i) {
    p.push_back(&constant(i, roles[i]));
    if (!p.back()->is_float || p.back()->f.size() != c)
      fail(std::string(roles[i]) + " must be a float vector of " + std::to_string(c) + " values");
  }
  const float eps = attr_float("epsilon", 1e-5f);
  // y = x * s + t per channel, s = scale / sqrt(var + eps), t = bias - mean * s.
  Const s, t;
  s.dims.assign(x.size() - 1, 1);
  s.dims[0] = c;
  t.dims = s.dims;
  for (uint32_t i = 0; i < c; ++i) {
    const double si = double{p[0]->f[i]} / std::sqrt(double{p[3]->f[i]} + double{eps});
    s.f.push_back(static_cast<float>(si));
    t.f.push_back(static_cast<float>(double{p[1]->f[i]} - double{p[2]->f[i]} * si));
  }
  const opgraph::Value sv = make_constant(layer() + ".scale", s), tv = make_constant(layer() + ".shift", t);
  set(0, og_.binary(opgraph::BinaryOp::kAdd, og_.binary(opgraph::BinaryOp::kMul, value(0), sv, layer()), tv, layer()));
}

}  // namespace tessera::onnx_import::detail
