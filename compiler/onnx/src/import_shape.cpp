// ONNX import of the shape ops: Flatten, Reshape, Transpose, Concat, Squeeze/Unsqueeze
// (reshape, transpose and concat ops, or folded on constants), Dropout and Identity
// (pass-through), Constant, and the shape arithmetic exporters emit (Shape, Gather, Cast),
// folded at import.
#include <algorithm>
#include <string>
#include <numeric>
#include <set>

#include "importer.h"

namespace tessera::onnx_import::detail {

using opgraph::Value;

namespace {

std::string text(const std::vector<int64_t>& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
  return s + "]";
}

}  // namespace

// The input reshaped to `dims` (same element count): a reshape op, or the constant with new dims.
static void reshaped(Importer& im, const std::vector<int64_t>& dims) {
  if (im.is_const(0)) {
    Const c = im.constant(0, "the input");
    c.dims = dims;
    im.set(0, std::move(c));
    return;
  }
  std::vector<uint32_t> s;
  for (int64_t d : dims) s.push_back(static_cast<uint32_t>(d));
  if (s.empty()) im.fail("a 0-D (scalar) result computed at run time is not supported");
  const Value x = im.value(0);
  im.set(0, s == im.og().info(x).shape ? x : im.og().reshape(x, s, im.layer()));
}

void Importer::flatten() {
  known_attrs({"axis"});
  input_count(1, 1);
  const std::vector<int64_t> s = to_dims(shape(0));
  const uint32_t ax = axis(attr_int("axis", 1), s.size(), "axis", true);
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < s.size(); ++d) (d < ax ? outer : inner) *= s[d];
  reshaped(*this, {outer, inner});
}

void Importer::reshape() {
  known_attrs({"allowzero"});
  input_count(2, 2);
  const std::vector<int64_t> in = to_dims(shape(0));
  std::vector<int64_t> want = ints(1, "the shape");
  const bool allowzero = attr_int("allowzero", 0) == 1;
  int infer = -1;
  int64_t known = 1;
  for (size_t i = 0; i < want.size(); ++i) {
    if (want[i] == 0 && !allowzero) {
      if (i >= in.size()) fail("shape " + text(want) + ": a 0 at " + std::to_string(i) + " has no input dimension to copy");
      want[i] = in[i];
    }
    if (want[i] == -1) {
      if (infer >= 0) fail("shape " + text(want) + " has more than one -1");
      infer = static_cast<int>(i);
      continue;
    }
    if (want[i] <= 0) fail("shape " + text(want) + " has a dimension " + std::to_string(want[i]) + " (empty tensors are not supported)");
    known *= want[i];
    if (known > (int64_t{1} << 31)) fail("shape " + text(want) + " is too large");
  }
  const auto total = static_cast<int64_t>(element_count(in));
  if (infer >= 0) {
    if (total % known) fail("shape " + text(want) + " does not divide the input " + text(in));
    want[infer] = total / known;
  }
  if (element_count(want) != static_cast<uint64_t>(total))
    fail("shape " + text(want) + " holds a different number of elements than the input " + text(in));
  reshaped(*this, want);
}

void Importer::transpose() {
  known_attrs({"perm"});
  input_count(1, 1);
  const size_t rank = shape(0).size();
  std::vector<int64_t> dflt(rank);
  for (size_t i = 0; i < rank; ++i) dflt[i] = static_cast<int64_t>(rank - 1 - i);
  const std::vector<int64_t> p = attr_ints("perm", dflt);
  std::vector<uint32_t> perm;
  std::set<int64_t> seen;
  for (int64_t a : p) {
    if (a < 0 || a >= static_cast<int64_t>(rank) || !seen.insert(a).second || p.size() != rank)
      fail("attribute perm " + text(p) + " is no permutation of " + std::to_string(rank) + " dimensions");
    perm.push_back(static_cast<uint32_t>(a));
  }
  if (is_const(0)) set(0, transpose_const(constant(0, "the input"), perm));
  else set(0, og_.transpose(value(0), perm, layer()));
}

