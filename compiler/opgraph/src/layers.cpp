// Finding the matmuls that share a weight (layers.h).
#include "layers.h"

namespace tessera::opgraph::detail {

namespace {

void mark(const OpGraph& og, Value v, Value param, std::vector<Value>& out) {
  const Op& op = og.producer(v);
  if (op.kind == OpKind::kMatMulTN || op.kind == OpKind::kBiasGrad) {
    out[v.id] = param;
  } else if (op.kind == OpKind::kAdd) {
    out[v.id] = param;
    for (const Value o : op.operands) mark(og, o, param, out);
  }
}

}  // namespace

std::vector<Value> gradient_layouts(const OpGraph& og) {
  std::vector<Value> out(og.values().size());
  for (const Op& op : og.ops())
    if (op.kind == OpKind::kSgdMomentum) mark(og, op.operands[1], op.operands[0], out);
  return out;
}

std::vector<Layer> find_layers(const OpGraph& og, const std::vector<Value>& gradient_layout) {
  std::vector<Layer> layers;
  const std::vector<Op>& ops = og.ops();
  for (const Op& p : ops) {
    if (p.kind != OpKind::kParameter || og.info(p.result).shape.size() != 2) continue;
    const Value w = p.result;
    Layer l{w, {}, {}};
    bool ok = true;
    for (size_t i = 0; i < ops.size() && ok; ++i) {
      const Op& op = ops[i];
      bool uses = false;
      for (const Value v : op.operands) uses = uses || v == w;
      using K = ops::LayerProduct::Kind;
      if (op.kind == OpKind::kMatMulTN && op.result.valid() && gradient_layout[op.result.id] == w) {
        if (uses) ok = false;
        l.ops.push_back(i), l.products.push_back({K::kWeightGrad});
        continue;
      }
      if (!uses) continue;
      if (op.kind == OpKind::kMatMul && op.operands[1] == w && op.operands[0] != w) {
        l.ops.push_back(i), l.products.push_back({K::kForward});
      } else if (op.kind == OpKind::kMatMulNT && op.operands[1] == w && op.operands[0] != w) {
        if (l.ops.empty()) ok = false;  // W would be placed by an input gradient
        l.ops.push_back(i), l.products.push_back({K::kInputGrad});
      } else if (op.kind != OpKind::kSgdMomentum || op.operands[1] == w) {
        ok = false;
      }
    }
    if (ok && !l.ops.empty() && l.products.front().kind == ops::LayerProduct::kForward) layers.push_back(std::move(l));
  }
  return layers;
}

}  // namespace tessera::opgraph::detail
