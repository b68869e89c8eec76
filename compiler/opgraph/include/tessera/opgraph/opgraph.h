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
#include <map>
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
  // N-D and CNN ops (NCHW); each in its own file under compiler/opgraph/src/ops/.
  kReshape, kTranspose, kConcat, kConv2d, kMaxPool2d, kAvgPool2d, kLrn, kBinary, kUnary,
  // Their gradients (autodiff makes them).
  kConv2dGradInput, kConv2dGradWeight, kChannelSum, kMaxPool2dGrad, kAvgPool2dGrad, kUnaryGrad,
};
const char* op_kind_name(OpKind k);  // "matmul", ...

// Convolution geometry (ONNX Conv): strides, pads (top, left, bottom, right), dilations,
// groups.
struct Conv2dAttrs {
  uint32_t stride_h = 1, stride_w = 1;
  uint32_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  uint32_t dilation_h = 1, dilation_w = 1;
  uint32_t groups = 1;
};

// Pooling geometry (ONNX MaxPool / AveragePool): kernel, strides, pads, ceil_mode (output
// size rounded up, a last window starting inside the input or its top/left padding),
// count_include_pad (AveragePool: divide by the window's size including padding).
struct Pool2dAttrs {
  uint32_t kernel_h = 1, kernel_w = 1;
  uint32_t stride_h = 1, stride_w = 1;
  uint32_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  bool ceil_mode = false;
  bool count_include_pad = false;
};

// Element-wise ops with numpy broadcasting (binary) and one operand (unary, with up to two
// float parameters: leaky_relu's alpha; clip's min and max).
enum class BinaryOp : uint32_t { kAdd = 0, kSub = 1, kMul = 2, kDiv = 3 };
enum class UnaryOp : uint32_t { kLeakyRelu = 0, kSigmoid = 1, kTanh = 2, kClip = 3 };
const char* binary_op_name(BinaryOp op);  // "add", ...
const char* unary_op_name(UnaryOp op);    // "leaky_relu", ...

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
  // N-D ops: integer attributes (reshape/transpose: the shape or permutation; concat: the
  // axis; conv2d, pools: their Attrs as words in declaration order; binary, unary: the op
  // code) and float ones (unary: p0, p1; lrn: alpha, beta, bias with the size in attrs).
  std::vector<uint32_t> attrs = {};
  std::vector<float> fattrs = {};
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
  // ---- N-D and CNN ops (NCHW; compiler/opgraph/src/ops/, one file each)
  // The same elements (any dtype) in another shape of equal element count.
  Value reshape(Value x, std::vector<uint32_t> shape, std::string name = "");
  // Dimensions permuted: result dim i = x's dim perm[i].
  Value transpose(Value x, std::vector<uint32_t> perm, std::string name = "");
  // Tensors of one dtype and rank joined along `axis` (other dims equal).
  Value concat(std::vector<Value> xs, uint32_t axis, std::string name = "");
  // 2-D convolution: x f32[N,C,H,W], w f32[M,C/groups,kh,kw] (a constant or parameter),
  // b f32[M] (constant or parameter) or an invalid Value for none -> f32[N,M,OH,OW].
  Value conv2d(Value x, Value w, Value b, const Conv2dAttrs& a, std::string name = "");
  // Pooling over H and W of f32[N,C,H,W].
  Value max_pool2d(Value x, const Pool2dAttrs& a, std::string name = "");
  Value avg_pool2d(Value x, const Pool2dAttrs& a, std::string name = "");
  // Average over all of H and W: f32[N,C,H,W] -> f32[N,C,1,1] (an avg_pool2d).
  Value global_avg_pool(Value x, std::string name = "");
  // Local response normalisation across channels (ONNX LRN) of f32[N,C,H,W]:
  // y = x / (bias + alpha / size * sum of x^2 over the `size` nearest channels)^beta.
  Value lrn(Value x, uint32_t size, float alpha, float beta, float bias, std::string name = "");
  // a OP b with numpy broadcasting, f32.
  Value binary(BinaryOp op, Value a, Value b, std::string name = "");
  // OP(x), f32; p0, p1 as UnaryOp says.
  Value unary(UnaryOp op, Value x, float p0 = 0, float p1 = 0, std::string name = "");

  // ---- The N-D ops' gradients (autodiff's rules add them).
  // dx f32[x_shape] of conv2d(x, w) from dy f32[N,M,OH,OW] and w.
  Value conv2d_grad_input(Value dy, Value w, const Conv2dAttrs& a, std::vector<uint32_t> x_shape,
                          std::string name = "");
  // dw f32[w_shape] of conv2d(x, w) from x and dy, summed over the images.
  Value conv2d_grad_weight(Value x, Value dy, const Conv2dAttrs& a, std::vector<uint32_t> w_shape,
                           std::string name = "");
  // Sums over N, H and W: f32[N,C,H,W] -> f32[C] (a conv bias's gradient).
  Value channel_sum(Value dy, std::string name = "");
  // dx of max_pool2d(x) (dy to each window's first largest element) and avg_pool2d.
  Value max_pool2d_grad(Value dy, Value x, const Pool2dAttrs& a, std::string name = "");
  Value avg_pool2d_grad(Value dy, const Pool2dAttrs& a, std::vector<uint32_t> x_shape, std::string name = "");
  // dx of unary(op, x): v is x for leaky_relu and clip, the result y for sigmoid and tanh.
  Value unary_grad(UnaryOp op, Value dy, Value v, float p0, float p1, std::string name = "");

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

  // Copies the ops of `src` (a model) into this graph, for building training and inference
  // programs around an imported model: each input of src is replaced by the value
  // `inputs` gives for its name (same dtype and shape), its constants become parameters
  // (same names and data) if `as_parameters`, layer names get `prefix`, and its outputs are
  // not copied. Returns, for each value of src (by id), its value here.
  std::vector<Value> append(const OpGraph& src, const std::map<std::string, Value>& inputs, bool as_parameters,
                            const std::string& prefix = "");

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

// The output size of a window op along one axis: floor (or ceil) of
// (in + pads - dilation * (kernel - 1) - 1) / stride + 1; ceil mode drops a last window that
// would start in the bottom/right padding. 0 if no window fits.
uint32_t window_output_size(uint32_t in, uint32_t kernel, uint32_t stride, uint32_t pad_begin, uint32_t pad_end,
                            uint32_t dilation, bool ceil_mode);
// The attrs of a conv2d / pool op, decoded from Op::attrs.
Conv2dAttrs conv2d_attrs(const Op& op);
Pool2dAttrs pool2d_attrs(const Op& op);

// "f32[40,128]"
std::string type_string(DType dtype, const std::vector<uint32_t>& shape);

// One line per op, in order:
//   %0 = input "x" : f32[8,784]
//   %3 = matmul %0, %1 : f32[8,32]  # layer1
//   output "logits", %7
//   sgd_momentum %1, %30, momentum 0.9, lr0 0.05, steps 100  # sgd
std::string dump(const OpGraph& g);

}  // namespace tessera::opgraph