void Importer::concat() {
  known_attrs({"axis"});
  if (node_->input_size() < 1) fail("has no inputs");
  input_count(node_->input_size(), node_->input_size());
  const size_t rank = shape(0).size();
  if (!has_attr("axis")) fail("attribute axis is required");
  const uint32_t ax = axis(attr_int("axis", 0), rank, "axis");
  bool all_const = true;
  for (int i = 0; i < node_->input_size(); ++i) {
    all_const = all_const && is_const(i);
    const std::vector<uint32_t> s = shape(i);
    bool ok = s.size() == rank;
    for (size_t d = 0; ok && d < rank; ++d) ok = d == ax || s[d] == shape(0)[d];
    if (!ok) fail("input " + std::to_string(i) + " " + text(to_dims(s)) + " does not fit input 0 " + text(to_dims(shape(0))) + " along axis " + std::to_string(ax));
  }
  if (all_const) {  // e.g. a shape built from parts
    Const r;
    r.dims = constant(0, "a part").dims;
    r.dims[ax] = 0;
    r.is_float = constant(0, "a part").is_float;
    std::vector<const Const*> parts;
    for (int i = 0; i < node_->input_size(); ++i) {
      parts.push_back(&constant(i, "a part"));
      if (parts.back()->is_float != r.is_float) fail("mixes float and integer inputs");
      r.dims[ax] += parts.back()->dims[ax];
    }
    size_t outer = 1;
    for (size_t d = 0; d < ax; ++d) outer *= static_cast<size_t>(r.dims[d]);
    for (size_t o = 0; o < outer; ++o)
      for (const Const* c : parts) {
        const size_t run = c->count() / std::max<size_t>(outer, 1);
        if (r.is_float) r.f.insert(r.f.end(), c->f.begin() + o * run, c->f.begin() + (o + 1) * run);
        else r.i.insert(r.i.end(), c->i.begin() + o * run, c->i.begin() + (o + 1) * run);
      }
    set(0, std::move(r));
    return;
  }
  std::vector<Value> xs;
  for (int i = 0; i < node_->input_size(); ++i) xs.push_back(value(i));
  set(0, og_.concat(xs, ax, layer()));
}

void Importer::squeeze(bool un) {
  // Axes: an attribute before opset 13, an input from 13 on.
  known_attrs({"axes"});
  input_count(1, opset_ >= 13 ? 2 : 1);
  if (opset_ >= 13 && has_attr("axes")) fail("attribute axes is an input from opset 13 on");
  const std::vector<int64_t> in = to_dims(shape(0));
  std::vector<int64_t> axes = opset_ >= 13 ? (has_input(1) ? ints(1, "axes") : std::vector<int64_t>{})
                                           : attr_ints("axes", {});
  std::vector<int64_t> out;
  if (un) {
    if (axes.empty()) fail("needs axes");
    const size_t rank = in.size() + axes.size();
    std::vector<bool> ones(rank, false);
    for (int64_t a : axes) {
      const uint32_t ax = axis(a, rank, "axis");
      if (ones[ax]) fail("axis " + std::to_string(a) + " given twice");
      ones[ax] = true;
    }
    size_t k = 0;
    for (size_t d = 0; d < rank; ++d) out.push_back(ones[d] ? 1 : in[k++]);
  } else {
    std::vector<bool> drop(in.size(), axes.empty());
    for (size_t d = 0; d < in.size() && axes.empty(); ++d) drop[d] = in[d] == 1;
    for (int64_t a : axes) {
      const uint32_t ax = axis(a, in.size(), "axis");
      if (in[ax] != 1) fail("axis " + std::to_string(a) + " has size " + std::to_string(in[ax]) + ", not 1");
      drop[ax] = true;
    }
    for (size_t d = 0; d < in.size(); ++d)
      if (!drop[d]) out.push_back(in[d]);
  }
  reshaped(*this, out);
}

void Importer::pass_through() {
  if (node_->op_type() == "Dropout") {
    known_attrs({"ratio", "seed"});
    input_count(1, 3);
    if (has_input(2)) {
      const std::vector<int64_t> t = ints(2, "training_mode");
      if (t.size() != 1 || t[0] != 0) fail("training_mode true is not supported (inference only)");
    }
    only_outputs(1);  // the mask
  } else if (node_->op_type() == "Pad") {
    known_attrs({"mode", "pads", "value"});
    input_count(1, opset_ >= 11 ? 3 : 1);
    const std::vector<int64_t> pads = has_input(1) ? ints(1, "pads") : attr_ints("pads", {});
    for (int64_t p : pads)
      if (p != 0) fail("padding other than zero is not supported (pad inside Conv or the pools instead)");
  } else {
    known_attrs({});
    input_count(1, 1);
  }
  set(0, in(0));
}

