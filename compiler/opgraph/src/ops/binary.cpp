// binary: a OP b (add, sub, mul, div) with numpy broadcasting, f32. Lowered in place on
// the operand of the result's shape (codelet ewise2), the other operand read as a block
// broadcast (broadcast.h): per channel, per row, scalar or element-wise.
#include "broadcast.h"
#include "op_def.h"
#include "tessera/ops/ewise.h"

namespace tessera::opgraph {

const char* binary_op_name(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd: return "add";
    case BinaryOp::kSub: return "sub";
    case BinaryOp::kMul: return "mul";
    case BinaryOp::kDiv: return "div";
  }
  return "?";
}

Value OpGraph::binary(BinaryOp op, Value a, Value b, std::string name) {
  const char* what = binary_op_name(op);
  const ValueInfo &ia = operand(a, what, name), &ib = operand(b, what, name);
  const std::string at = detail::op_who(what, name) + ": " + type_string(ia.dtype, ia.shape) + " and " +
                         type_string(ib.dtype, ib.shape);
  if (ia.dtype != DType::kF32 || ib.dtype != DType::kF32) throw OpGraphError(at + ": needs f32 operands");
  const auto shape = detail::broadcast_shape(ia.shape, ib.shape);
  if (!shape) throw OpGraphError(at + ": the shapes do not broadcast");
  const Value r = add_op(OpKind::kBinary, std::move(name), {a, b}, DType::kF32, *shape);
  ops_.back().attrs = {static_cast<uint32_t>(op)};
  return r;
}

namespace detail {
namespace {

float apply(BinaryOp op, float x, float y) {
  switch (op) {
    case BinaryOp::kAdd: return x + y;
    case BinaryOp::kSub: return x - y;
    case BinaryOp::kMul: return x * y;
    case BinaryOp::kDiv: return x / y;
  }
  return 0;
}

void eval(EvalContext& c, const Op& op) {
  const std::vector<uint32_t>& rs = c.shape(op.result);
  const std::vector<float> a = c.f32(op.operands[0]), b = c.f32(op.operands[1]);
  const std::vector<uint32_t> ia = broadcast_index(c.shape(op.operands[0]), rs);
  const std::vector<uint32_t> ib = broadcast_index(c.shape(op.operands[1]), rs);
  std::vector<float> r(ia.size());
  for (size_t i = 0; i < r.size(); ++i) r[i] = apply(static_cast<BinaryOp>(op.attrs[0]), a[ia[i]], b[ib[i]]);
  c.set(op, r);
}

void lower(LowerContext& c, const Op& op, graph::Program& body) {
  const OpGraph& og = c.op_graph();
  const std::vector<uint32_t>& rs = og.info(op.result).shape;
  auto bop = static_cast<BinaryOp>(op.attrs[0]);
  Value a = op.operands[0], b = op.operands[1];
  const bool commutes = bop == BinaryOp::kAdd || bop == BinaryOp::kMul;
  if (og.info(a).shape != rs && commutes && og.info(b).shape == rs) std::swap(a, b);
  const std::string who = op_who(binary_op_name(bop), op.name);
  if (og.info(a).shape != rs)
    throw OpGraphError(who + ": the first operand " + shape_str(og.info(a).shape) + " broadcasts to " + shape_str(rs) +
                       ": unsupported (only the second operand of sub and div may broadcast)");
  const auto bb = block_broadcast(og.info(b).shape, rs);
  if (!bb)
    throw OpGraphError(who + ": " + shape_str(og.info(b).shape) + " broadcast to " + shape_str(rs) +
                       " is not one run of dims: unsupported");
  ops::Operand2 o2;
  o2.count = bb->count;
  o2.inner = bb->inner;
  if (og.producer(b).kind == OpKind::kConstant) o2.values = og.constant_data(b);
  else o2.tensor = c.mapped(b);
  const graph::Tensor dst = c.writable(a, body, c.base(op) + "." + binary_op_name(bop) + ".in");
  ops::ewise2(c.graph(), body, dst, o2, static_cast<uint32_t>(bop), c.base(op) + "." + binary_op_name(bop));
  c.set_result(op, dst.reshape(rs));
}


// add: da = dy, db = dy (same shape) or its channel sums (b [C,1,1] or [1,C,1,1] against
// [N,C,H,W], a per-channel bias). The other ops and broadcasts have no rule yet.
std::vector<Value> grad(GradArgs& a) {
  const auto bop = static_cast<BinaryOp>(a.op.attrs[0]);
  const std::string who = op_who(binary_op_name(bop), a.op.name);
  if (bop != BinaryOp::kAdd) throw OpGraphError("gradients: " + who + " has no gradient rule yet");
  const std::vector<uint32_t>& rs = a.og.info(a.op.result).shape;
  std::vector<Value> r(2);
  for (size_t i = 0; i < 2; ++i) {
    if (!a.need[i]) continue;
    const std::vector<uint32_t>& s = a.og.info(a.op.operands[i]).shape;
    if (s == rs) {
      r[i] = a.dy;
      continue;
    }
    const auto bb = block_broadcast(s, rs);
    if (rs.size() != 4 || !bb || bb->count != rs[1] || bb->inner != rs[2] * rs[3])
      throw OpGraphError("gradients: " + who + ": no gradient rule for broadcasting " + shape_str(s) + " to " +
                         shape_str(rs));
    r[i] = a.og.reshape(a.og.channel_sum(a.dy, grad_name(a.op)), s, grad_name(a.op));
  }
  return r;
}

}  // namespace

extern const OpDef kBinaryDef{OpKind::kBinary, eval, lower, grad};

}  // namespace detail
}  // namespace tessera::opgraph
