// concat: tensors of one dtype and rank joined along an axis. Lowered as copies: each
// operand's block of each outer index is one Copy into the result, which is mapped where
// that block's first element lies.
#include "op_def.h"

namespace tessera::opgraph {

Value OpGraph::concat(std::vector<Value> xs, uint32_t axis, std::string name) {
  const std::string at = detail::op_who("concat", name);
  if (xs.empty()) throw OpGraphError(at + ": needs at least one operand");
  const ValueInfo& i0 = operand(xs[0], "concat", name);
  if (axis >= i0.shape.size())
    throw OpGraphError(at + ": axis " + std::to_string(axis) + " of " + type_string(i0.dtype, i0.shape));
  std::vector<uint32_t> shape = i0.shape;
  const DType dt = i0.dtype;
  for (size_t k = 1; k < xs.size(); ++k) {
    const ValueInfo& ik = operand(xs[k], "concat", name);
    bool ok = ik.dtype == dt && ik.shape.size() == shape.size();
    for (size_t d = 0; ok && d < shape.size(); ++d) ok = d == axis || ik.shape[d] == shape[d];
    if (!ok)
      throw OpGraphError(at + ": operand " + std::to_string(k) + " " + type_string(ik.dtype, ik.shape) +
                         " does not match " + type_string(i0.dtype, i0.shape) + " but on axis " + std::to_string(axis));
    shape[axis] += ik.shape[axis];
  }
  const Value r = add_op(OpKind::kConcat, std::move(name), std::move(xs), dt, std::move(shape));
  ops_.back().attrs = {axis};
  return r;
}

namespace detail {
namespace {

// Calls f(operand k, source offset, destination offset, length) for every block.
template <typename F>
void blocks(const OpGraph& og, const Op& op, F f) {
  const std::vector<uint32_t>& rs = og.info(op.result).shape;
  const uint32_t axis = op.attrs.at(0);
  uint64_t outer = 1, inner = 1;
  for (uint32_t d = 0; d < axis; ++d) outer *= rs[d];
  for (size_t d = axis + 1; d < rs.size(); ++d) inner *= rs[d];
  const uint64_t row = rs[axis] * inner;
  for (uint64_t o = 0; o < outer; ++o) {
    uint64_t at = o * row;
    for (size_t k = 0; k < op.operands.size(); ++k) {
      const uint64_t len = og.info(op.operands[k]).shape[axis] * inner;
      f(k, o * len, at, len);
      at += len;
    }
  }
}

void eval(EvalContext& c, const Op& op) {
  Words r(elements(c.shape(op.result)));
  blocks(c.og, op, [&](size_t k, uint64_t src, uint64_t dst, uint64_t len) {
    const Words& x = c.vals[op.operands[k].id];
    std::copy(x.begin() + static_cast<ptrdiff_t>(src), x.begin() + static_cast<ptrdiff_t>(src + len),
              r.begin() + static_cast<ptrdiff_t>(dst));
  });
  c.vals[op.result.id] = std::move(r);
}

void lower(LowerContext& c, const Op& op, graph::Program& body) {
  graph::Graph& g = c.graph();
  const ValueInfo& r = c.op_graph().info(op.result);
  const graph::Tensor y = g.add_variable(r.dtype, r.shape, c.base(op) + ".concat");
  const graph::Tensor flat = y.flatten();
  std::vector<graph::Tensor> xs;
  for (const Value& v : op.operands) xs.push_back(c.mapped(v).flatten());
  blocks(c.op_graph(), op, [&](size_t k, uint64_t src, uint64_t dst, uint64_t len) {
    const auto s = static_cast<uint32_t>(src), d = static_cast<uint32_t>(dst), n = static_cast<uint32_t>(len);
    const graph::Tensor from = xs[k].slice(s, s + n);
    // Each run of the source on one tile lands on that tile.
    for (const graph::Interval& in : g.intervals(from))
      g.set_tile_mapping(flat.slice(d + (in.begin - from.begin), d + (in.end - from.begin)), in.tile);
    body.add(graph::Copy(from, flat.slice(d, d + n)));
  });
  c.set_result(op, y);
}

}  // namespace

extern const OpDef kConcatDef{OpKind::kConcat, eval, lower};

}  // namespace detail
}  // namespace tessera::opgraph
