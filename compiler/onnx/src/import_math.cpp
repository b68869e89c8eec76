// ONNX import of the arithmetic: Gemm and MatMul (transposed or scaled constants folded),
// Add/Sub/Mul/Div with broadcasting (a bias after a MatMul becomes add_bias; constant
// operands folded), the activations and Softmax (reshaped and transposed to rows).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "importer.h"

namespace tessera::onnx_import::detail {

using opgraph::BinaryOp;
using opgraph::Value;

namespace {

float apply(BinaryOp op, float a, float b) {
  switch (op) {
    case BinaryOp::kAdd: return a + b;
    case BinaryOp::kSub: return a - b;
    case BinaryOp::kMul: return a * b;
    case BinaryOp::kDiv: return a / b;
  }
  return 0;
}

int64_t apply_int(BinaryOp op, int64_t a, int64_t b, bool& div0) {
  const auto ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);  // wraps, never undefined
  switch (op) {
    case BinaryOp::kAdd: return static_cast<int64_t>(ua + ub);
    case BinaryOp::kSub: return static_cast<int64_t>(ua - ub);
    case BinaryOp::kMul: return static_cast<int64_t>(ua * ub);
    case BinaryOp::kDiv:
      if (b == 0 || (b == -1 && a == INT64_MIN)) return div0 = true, 0;
      return a / b;
  }
  return 0;
}

// For each element of `out` (row-major), the index into an operand of dims `s`.
std::vector<size_t> broadcast_index(const std::vector<int64_t>& s, const std::vector<int64_t>& out) {
  const size_t n = element_count(out), r = out.size(), off = r - s.size();
  std::vector<size_t> idx(n);
  std::vector<int64_t> pos(r, 0);
  for (size_t e = 0; e < n; ++e) {
    size_t k = 0;
    for (size_t d = 0; d < s.size(); ++d) k = k * s[d] + (s[d] == 1 ? 0 : pos[off + d]);
    idx[e] = k;
    for (size_t d = r; d-- > 0;)
      if (++pos[d] < out[d]) break;
      else pos[d] = 0;
  }
  return idx;
}

Const scaled(Const c, float f) {
  if (f != 1.0f)
    for (float& v : c.f) v *= f;
  return c;
}

}  // namespace

std::optional<std::vector<int64_t>> broadcast(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  const size_t r = std::max(a.size(), b.size());
  std::vector<int64_t> out(r);
  for (size_t i = 0; i < r; ++i) {
    const int64_t da = i + a.size() >= r ? a[i + a.size() - r] : 1, db = i + b.size() >= r ? b[i + b.size() - r] : 1;
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out[i] = da == 1 ? db : da;
  }
  return out;
}

namespace {

// r (cols x rows) = c (rows x cols) transposed, in 32 x 32 blocks so that both sides stay in
// cache (a Gemm's transB weight: AlexNet's fc6 is 37.7 M floats).
template <typename T>
void transpose_2d(const std::vector<T>& c, std::vector<T>& r, size_t rows, size_t cols) {
  constexpr size_t kBlock = 32;
  for (size_t i0 = 0; i0 < rows; i0 += kBlock)
    for (size_t j0 = 0; j0 < cols; j0 += kBlock)
      for (size_t i = i0; i < std::min(rows, i0 + kBlock); ++i)
        for (size_t j = j0; j < std::min(cols, j0 + kBlock); ++j) r[j * rows + i] = c[i * cols + j];
}

}  // namespace

Const transpose_const(const Const& c, const std::vector<uint32_t>& perm) {
  Const r;
  r.is_float = c.is_float;
  const size_t rank = c.dims.size();
  for (uint32_t p : perm) r.dims.push_back(c.dims[p]);
  if (rank == 2 && perm[0] == 1) {
    const size_t rows = static_cast<size_t>(c.dims[0]), cols = static_cast<size_t>(c.dims[1]);
    r.f.resize(c.is_float ? c.count() : 0);
    r.i.resize(c.is_float ? 0 : c.count());
    if (c.is_float) transpose_2d(c.f, r.f, rows, cols);
    else transpose_2d(c.i, r.i, rows, cols);
    return r;
  }
  std::vector<size_t> stride(rank, 1);
  for (size_t d = rank; d-- > 1;) stride[d - 1] = stride[d] * static_cast<size_t>(c.dims[d]);
  const size_t n = c.count();
  std::vector<int64_t> pos(rank, 0);
  r.f.resize(c.is_float ? n : 0);
  r.i.resize(c.is_float ? 0 : n);
  for (size_t e = 0; e < n; ++e) {
    size_t src = 0;
    for (size_t d = 0; d < rank; ++d) src += static_cast<size_t>(pos[d]) * stride[perm[d]];
    if (c.is_float) r.f[e] = c.f[src];
    else r.i[e] = c.i[src];
    for (size_t d = rank; d-- > 0;)
      if (++pos[d] < r.dims[d]) break;
      else pos[d] = 0;
  }
  return r;
}

