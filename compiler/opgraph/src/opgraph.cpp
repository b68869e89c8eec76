#include "tessera/opgraph/opgraph.h"

#include <sstream>

namespace tessera::opgraph {

namespace {

std::string shape_str(const std::vector<uint32_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

uint64_t elements(const std::vector<uint32_t>& shape) {
  uint64_t n = 1;
  for (uint32_t d : shape) n *= d;
  return n;
}

// "matmul 'fc1'" or "matmul"
std::string who(const char* op, const std::string& name) {
  return name.empty() ? std::string(op) : std::string(op) + " '" + name + "'";
}

}  // namespace

const char* op_kind_name(OpKind k) {
  switch (k) {
    case OpKind::kInput: return "input";
    case OpKind::kConstant: return "constant";
    case OpKind::kMatMul: return "matmul";
    case OpKind::kAddBias: return "add_bias";
    case OpKind::kRelu: return "relu";
    case OpKind::kSoftmax: return "softmax";
    case OpKind::kArgmax: return "argmax";
    case OpKind::kOutput: return "output";
  }
  return "?";
}

std::string type_string(DType dtype, const std::vector<uint32_t>& shape) {
  return std::string(exe::dtype_name(dtype)) + shape_str(shape);
}

const ValueInfo& OpGraph::info(Value v) const {
  if (!v.valid() || v.id >= values_.size())
    throw OpGraphError("value %" + (v.valid() ? std::to_string(v.id) : std::string("none")) +
                       " is not a value of this op graph");
  return values_[v.id];
}

const std::vector<float>& OpGraph::constant_data(Value v) const {
  if (producer(v).kind != OpKind::kConstant) throw OpGraphError("value %" + std::to_string(v.id) + " is not a constant");
  return data_[v.id];
}

const ValueInfo& OpGraph::operand(Value v, const char* op, const std::string& name) const {
  if (!v.valid() || v.id >= values_.size())
    throw OpGraphError(who(op, name) + ": operand %" + (v.valid() ? std::to_string(v.id) : std::string("none")) +
                       " is not a value of this op graph");
  return values_[v.id];
}

void OpGraph::check_unique(const std::string& what, const std::string& name) const {
  if (name.empty()) throw OpGraphError(what + ": needs a name");
  for (const Op& op : ops_)
    if ((op.kind == OpKind::kInput || op.kind == OpKind::kConstant || op.kind == OpKind::kOutput) && op.name == name)
      throw OpGraphError(what + " '" + name + "': the name is already taken by " + op_kind_name(op.kind) + " '" +
                         name + "'");
}

Value OpGraph::add_op(OpKind kind, std::string name, std::vector<Value> operands, DType dtype,
                      std::vector<uint32_t> shape) {
  const Value result{static_cast<uint32_t>(values_.size())};
  values_.push_back({dtype, std::move(shape), static_cast<uint32_t>(ops_.size())});
  data_.emplace_back();
  ops_.push_back({kind, std::move(name), std::move(operands), result});
  return result;
}

Value OpGraph::input(std::string name, DType dtype, std::vector<uint32_t> shape) {
  check_unique("input", name);
  if (shape.empty() || elements(shape) == 0)
    throw OpGraphError("input '" + name + "': shape " + shape_str(shape) + " has no elements");
  return add_op(OpKind::kInput, std::move(name), {}, dtype, std::move(shape));
}

Value OpGraph::constant(std::string name, std::vector<uint32_t> shape, std::vector<float> data) {
  check_unique("constant", name);
  if (shape.empty() || elements(shape) == 0)
    throw OpGraphError("constant '" + name + "': shape " + shape_str(shape) + " has no elements");
  if (data.size() != elements(shape))
    throw OpGraphError("constant '" + name + "': " + std::to_string(data.size()) + " values for shape " +
                       shape_str(shape) + " (" + std::to_string(elements(shape)) + " elements)");
  const Value v = add_op(OpKind::kConstant, std::move(name), {}, DType::kF32, std::move(shape));
  data_[v.id] = std::move(data);
  return v;
}

Value OpGraph::matmul(Value a, Value b, std::string name) {
  const ValueInfo &ia = operand(a, "matmul", name), &ib = operand(b, "matmul", name);
  const std::string at = who("matmul", name) + ": " + shape_str(ia.shape) + " x " + shape_str(ib.shape);
  if (ia.dtype != DType::kF32 || ib.dtype != DType::kF32)
    throw OpGraphError(at + ": needs f32 operands, got " + type_string(ia.dtype, ia.shape) + " x " +
                       type_string(ib.dtype, ib.shape));
  if (ia.shape.size() != 2 || ib.shape.size() != 2) throw OpGraphError(at + ": needs two matrices");
  if (ia.shape[1] != ib.shape[0]) throw OpGraphError(at + ": inner dimensions differ");
  std::vector<uint32_t> shape{ia.shape[0], ib.shape[1]};
  return add_op(OpKind::kMatMul, std::move(name), {a, b}, DType::kF32, std::move(shape));
}

Value OpGraph::add_bias(Value x, Value b, std::string name) {
  const ValueInfo &ix = operand(x, "add_bias", name), &ib = operand(b, "add_bias", name);
  const std::string at = who("add_bias", name) + ": " + shape_str(ix.shape) + " + " + shape_str(ib.shape);
  if (ix.dtype != DType::kF32 || ib.dtype != DType::kF32)
    throw OpGraphError(at + ": needs f32 operands, got " + type_string(ix.dtype, ix.shape) + " + " +
                       type_string(ib.dtype, ib.shape));
  if (ix.shape.empty() || ib.shape.size() != 1 || ib.shape[0] != ix.shape.back())
    throw OpGraphError(at + ": the bias must be a vector as long as a row");
  if (ops_[ib.op].kind != OpKind::kConstant) throw OpGraphError(at + ": the bias must be a constant");
  std::vector<uint32_t> shape = ix.shape;
  return add_op(OpKind::kAddBias, std::move(name), {x, b}, DType::kF32, std::move(shape));
}

Value OpGraph::relu(Value x, std::string name) {
  const ValueInfo& ix = operand(x, "relu", name);
  if (ix.dtype != DType::kF32)
    throw OpGraphError(who("relu", name) + ": " + type_string(ix.dtype, ix.shape) + ": needs f32");
  std::vector<uint32_t> shape = ix.shape;
  return add_op(OpKind::kRelu, std::move(name), {x}, DType::kF32, std::move(shape));
}

Value OpGraph::softmax(Value x, std::string name) {
  const ValueInfo& ix = operand(x, "softmax", name);
  if (ix.dtype != DType::kF32 || ix.shape.size() != 2)
    throw OpGraphError(who("softmax", name) + ": " + type_string(ix.dtype, ix.shape) + ": needs a f32 matrix");
  std::vector<uint32_t> shape = ix.shape;
  return add_op(OpKind::kSoftmax, std::move(name), {x}, DType::kF32, std::move(shape));
}

Value OpGraph::argmax(Value x, std::string name) {
  const ValueInfo& ix = operand(x, "argmax", name);
  if (ix.dtype != DType::kF32 || ix.shape.size() != 2)
    throw OpGraphError(who("argmax", name) + ": " + type_string(ix.dtype, ix.shape) + ": needs a f32 matrix");
  std::vector<uint32_t> shape{ix.shape[0]};
  return add_op(OpKind::kArgmax, std::move(name), {x}, DType::kU32, std::move(shape));
}

void OpGraph::output(std::string name, Value v) {
  operand(v, "output", name);
  check_unique("output", name);
  ops_.push_back({OpKind::kOutput, std::move(name), {v}, Value{}});
}

std::string dump(const OpGraph& g) {
  std::ostringstream out;
  for (const Op& op : g.ops()) {
    if (op.kind == OpKind::kOutput) {
      out << "output \"" << op.name << "\", %" << op.operands[0].id << "\n";
      continue;
    }
    out << "%" << op.result.id << " = " << op_kind_name(op.kind);
    if (op.kind == OpKind::kInput || op.kind == OpKind::kConstant) out << " \"" << op.name << "\"";
    for (size_t i = 0; i < op.operands.size(); ++i) out << (i ? ", %" : " %") << op.operands[i].id;
    const ValueInfo& v = g.info(op.result);
    out << " : " << type_string(v.dtype, v.shape);
    if (op.kind != OpKind::kInput && op.kind != OpKind::kConstant && !op.name.empty()) out << "  # " << op.name;
    out << "\n";
  }
  return out.str();
}

}  // namespace tessera::opgraph