void Importer::constant_node() {
  known_attrs({"value", "value_float", "value_floats", "value_int", "value_ints"});
  input_count(0, 0);
  if (node_->attribute_size() != 1) fail("needs exactly one value attribute (value, value_float(s), value_int(s))");
  const onnx::AttributeProto& a = node_->attribute(0);
  Const c;
  if (a.name() == "value") {
    if (a.type() != onnx::AttributeProto::TENSOR) fail("attribute value is not a tensor");
    c = decode(a.t(), "attribute value");
  } else if (a.name() == "value_float") {
    c.f = {attr_float("value_float", 0)};
  } else if (a.name() == "value_floats") {
    if (a.type() != onnx::AttributeProto::FLOATS) fail("attribute value_floats is not FLOATS");
    c.f.assign(a.floats().begin(), a.floats().end());
    c.dims = {static_cast<int64_t>(c.f.size())};
  } else if (a.name() == "value_int") {
    c.is_float = false;
    c.i = {attr_int("value_int", 0)};
  } else {
    c.is_float = false;
    c.i = attr_ints("value_ints", {});
    c.dims = {static_cast<int64_t>(c.i.size())};
  }
  set(0, std::move(c));
}

void Importer::shape_node() {
  known_attrs({"start", "end"});
  input_count(1, 1);
  const std::vector<int64_t> s = to_dims(shape(0));
  const auto r = static_cast<int64_t>(s.size());
  auto clamp = [&](int64_t v) { return std::clamp(v < 0 ? v + r : v, int64_t{0}, r); };
  const int64_t start = clamp(attr_int("start", 0)), end = clamp(attr_int("end", r));
  Const c;
  c.is_float = false;
  for (int64_t d = start; d < end; ++d) c.i.push_back(s[d]);
  c.dims = {static_cast<int64_t>(c.i.size())};
  set(0, std::move(c));
}

void Importer::gather() {
  known_attrs({"axis"});
  input_count(2, 2);
  if (!is_const(0))
    fail("Gather of data computed at run time is not supported (only of constants, e.g. a shape)");
  const Const& data = constant(0, "the data");
  const std::vector<int64_t> idx = ints(1, "the indices");
  const Const& ic = constant(1, "the indices");
  if (data.dims.size() != 1 || axis(attr_int("axis", 0), 1, "axis") != 0)
    fail("Gather is supported on 1-D constants only (shape arithmetic)");
  Const r;
  r.is_float = data.is_float;
  r.dims = ic.dims;
  for (int64_t i : idx) {
    const int64_t n = data.dims[0];
    if (i < -n || i >= n) fail("index " + std::to_string(i) + " is out of range for " + std::to_string(n) + " elements");
    const auto k = static_cast<size_t>(i < 0 ? i + n : i);
    if (r.is_float) r.f.push_back(data.f[k]);
    else r.i.push_back(data.i[k]);
  }
  set(0, std::move(r));
}

void Importer::cast() {
  known_attrs({"to", "saturate"});
  input_count(1, 1);
  const int64_t to = attr_int("to", 0);
  const bool to_float = to == onnx::TensorProto::FLOAT;
  const bool to_int = to == onnx::TensorProto::INT64 || to == onnx::TensorProto::INT32;
  if (!to_float && !to_int) fail("cast to element type " + std::to_string(to) + " is not supported (float, int64, int32)");
  if (!is_const(0)) {
    if (!to_float) fail("a cast of a run-time tensor to an integer type is not supported");
    set(0, in(0));  // float to float
    return;
  }
  Const c = constant(0, "the input");
  if (to_float && !c.is_float) {
    c.f.assign(c.i.begin(), c.i.end());
    c.i.clear();
    c.is_float = true;
  } else if (to_int && c.is_float) {
    for (float v : c.f) {
      if (!(v > -9.2e18f && v < 9.2e18f)) fail("cast of " + std::to_string(v) + " to an integer is out of range");
      c.i.push_back(static_cast<int64_t>(v));
    }
    c.f.clear();
    c.is_float = false;
  }
  set(0, std::move(c));
}

}  // namespace tessera::onnx_import::detail
