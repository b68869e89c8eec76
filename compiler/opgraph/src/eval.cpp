// The op graph's reference interpreter (eval.h).
#include "tessera/opgraph/eval.h"

#include <bit>
#include <cmath>

#include "ops/op_def.h"

namespace tessera::opgraph {

namespace {

constexpr uint32_t kCanonicalNaN = 0x7fc00000u;

class Evaluator {
 public:
  // `params`, if given, holds the parameters' current values by value id.
  Evaluator(const OpGraph& og, const std::map<std::string, Words>& inputs,
            const std::vector<std::vector<float>>* params = nullptr)
      : og_(og), inputs_(inputs), params_(params), vals_(og.values().size()) {}

  std::vector<Words> run() {
    for (const Op& op : og_.ops()) step(op);
    return std::move(vals_);
  }

 private:
  std::vector<float> f(Value v) const { return to_floats(vals_[v.id]); }
  const std::vector<uint32_t>& shape(Value v) const { return og_.info(v).shape; }
  void set(const Op& op, const std::vector<float>& r) { vals_[op.result.id] = to_words(r); }

  void step(const Op& op) {
    if (const detail::OpDef* def = detail::find_op_def(op.kind)) {
      detail::EvalContext c{og_, vals_};
      def->eval(c, op);
      return;
    }
    switch (op.kind) {
      case OpKind::kInput: {
        auto it = inputs_.find(op.name);
        size_t n = 1;
        for (uint32_t d : shape(op.result)) n *= d;
        if (it == inputs_.end()) throw OpGraphError("evaluate: no data for input '" + op.name + "'");
        if (it->second.size() != n)
          throw OpGraphError("evaluate: input '" + op.name + "' has " + std::to_string(it->second.size()) +
                             " words, its shape " + type_string(og_.info(op.result).dtype, shape(op.result)) +
                             " needs " + std::to_string(n));
        vals_[op.result.id] = it->second;
        break;
      }
      case OpKind::kConstant: set(op, og_.constant_data(op.result)); break;
      case OpKind::kParameter: set(op, params_ ? (*params_)[op.result.id] : og_.constant_data(op.result)); break;
      case OpKind::kOutput: case OpKind::kSgdMomentum: break;  // updates: Interpreter::step
      case OpKind::kMatMul: matmul(op, false, false); break;
      case OpKind::kMatMulTN: matmul(op, true, false); break;
      case OpKind::kMatMulNT: matmul(op, false, true); break;
      case OpKind::kAddBias: {
        std::vector<float> x = f(op.operands[0]);
        const std::vector<float> b = f(op.operands[1]);
        for (size_t i = 0; i < x.size(); ++i) x[i] += b[i % b.size()];
        set(op, x);
        break;
      }
      case OpKind::kAdd: {
        std::vector<float> a = f(op.operands[0]);
        const std::vector<float> b = f(op.operands[1]);
        for (size_t i = 0; i < a.size(); ++i) a[i] += b[i];
        set(op, a);
        break;
      }
      case OpKind::kRelu: {
        Words w = vals_[op.operands[0].id];
        for (uint32_t& v : w) v = (v & 0x7fffffffu) > 0x7f800000u ? kCanonicalNaN : static_cast<int32_t>(v) > 0 ? v : 0u;
        vals_[op.result.id] = w;
        break;
      }
      case OpKind::kReluGrad: {
        std::vector<float> dy = f(op.operands[0]);
        const std::vector<float> y = f(op.operands[1]);
        for (size_t i = 0; i < dy.size(); ++i) dy[i] = y[i] > 0.0f ? dy[i] : 0.0f;
        set(op, dy);
        break;
      }
      case OpKind::kBiasGrad: {
        const std::vector<float> dy = f(op.operands[0]);
        const uint32_t m = shape(op.operands[0])[0], n = shape(op.operands[0])[1];
        std::vector<float> r(n, 0.0f);
        for (uint32_t i = 0; i < m; ++i)
          for (uint32_t j = 0; j < n; ++j) r[j] += dy[size_t(i) * n + j];
        set(op, r);
        break;
      }
      case OpKind::kSoftmax: case OpKind::kSoftmaxXent: case OpKind::kSoftmaxXentGrad: softmax_family(op); break;
      default: throw OpGraphError(std::string("evaluate: ") + op_kind_name(op.kind) + " has no evaluation");
      case OpKind::kArgmax: {
        const std::vector<float> x = f(op.operands[0]);
        const uint32_t m = shape(op.operands[0])[0], n = shape(op.operands[0])[1];
        Words r(m);
        for (uint32_t i = 0; i < m; ++i) {
          uint32_t best = 0;
          for (uint32_t j = 1; j < n; ++j)
            if (x[size_t(i) * n + j] > x[size_t(i) * n + best]) best = j;
          r[i] = best;
        }
        vals_[op.result.id] = r;
        break;
      }
    }
  }

