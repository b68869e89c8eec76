// transpose: dimensions permuted (result dim i = operand dim perm[i]). Lowered as copies:
// the result is mapped like the operand's elements would land, each run of elements that
// stays contiguous (the innermost dimensions left in place) one Copy.
#include <numeric>

#include "op_def.h"

namespace tessera::opgraph {

Value OpGraph::transpose(Value x, std::vector<uint32_t> perm, std::string name) {
  const ValueInfo& ix = operand(x, "transpose", name);
  const std::string at = detail::op_who("transpose", name) + ": " + type_string(ix.dtype, ix.shape);
  if (perm.size() != ix.shape.size()) throw OpGraphError(at + ": the permutation has " + std::to_string(perm.size()) +
                                                         " entries for " + std::to_string(ix.shape.size()) + " dims");
  std::vector<uint32_t> shape(perm.size());
  std::vector<bool> seen(perm.size(), false);
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] >= perm.size() || seen[perm[i]]) throw OpGraphError(at + ": the permutation is not one");
    seen[perm[i]] = true;
    shape[i] = ix.shape[perm[i]];
  }
  const DType dt = ix.dtype;
  const Value r = add_op(OpKind::kTranspose, std::move(name), {x}, dt, std::move(shape));
  ops_.back().attrs = std::move(perm);
  return r;
}

namespace detail {
namespace {

// For each element of the result (row-major), the index of its element in the operand.
std::vector<uint32_t> source_index(const std::vector<uint32_t>& in_shape, const std::vector<uint32_t>& perm) {
  const size_t rank = in_shape.size();
  std::vector<uint64_t> in_stride(rank, 1);
  for (size_t d = rank; d-- > 1;) in_stride[d - 1] = in_stride[d] * in_shape[d];
  std::vector<uint32_t> out_shape(rank);
  for (size_t i = 0; i < rank; ++i) out_shape[i] = in_shape[perm[i]];
  std::vector<uint32_t> src(elements(in_shape));
  std::vector<uint32_t> idx(rank, 0);
  for (size_t o = 0; o < src.size(); ++o) {
    uint64_t s = 0;
    for (size_t i = 0; i < rank; ++i) s += idx[i] * in_stride[perm[i]];
    src[o] = static_cast<uint32_t>(s);
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < out_shape[d]) break;
      idx[d] = 0;
    }
  }
  return src;
}

void eval(EvalContext& c, const Op& op) {
  const Words& x = c.vals[op.operands[0].id];
  const std::vector<uint32_t> src = source_index(c.shape(op.operands[0]), op.attrs);
  Words r(src.size());
  for (size_t i = 0; i < src.size(); ++i) r[i] = x[src[i]];
  c.vals[op.result.id] = std::move(r);
}

void lower(LowerContext& c, const Op& op, graph::Program& body) {
  graph::Graph& g = c.graph();
  const graph::Tensor x = c.mapped(op.operands[0]);
  const ValueInfo& r = c.op_graph().info(op.result);
  const graph::Tensor y = g.add_variable(r.dtype, r.shape, c.base(op) + ".transpose");
  const std::vector<uint32_t> src = source_index(c.op_graph().info(op.operands[0]).shape, op.attrs);
  const graph::TileMap& map = g.variables()[x.var].mapping;
  const auto tile_of = [&](uint32_t i) { return map.tile_at(x.begin + i); };
  const graph::Tensor flat = y.flatten();
  // Runs of consecutive result elements whose sources are consecutive: one copy each, the
  // result's run placed on the tile of the run's first source element.
  for (size_t b = 0; b < src.size();) {
    size_t e = b + 1;
    while (e < src.size() && src[e] == src[e - 1] + 1 && tile_of(src[e]) == tile_of(src[b])) ++e;
    g.set_tile_mapping(flat.slice(b, e), static_cast<uint32_t>(tile_of(src[b])));
    body.add(graph::Copy(x.flatten().slice(src[b], src[b] + static_cast<uint32_t>(e - b)), flat.slice(b, e)));
    b = e;
  }
  c.set_result(op, y);
}


// The inverse permutation.
std::vector<Value> grad(GradArgs& a) {
  std::vector<uint32_t> inv(a.op.attrs.size());
  for (size_t i = 0; i < inv.size(); ++i) inv[a.op.attrs[i]] = static_cast<uint32_t>(i);
  return {a.og.transpose(a.dy, inv, grad_name(a.op))};
}

}  // namespace

extern const OpDef kTransposeDef{OpKind::kTranspose, eval, lower, grad};

}  // namespace detail
}  // namespace tessera::opgraph