void Importer::gemm() {
  known_attrs({"alpha", "beta", "transA", "transB"});
  input_count(2, 3);
  const float alpha = attr_float("alpha", 1.0f), beta = attr_float("beta", 1.0f);
  const int64_t ta = attr_int("transA", 0), tb = attr_int("transB", 0);
  if ((ta != 0 && ta != 1) || (tb != 0 && tb != 1)) fail("attributes transA and transB must be 0 or 1");
  for (int i = 0; i < 2; ++i)
    if (shape(i).size() != 2) fail("input " + std::to_string(i) + " must be a matrix (2-D)");
  // Transposes and alpha folded into a constant operand; on a run-time one, ops.
  auto operand = [&](int i, bool trans, float scale) -> Value {
    if (is_const(i)) {
      const Const& c = constant(i, "a Gemm operand");
      if (!trans && scale == 1.0f) return value(i);
      Const t = scaled(trans ? transpose_const(c, {1, 0}) : c, scale);
      return make_constant(node_->input(i) + (trans ? "^T" : "") + (scale != 1.0f ? "*alpha" : ""), t);
    }
    return trans ? og_.transpose(value(i), {1, 0}, layer()) : value(i);
  };
  const bool alpha_on_b = alpha != 1.0f && is_const(1), alpha_on_a = alpha != 1.0f && !alpha_on_b && is_const(0);
  const Value a = operand(0, ta == 1, alpha_on_a ? alpha : 1.0f);
  const Value b = operand(1, tb == 1, alpha_on_b ? alpha : 1.0f);
  Value y = og_.matmul(a, b, layer());
  if (alpha != 1.0f && !alpha_on_a && !alpha_on_b) {
    Const s;
    s.f = {alpha};
    y = og_.binary(BinaryOp::kMul, y, make_constant(layer() + ".alpha", s), layer());
  }
  if (has_input(2) && beta != 0.0f) {
    const uint32_t n = og_.info(y).shape[1];
    if (is_const(2)) {
      const Const c = scaled(constant(2, "C"), beta);
      if (!c.is_float) fail("C must be a float tensor");
      const auto bs = broadcast(to_dims(og_.info(y).shape), c.dims);
      if (!bs || *bs != to_dims(og_.info(y).shape)) fail("C does not broadcast to the product's shape");
      const bool row = c.count() == n && (c.dims.size() == 1 || (c.dims.size() == 2 && c.dims[0] == 1));
      Const cc = c;
      if (row) cc.dims = {n};
      const Value cv = beta == 1.0f && !row ? value(2) : make_constant(node_->input(2) + (beta != 1.0f ? "*beta" : ""), cc);
      y = row ? og_.add_bias(y, cv, layer()) : og_.binary(BinaryOp::kAdd, y, cv, layer());
    } else {
      Value c = value(2);
      if (beta != 1.0f) {
        Const s;
        s.f = {beta};
        c = og_.binary(BinaryOp::kMul, c, make_constant(layer() + ".beta", s), layer());
      }
      y = og_.binary(BinaryOp::kAdd, y, c, layer());
    }
  }
  set(0, y);
}

void Importer::matmul() {
  known_attrs({});
  input_count(2, 2);
  const std::vector<uint32_t> sa = shape(0), sb = shape(1);
  if (sb.size() != 2) fail("the second operand must be a matrix (2-D), got " + std::to_string(sb.size()) + "-D");
  if (sa.size() < 2) fail("the first operand must have at least 2 dimensions, got " + std::to_string(sa.size()));
  Value a = value(0);
  if (sa.size() > 2) {  // [..., m, k]: as rows [prod, k]
    const uint32_t rows = static_cast<uint32_t>(element_count(to_dims(sa)) / sa.back());
    a = og_.reshape(a, {rows, sa.back()}, layer());
  }
  Value y = og_.matmul(a, value(1), layer());
  if (sa.size() > 2) {
    std::vector<uint32_t> out = sa;
    out.back() = sb[1];
    y = og_.reshape(y, out, layer());
  }
  set(0, y);
}