  // c = op(a) op(b), summed over the inner dimension in index order.
  void matmul(const Op& op, bool ta, bool tb) {
    const std::vector<float> a = f(op.operands[0]), b = f(op.operands[1]);
    const std::vector<uint32_t> &sa = shape(op.operands[0]), &sb = shape(op.operands[1]);
    const uint32_t m = ta ? sa[1] : sa[0], k = ta ? sa[0] : sa[1], n = tb ? sb[0] : sb[1];
    std::vector<float> c(size_t(m) * n);
    for (uint32_t i = 0; i < m; ++i)
      for (uint32_t j = 0; j < n; ++j) {
        float s = 0.0f;
        for (uint32_t p = 0; p < k; ++p) {
          const float x = ta ? a[size_t(p) * m + i] : a[size_t(i) * k + p];
          const float y = tb ? b[size_t(j) * k + p] : b[size_t(p) * n + j];
          s += x * y;
        }
        c[size_t(i) * n + j] = s;
      }
    set(op, c);
  }

  // Row-wise softmax, its cross-entropy, and the cross-entropy's gradient.
  void softmax_family(const Op& op) {
    const std::vector<float> x = f(op.operands[0]);
    const uint32_t m = shape(op.operands[0])[0], n = shape(op.operands[0])[1];
    const Words* labels = op.kind == OpKind::kSoftmax ? nullptr : &vals_[op.operands[1].id];
    std::vector<float> r(op.kind == OpKind::kSoftmaxXent ? m : size_t(m) * n);
    for (uint32_t i = 0; i < m; ++i) {
      const float* row = &x[size_t(i) * n];
      float mx = row[0];
      for (uint32_t j = 1; j < n; ++j) mx = std::fmax(mx, row[j]);
      float s = 0.0f;
      for (uint32_t j = 0; j < n; ++j) s += std::exp(row[j] - mx);
      const uint32_t label = labels ? (*labels)[i] : 0;
      if (op.kind == OpKind::kSoftmaxXent) {
        r[i] = label < n ? mx + std::log(s) - row[label] : NAN;
        continue;
      }
      for (uint32_t j = 0; j < n; ++j) {
        float p = std::exp(row[j] - mx) / s;
        if (op.kind == OpKind::kSoftmaxXentGrad) p = (p - (j == label ? 1.0f : 0.0f)) * op.scale;
        r[size_t(i) * n + j] = p;
      }
    }
    set(op, r);
  }

  const OpGraph& og_;
  const std::map<std::string, Words>& inputs_;
  const std::vector<std::vector<float>>* params_;
  std::vector<Words> vals_;
};

}  // namespace

Words to_words(const std::vector<float>& v) {
  Words w(v.size());
  for (size_t i = 0; i < v.size(); ++i) w[i] = std::bit_cast<uint32_t>(v[i]);
  return w;
}

std::vector<float> to_floats(const Words& w) {
  std::vector<float> v(w.size());
  for (size_t i = 0; i < w.size(); ++i) v[i] = std::bit_cast<float>(w[i]);
  return v;
}

std::vector<Words> evaluate(const OpGraph& og, const std::map<std::string, Words>& inputs) {
  return Evaluator(og, inputs).run();
}

float lr_linear(float lr0, uint32_t t, uint32_t total) {
  // firmware/codelets/lr_linear.cpp, operation for operation.
  if (t >= total) return 0.0f;
  const float left = static_cast<float>(total - t), tf = static_cast<float>(total);
  const float p = lr0 * left;
  const float e = std::fmaf(lr0, left, -p);
  const float q = p / tf;
  const float r = std::fmaf(-q, tf, p);
  return q + (r + e) / tf;
}

Interpreter::Interpreter(const OpGraph& og)
    : og_(og), params_(og.values().size()), velocity_(og.values().size()) {
  for (const Op& op : og.ops())
    if (op.kind == OpKind::kParameter) {
      params_[op.result.id] = og.constant_data(op.result);
      velocity_[op.result.id].assign(params_[op.result.id].size(), 0.0f);
    }
}

std::vector<Words> Interpreter::step(const std::map<std::string, Words>& inputs) {
  std::vector<Words> vals = Evaluator(og_, inputs, &params_).run();
  for (const Op& op : og_.ops()) {
    if (op.kind != OpKind::kSgdMomentum) continue;
    std::vector<float>& w = params_[op.operands[0].id];
    std::vector<float>& v = velocity_[op.operands[0].id];
    const std::vector<float> g = to_floats(vals[op.operands[1].id]);
    const float alpha = -lr_linear(op.lr0, steps_, op.total_steps);
    for (size_t i = 0; i < w.size(); ++i) {
      float vi = v[i] * op.momentum;
      vi = vi + g[i];
      v[i] = vi;
      w[i] = std::fmaf(vi, alpha, w[i]);
    }
  }
  ++steps_;
  return vals;
}

const std::vector<float>& Interpreter::parameter(Value p) const {
  if (og_.producer(p).kind != OpKind::kParameter)
    throw OpGraphError("Interpreter: %" + std::to_string(p.id) + " is not a parameter");
  return params_[p.id];
}

const std::vector<float>& Interpreter::parameter(const std::string& name) const {
  for (const Op& op : og_.ops())
    if (op.kind == OpKind::kParameter && op.name == name) return params_[op.result.id];
  throw OpGraphError("Interpreter: no parameter '" + name + "'");
}

const std::vector<float>& Interpreter::velocity(Value p) const {
  parameter(p);
  return velocity_[p.id];
}

}  // namespace tessera::opgraph
