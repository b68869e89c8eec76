#include "tessera/opgraph/opgraph.h"

#include <cmath>
#include <sstream>

#include "ops/op_def.h"

namespace tessera::opgraph {

namespace {

// (Shared with the registered ops: ops/registry.cpp.)
using detail::elements;
using detail::shape_str;
std::string who(const char* op, const std::string& name) { return detail::op_who(op, name); }

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
    case OpKind::kParameter: return "parameter";
    case OpKind::kSoftmaxXent: return "softmax_xent";
    case OpKind::kAdd: return "add";
    case OpKind::kMatMulTN: return "matmul_tn";
    case OpKind::kMatMulNT: return "matmul_nt";
    case OpKind::kBiasGrad: return "bias_grad";
    case OpKind::kReluGrad: return "relu_grad";
    case OpKind::kSoftmaxXentGrad: return "softmax_xent_grad";
    case OpKind::kSgdMomentum: return "sgd_momentum";
    case OpKind::kReshape: return "reshape";
    case OpKind::kTranspose: return "transpose";
    case OpKind::kConcat: return "concat";
    case OpKind::kConv2d: return "conv2d";
    case OpKind::kMaxPool2d: return "max_pool2d";
    case OpKind::kAvgPool2d: return "avg_pool2d";
    case OpKind::kLrn: return "lrn";
    case OpKind::kBinary: return "binary";
    case OpKind::kUnary: return "unary";
    case OpKind::kConv2dGradInput: return "conv2d_grad_input";
    case OpKind::kConv2dGradWeight: return "conv2d_grad_weight";
    case OpKind::kChannelSum: return "channel_sum";
    case OpKind::kMaxPool2dGrad: return "max_pool2d_grad";
    case OpKind::kAvgPool2dGrad: return "avg_pool2d_grad";
    case OpKind::kUnaryGrad: return "unary_grad";
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
  const OpKind k = producer(v).kind;
  if (k != OpKind::kConstant && k != OpKind::kParameter)
    throw OpGraphError("value %" + std::to_string(v.id) + " is not a constant or parameter");
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
    if ((op.kind == OpKind::kInput || op.kind == OpKind::kConstant || op.kind == OpKind::kParameter ||
         op.kind == OpKind::kOutput) && op.name == name)
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

Value OpGraph::leaf(OpKind kind, std::string name, std::vector<uint32_t> shape, std::vector<float> data) {
  const char* what = op_kind_name(kind);
  check_unique(what, name);
  if (shape.empty() || elements(shape) == 0)
    throw OpGraphError(std::string(what) + " '" + name + "': shape " + shape_str(shape) + " has no elements");
  if (data.size() != elements(shape))
    throw OpGraphError(std::string(what) + " '" + name + "': " + std::to_string(data.size()) + " values for shape " +
                       shape_str(shape) + " (" + std::to_string(elements(shape)) + " elements)");
  const Value v = add_op(kind, std::move(name), {}, DType::kF32, std::move(shape));
  data_[v.id] = std::move(data);
  return v;
}

Value OpGraph::constant(std::string name, std::vector<uint32_t> shape, std::vector<float> data) {
  return leaf(OpKind::kConstant, std::move(name), std::move(shape), std::move(data));
}

Value OpGraph::parameter(std::string name, std::vector<uint32_t> shape, std::vector<float> initial) {
  return leaf(OpKind::kParameter, std::move(name), std::move(shape), std::move(initial));
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
  if (ops_[ib.op].kind != OpKind::kConstant && ops_[ib.op].kind != OpKind::kParameter)
    throw OpGraphError(at + ": the bias must be a constant or a parameter");
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

const ValueInfo& OpGraph::f32_matrix(Value v, const char* op, const std::string& name) const {
  const ValueInfo& i = operand(v, op, name);
  if (i.dtype != DType::kF32 || i.shape.size() != 2)
    throw OpGraphError(who(op, name) + ": " + type_string(i.dtype, i.shape) + ": needs a f32 matrix");
  return i;
}

Value OpGraph::softmax_xent(Value logits, Value labels, std::string name) {
  const ValueInfo& x = f32_matrix(logits, "softmax_xent", name);
  const ValueInfo& l = operand(labels, "softmax_xent", name);
  if (l.dtype != DType::kU32 || l.shape != std::vector<uint32_t>{x.shape[0]})
    throw OpGraphError(who("softmax_xent", name) + ": labels " + type_string(l.dtype, l.shape) + " for logits " +
                       type_string(x.dtype, x.shape) + ": need u32[" + std::to_string(x.shape[0]) + "]");
  return add_op(OpKind::kSoftmaxXent, std::move(name), {logits, labels}, DType::kF32, {x.shape[0]});
}

Value OpGraph::add(Value a, Value b, std::string name) {
  const ValueInfo &ia = operand(a, "add", name), &ib = operand(b, "add", name);
  if (ia.dtype != DType::kF32 || ib.dtype != DType::kF32 || ia.shape != ib.shape)
    throw OpGraphError(who("add", name) + ": " + type_string(ia.dtype, ia.shape) + " + " +
                       type_string(ib.dtype, ib.shape) + ": needs two f32 tensors of one shape");
  std::vector<uint32_t> shape = ia.shape;
  return add_op(OpKind::kAdd, std::move(name), {a, b}, DType::kF32, std::move(shape));
}

Value OpGraph::matmul_tn(Value a, Value b, std::string name) {
  const ValueInfo &ia = f32_matrix(a, "matmul_tn", name), &ib = f32_matrix(b, "matmul_tn", name);
  if (ia.shape[0] != ib.shape[0])
    throw OpGraphError(who("matmul_tn", name) + ": " + shape_str(ia.shape) + "^T x " + shape_str(ib.shape) +
                       ": inner dimensions differ");
  return add_op(OpKind::kMatMulTN, std::move(name), {a, b}, DType::kF32, {ia.shape[1], ib.shape[1]});
}

Value OpGraph::matmul_nt(Value a, Value b, std::string name) {
  const ValueInfo &ia = f32_matrix(a, "matmul_nt", name), &ib = f32_matrix(b, "matmul_nt", name);
  if (ia.shape[1] != ib.shape[1])
    throw OpGraphError(who("matmul_nt", name) + ": " + shape_str(ia.shape) + " x " + shape_str(ib.shape) +
                       "^T: inner dimensions differ");
  return add_op(OpKind::kMatMulNT, std::move(name), {a, b}, DType::kF32, {ia.shape[0], ib.shape[0]});
}

Value OpGraph::bias_grad(Value dy, std::string name) {
  const ValueInfo& i = f32_matrix(dy, "bias_grad", name);
  return add_op(OpKind::kBiasGrad, std::move(name), {dy}, DType::kF32, {i.shape[1]});
}

Value OpGraph::relu_grad(Value dy, Value y, std::string name) {
  const ValueInfo &id = operand(dy, "relu_grad", name), &iy = operand(y, "relu_grad", name);
  if (id.dtype != DType::kF32 || iy.dtype != DType::kF32 || id.shape != iy.shape)
    throw OpGraphError(who("relu_grad", name) + ": " + type_string(id.dtype, id.shape) + " and " +
                       type_string(iy.dtype, iy.shape) + ": needs two f32 tensors of one shape");
  std::vector<uint32_t> shape = id.shape;
  return add_op(OpKind::kReluGrad, std::move(name), {dy, y}, DType::kF32, std::move(shape));
}

Value OpGraph::softmax_xent_grad(Value logits, Value labels, float scale, std::string name) {
  const std::vector<uint32_t> shape = f32_matrix(logits, "softmax_xent_grad", name).shape;
  const ValueInfo& l = operand(labels, "softmax_xent_grad", name);
  if (l.dtype != DType::kU32 || l.shape != std::vector<uint32_t>{shape[0]})
    throw OpGraphError(who("softmax_xent_grad", name) + ": labels " + type_string(l.dtype, l.shape) +
                       ": need u32[" + std::to_string(shape[0]) + "]");
  const Value v = add_op(OpKind::kSoftmaxXentGrad, std::move(name), {logits, labels}, DType::kF32, shape);
  ops_.back().scale = scale;
  return v;
}

void OpGraph::sgd_momentum(Value param, Value grad, float momentum, float lr0, uint32_t total_steps,
                           std::string name) {
  const ValueInfo &ip = operand(param, "sgd_momentum", name), &ig = operand(grad, "sgd_momentum", name);
  const std::string at = who("sgd_momentum", name);
  if (ops_[ip.op].kind != OpKind::kParameter)
    throw OpGraphError(at + ": %" + std::to_string(param.id) + " is a " + op_kind_name(ops_[ip.op].kind) +
                       ", not a parameter");
  const std::string pname = "parameter '" + ops_[ip.op].name + "'";
  if (ig.dtype != DType::kF32 || ig.shape != ip.shape)
    throw OpGraphError(at + ": gradient " + type_string(ig.dtype, ig.shape) + " for " + pname + " " +
                       type_string(ip.dtype, ip.shape) + ": needs f32 of the parameter's shape");
  if (!std::isfinite(momentum) || !std::isfinite(lr0))
    throw OpGraphError(at + ": momentum and lr0 must be finite");
  if (total_steps == 0) throw OpGraphError(at + ": total_steps must be at least 1");
  for (const Op& op : ops_)
    if (op.kind == OpKind::kSgdMomentum && op.operands[0] == param)
      throw OpGraphError(at + ": " + pname + " already has an update");
  Op op{OpKind::kSgdMomentum, std::move(name), {param, grad}, Value{}};
  op.momentum = momentum;
  op.lr0 = lr0;
  op.total_steps = total_steps;
  ops_.push_back(std::move(op));
}

std::string dump(const OpGraph& g) {
  std::ostringstream out;
  for (const Op& op : g.ops()) {
    if (op.kind == OpKind::kOutput) {
      out << "output \"" << op.name << "\", %" << op.operands[0].id << "\n";
      continue;
    }
    if (op.kind == OpKind::kSgdMomentum) {
      out << "sgd_momentum %" << op.operands[0].id << ", %" << op.operands[1].id << ", momentum " << op.momentum
          << ", lr0 " << op.lr0 << ", steps " << op.total_steps;
      if (!op.name.empty()) out << "  # " << op.name;
      out << "\n";
      continue;
    }
    out << "%" << op.result.id << " = ";
    if (op.kind == OpKind::kBinary) out << binary_op_name(static_cast<BinaryOp>(op.attrs[0]));
    else if (op.kind == OpKind::kUnary) out << unary_op_name(static_cast<UnaryOp>(op.attrs[0]));
    else out << op_kind_name(op.kind);
    const bool leaf = op.kind == OpKind::kInput || op.kind == OpKind::kConstant || op.kind == OpKind::kParameter;
    if (leaf) out << " \"" << op.name << "\"";
    for (size_t i = 0; i < op.operands.size(); ++i) out << (i ? ", %" : " %") << op.operands[i].id;
    const ValueInfo& v = g.info(op.result);
    if (op.kind == OpKind::kSoftmaxXentGrad) out << ", scale " << op.scale;
    if (op.kind != OpKind::kBinary && op.kind != OpKind::kUnary && !op.attrs.empty()) {
      out << " {";
      for (size_t i = 0; i < op.attrs.size(); ++i) out << (i ? "," : "") << op.attrs[i];
      out << "}";
    }
    if (!op.fattrs.empty() && !(op.kind == OpKind::kUnary && op.fattrs[0] == 0 && op.fattrs[1] == 0)) {
      out << " {";
      for (size_t i = 0; i < op.fattrs.size(); ++i) out << (i ? "," : "") << op.fattrs[i];
      out << "}";
    }
    out << " : " << type_string(v.dtype, v.shape);
    if (!leaf && !op.name.empty()) out << "  # " << op.name;
    out << "\n";
  }
  return out.str();
}

}  // namespace tessera::opgraph

namespace tessera::opgraph {

std::vector<Value> OpGraph::append(const OpGraph& src, const std::map<std::string, Value>& inputs, bool as_parameters,
                                   const std::string& prefix) {
  std::vector<Value> map(src.values().size());
  for (const Op& op : src.ops()) {
    switch (op.kind) {
      case OpKind::kInput: {
        const auto it = inputs.find(op.name);
        if (it == inputs.end()) throw OpGraphError("append: no value for the model's input '" + op.name + "'");
        const ValueInfo &want = src.info(op.result), &got = info(it->second);
        if (want.dtype != got.dtype || want.shape != got.shape)
          throw OpGraphError("append: input '" + op.name + "' is " + type_string(want.dtype, want.shape) +
                             ", the value given is " + type_string(got.dtype, got.shape));
        map[op.result.id] = it->second;
        break;
      }
      case OpKind::kConstant:
      case OpKind::kParameter: {
        const ValueInfo& i = src.info(op.result);
        map[op.result.id] = as_parameters || op.kind == OpKind::kParameter
                                ? parameter(op.name, i.shape, src.constant_data(op.result))
                                : constant(op.name, i.shape, src.constant_data(op.result));
        break;
      }
      case OpKind::kOutput:
        break;
      case OpKind::kSgdMomentum:
        throw OpGraphError("append: the model has updates (sgd_momentum)");
      default: {
        Op copy = op;
        for (Value& v : copy.operands) v = map.at(v.id);
        if (!copy.name.empty() || !prefix.empty()) copy.name = prefix + copy.name;
        const ValueInfo& i = src.info(op.result);
        const Value r = add_op(copy.kind, copy.name, copy.operands, i.dtype, i.shape);
        copy.result = r;
        ops_.back() = std::move(copy);
        map[op.result.id] = r;
      }
    }
  }
  return map;
}

}  // namespace tessera::opgraph