void Importer::binary(BinaryOp op) {
  known_attrs({});
  input_count(2, 2);
  if (is_const(0) && is_const(1)) {  // folded (shape arithmetic, constant scales)
    const Const &a = constant(0, "A"), &b = constant(1, "B");
    if (a.is_float != b.is_float) fail("one operand is float, the other integer");
    const auto dims = broadcast(a.dims, b.dims);
    if (!dims) fail("the constant operands' shapes do not broadcast");
    const std::vector<size_t> ia = broadcast_index(a.dims, *dims), ib = broadcast_index(b.dims, *dims);
    Const r;
    r.dims = *dims;
    r.is_float = a.is_float;
    bool div0 = false;
    for (size_t e = 0; e < ia.size(); ++e) {
      if (a.is_float) r.f.push_back(apply(op, a.f[ia[e]], b.f[ib[e]]));
      else r.i.push_back(apply_int(op, a.i[ia[e]], b.i[ib[e]], div0));
    }
    if (div0) fail("integer division by zero (or overflow)");
    set(0, std::move(r));
    return;
  }
  // x + bias vector after a MatMul: add_bias, the matmul's own epilogue.
  if (op == BinaryOp::kAdd) {
    for (int xi = 0; xi < 2; ++xi) {
      const int bi = 1 - xi;
      if (is_const(xi) || !is_const(bi)) continue;
      const Value x = value(xi);
      const Const& b = constant(bi, "the bias");
      const std::vector<uint32_t>& xs = og_.info(x).shape;
      bool row = og_.producer(x).kind == opgraph::OpKind::kMatMul && b.is_float && b.count() == xs.back() &&
                 b.dims.size() <= xs.size() && !b.dims.empty();
      for (size_t d = 0; row && d + 1 < b.dims.size(); ++d) row = b.dims[d] == 1;
      if (!row) continue;
      Const v = b;
      v.dims = {static_cast<int64_t>(xs.back())};
      const Value bv = b.dims.size() == 1 ? value(bi) : make_constant(node_->input(bi) + ".row", v);
      set(0, og_.add_bias(x, bv, layer()));
      return;
    }
  }
  set(0, og_.binary(op, value(0), value(1), layer()));
}

void Importer::unary(const std::string& type) {
  using opgraph::UnaryOp;
  if (type == "Relu" || type == "Sigmoid" || type == "Tanh") {
    known_attrs({});
    input_count(1, 1);
    if (type == "Relu") set(0, og_.relu(value(0), layer()));
    else set(0, og_.unary(type == "Sigmoid" ? UnaryOp::kSigmoid : UnaryOp::kTanh, value(0), 0, 0, layer()));
  } else if (type == "LeakyRelu") {
    known_attrs({"alpha"});
    input_count(1, 1);
    set(0, og_.unary(UnaryOp::kLeakyRelu, value(0), attr_float("alpha", 0.01f), 0, layer()));
  } else {  // Clip: bounds as attributes (before opset 11) or constant inputs
    known_attrs({"min", "max"});
    input_count(1, 3);
    float lo = attr_float("min", -std::numeric_limits<float>::infinity());
    float hi = attr_float("max", std::numeric_limits<float>::infinity());
    for (int i = 1; i <= 2; ++i) {
      if (!has_input(i)) continue;
      const Const& c = constant(i, i == 1 ? "min" : "max");
      if (!c.is_float || c.count() != 1) fail(std::string(i == 1 ? "min" : "max") + " must be a float scalar");
      (i == 1 ? lo : hi) = c.f[0];
    }
    set(0, og_.unary(UnaryOp::kClip, value(0), lo, hi, layer()));
  }
}

void Importer::softmax() {
  known_attrs({"axis"});
  input_count(1, 1);
  const std::vector<uint32_t> s = shape(0);
  const uint32_t ax = axis(attr_int("axis", opset_ < 13 ? 1 : -1), s.size(), "axis");
  Value x = value(0);
  const uint64_t total = element_count(to_dims(s));
  if (opset_ < 13 || ax + 1 == s.size()) {
    // Before opset 13 the input is coerced to 2-D at the axis; from 13 on, the last axis
    // alone is already rows of the same 2-D view.
    uint64_t cols = 1;
    for (size_t d = ax; d < s.size(); ++d) cols *= s[d];
    const std::vector<uint32_t> rows = {static_cast<uint32_t>(total / cols), static_cast<uint32_t>(cols)};
    if (s != rows) x = og_.reshape(x, rows, layer());
    Value y = og_.softmax(x, layer());
    if (s != rows) y = og_.reshape(y, s, layer());
    set(0, y);
    return;
  }
  // Opset 13+, an inner axis: moved last, softmax over rows, moved back.
  std::vector<uint32_t> perm(s.size()), inv(s.size());
  std::iota(perm.begin(), perm.end(), 0u);
  perm.erase(perm.begin() + ax);
  perm.push_back(ax);
  for (uint32_t i = 0; i < perm.size(); ++i) inv[perm[i]] = i;
  x = og_.transpose(x, perm, layer());
  const std::vector<uint32_t> ts = og_.info(x).shape;
  x = og_.reshape(x, {static_cast<uint32_t>(total / s[ax]), s[ax]}, layer());
  Value y = og_.reshape(og_.softmax(x, layer()), ts, layer());
  set(0, og_.transpose(y, inv, layer()));
}

}  // namespace tessera::onnx_import::detail
