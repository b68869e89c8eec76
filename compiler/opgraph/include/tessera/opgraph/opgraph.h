// The op graph (DESIGN.md section 1): values with shapes and dtypes, no tiles; ops checked
// for shapes and dtypes when they are added; a readable dump; lowering into the vertex
// graph (tessera/opgraph/lower.h).
//
//   opgraph::OpGraph og;
//   Value x = og.input("x", DType::kF32, {8, 784});
//   Value w = og.constant("layer1.w", {784, 32}, w1), b = og.constant("layer1.b", {32}, b1);
//   Value h = og.relu(og.add_bias(og.matmul(x, w, "layer1"), b, "layer1"), "layer1");
//   og.output("h", h);
//
// Values are immutable (SSA): every op makes a new value. Op names are optional and name
// the layer an op belongs to (several ops may share one).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "tessera/exe/executable.h"

namespace tessera::opgraph {

using DType = exe::DType;

// A malformed op graph; the message names the op and the shapes ("matmul 'fc1': [40,784] x
// [100,128]: inner dimensions differ").
class OpGraphError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A handle to a value of one OpGraph (its index there, printed as %id).
struct Value {
  static constexpr uint32_t kNone = 0xFFFFFFFFu;
  uint32_t id = kNone;
  bool valid() const { return id != kNone; }
  bool operator==(const Value&) const = default;
};

enum class OpKind {
  kInput, kConstant, kMatMul, kAddBias, kRelu, kSoftmax, kArgmax, kOutput,
  // Training (autodiff.h): persistent weights, the loss, and the ops gradients are made of.
  kParameter, kSoftmaxXent, kAdd, kMatMulTN, kMatMulNT, kBiasGrad, kReluGrad, kSoftmaxXentGrad,
  // The update of a parameter in place (no result, like output).
  kSgdMomentum,
};
const char* op_kind_name(OpKind k);  // "matmul", ...

struct Op {
  OpKind kind = OpKind::kInput;
  // input / constant / output: the stream's or tensor's name; other ops: the optional
  // layer name ("" if none).
  std::string name;
  std::vector<Value> operands;
  Value result;  // invalid for output and sgd_momentum
  float scale = 0;  // softmax_xent_grad: the factor of every row's gradient (1/rows for the mean)
  // sgd_momentum: the momentum, the initial learning rate and the steps of its linear decay.
  float momentum = 0, lr0 = 0;
  uint32_t total_steps = 0;
};

struct ValueInfo {
  DType dtype = DType::kF32;
  std::vector<uint32_t> shape;
  uint32_t op = 0;  // index of the op that makes it
};

class OpGraph {
 public:
  // A host stream in (written each time the program runs).
  Value input(std::string name, DType dtype, std::vector<uint32_t> shape);
  // A f32 constant (weights), row-major, element_count(shape) values.
  Value constant(std::string name, std::vector<uint32_t> shape, std::vector<float> data);
  // A f32 parameter: a persistent tensor that training updates in place, with its initial
  // value (row-major). Ops take it where they take a constant.
  Value parameter(std::string name, std::vector<uint32_t> shape, std::vector<float> initial);
  // [m,k] x [k,n] -> [m,n], f32.
  Value matmul(Value a, Value b, std::string name = "");
  // x [..., n] + b [n] on every row, f32; b must be a constant.
  Value add_bias(Value x, Value b, std::string name = "");
  // max(x, +0) element-wise, f32.
  Value relu(Value x, std::string name = "");
  // Row-wise softmax of a f32 matrix.
  Value softmax(Value x, std::string name = "");
  // Index of each row's largest element: f32 [m,n] -> u32 [m].
  Value argmax(Value x, std::string name = "");
  // A host stream out, read after all ops.
  void output(std::string name, Value v);

  // Training. Softmax cross-entropy of each row of f32 logits [m,n] against u32 labels [m]:
  // f32 [m], loss_r = log(sum_c exp(x_rc)) - x_r,label.
  Value softmax_xent(Value logits, Value labels, std::string name = "");
  // Element-wise a + b, same shape, f32.
  Value add(Value a, Value b, std::string name = "");
  // a^T b: a [k,m], b [k,n] -> [m,n]; and a b^T: a [m,k], b [n,k] -> [m,n].
  Value matmul_tn(Value a, Value b, std::string name = "");
  Value matmul_nt(Value a, Value b, std::string name = "");
  // Column sums of dy [m,n] -> [n] (the gradient of a bias).
  Value bias_grad(Value dy, std::string name = "");
  // dy where y (a relu's result) > 0, else 0; same shape.
  Value relu_grad(Value dy, Value y, std::string name = "");
  // The gradient of scale * sum_r softmax_xent(logits, labels)_r with respect to logits:
  // (softmax(x_r) - onehot(label_r)) * scale, f32 [m,n].
  Value softmax_xent_grad(Value logits, Value labels, float scale, std::string name = "");

  // The update of `param` (a parameter) by its gradient `grad` (f32, same shape) after each
  // step: SGD with momentum as PyTorch's (dampening 0, no Nesterov, no weight decay), the
  // velocity implicit state, zero initially:
  //   v = v * momentum;  v = v + grad;  param = fmaf(v, -lr_t, param)
  // each rounded once, with the learning rate decaying linearly (firmware lr_linear):
  // lr_t = lr0 * (1 - t / total_steps) for step t = 0, 1, ... (0 from t = total_steps on).
  // Updates apply after every other op of the step (ops read the parameter as it was at
  // the step's start). No result; at most one update per parameter.
  void sgd_momentum(Value param, Value grad, float momentum, float lr0, uint32_t total_steps, std::string name = "");

  const ValueInfo& info(Value v) const;
  const std::vector<float>& constant_data(Value v) const;  // v must be a constant or parameter
  const std::vector<Op>& ops() const { return ops_; }
  const std::vector<ValueInfo>& values() const { return values_; }
  const Op& producer(Value v) const { return ops_.at(info(v).op); }

 private:
  Value add_op(OpKind kind, std::string name, std::vector<Value> operands, DType dtype, std::vector<uint32_t> shape);
  Value leaf(OpKind kind, std::string name, std::vector<uint32_t> shape, std::vector<float> data);
  const ValueInfo& f32_matrix(Value v, const char* op, const std::string& name) const;
  const ValueInfo& operand(Value v, const char* op, const std::string& name) const;
  void check_unique(const std::string& what, const std::string& name) const;

  std::vector<Op> ops_;
  std::vector<ValueInfo> values_;
  std::vector<std::vector<float>> data_;  // per value; constants only
};

// "f32[40,128]"
std::string type_string(DType dtype, const std::vector<uint32_t>& shape);

// One line per op, in order:
//   %0 = input "x" : f32[8,784]
//   %3 = matmul %0, %1 : f32[8,32]  # layer1
//   output "logits", %7
//   sgd_momentum %1, %30, momentum 0.9, lr0 0.05, steps 100  # sgd
std::string dump(const OpGraph& g);

}  // namespace tessera::opgraph
