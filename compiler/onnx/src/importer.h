// The ONNX importer's state while it walks one graph (import.h): what each ONNX name
// stands for, the node being imported and its attributes and inputs, checked. The op
// converters live in import_*.cpp, one file per family, each a member of Importer.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "tessera/onnx/import.h"

namespace tessera::onnx_import::detail {

// A tensor known at import time: an initializer, a Constant's value, or a folded result
// (shapes computed from shapes). Float tensors may become op graph constants; integer
// ones serve only as shapes, axes and indices.
struct Const {
  std::vector<int64_t> dims;  // ONNX dims; empty: a scalar
  bool is_float = true;
  std::vector<float> f;    // is_float
  std::vector<int64_t> i;  // !is_float (int64, int32 and bool data)
  size_t count() const { return is_float ? f.size() : i.size(); }
};

// What an ONNX value name stands for: a constant, or a value of the op graph (a constant
// once materialised, or what an op computes).
struct Tensor {
  std::optional<Const> c;
  opgraph::Value v;
};

uint64_t element_count(const std::vector<int64_t>& dims);
std::vector<int64_t> to_dims(const std::vector<uint32_t>& shape);

class Importer {
 public:
  Importer(const onnx::ModelProto& m, const std::string& what, const ImportOptions& o) : m_(m), what_(what), o_(o) {}
  Model run();

  // ---- the node being imported (import.cpp)
  [[noreturn]] void fail(const std::string& why) const;  // names the file and the node
  // Attributes: a wrong type or a value out of range is an error naming the attribute.
  bool has_attr(const char* name) const;
  int64_t attr_int(const char* name, int64_t dflt) const;
  float attr_float(const char* name, float dflt) const;
  std::string attr_string(const char* name, const std::string& dflt) const;
  std::vector<int64_t> attr_ints(const char* name, std::vector<int64_t> dflt) const;
  const onnx::AttributeProto* attr(const char* name) const;
  // Every attribute of the node must be one of `known` (else: "attribute X is not supported").
  void known_attrs(std::initializer_list<const char*> known) const;
  // Inputs: `i` must be given (a non-empty name) unless optional; at most `max` inputs.
  void input_count(int min, int max) const;
  bool has_input(int i) const;
  const Tensor& in(int i) const;
  bool is_const(int i) const { return in(i).c.has_value(); }
  const Const& constant(int i, const char* role) const;  // error if not known at import time
  opgraph::Value value(int i);                           // materialises a constant
  std::vector<uint32_t> shape(int i) const;              // of a runtime value or constant
  // Integer values of a constant input (axes, shapes).
  std::vector<int64_t> ints(int i, const char* role) const;
  // Outputs beyond `used` must be absent or unused.
  void only_outputs(int used) const;
  void set(int out, opgraph::Value v);
  void set(int out, Const c);
  void set(int out, const Tensor& t);
  std::string layer() const;  // the op graph's layer name for this node
  int64_t opset() const { return opset_; }
  opgraph::OpGraph& og() { return og_; }
  opgraph::Value make_constant(const std::string& name, const Const& c);
  // An axis in [-rank, rank) (or [-rank, rank] with `inclusive`), as a positive index.
  uint32_t axis(int64_t a, size_t rank, const char* what, bool inclusive = false) const;

  // ---- converters, one per op type (import_*.cpp)
  void conv();
  void pool(bool max);
  void global_average_pool();
  void lrn();
  void batch_norm();
  void gemm();
  void matmul();
  void binary(opgraph::BinaryOp op);
  void unary(const std::string& type);
  void softmax();
  void flatten();
  void reshape();
  void transpose();
  void concat();
  void squeeze(bool un);
  void pass_through();
  void constant_node();
  void shape_node();
  void gather();
  void cast();

 private:
  friend struct NodeScope;
  void read_initializers();
  void read_inputs();
  void count_uses();
  void import_node(int index);
  void write_outputs(Model& model);
  Const decode(const onnx::TensorProto& t, const std::string& what) const;
  // The index of the BatchNormalization that alone consumes this Conv's result, if it can
  // be folded into the Conv; -1 if none.
  int foldable_batch_norm(const std::string& conv_out) const;

  const onnx::ModelProto& m_;
  const std::string& what_;
  const ImportOptions& o_;
  opgraph::OpGraph og_;
  int64_t opset_ = 0;
  std::map<std::string, Tensor> env_;
  std::map<std::string, std::vector<int>> consumers_;  // name -> nodes reading it
  std::map<std::string, bool> graph_outputs_;
  std::map<int, bool> folded_;                         // BatchNormalizations folded into a Conv
  std::map<std::string, int> constant_names_;          // op graph constants made, by name
  uint32_t folded_count_ = 0;
  const onnx::NodeProto* node_ = nullptr;
  int index_ = -1;
  std::vector<std::string> inputs_;
  friend class ConvFolding;

 public:
  // For the folding: mark node `index` done, its output bound to `v`.
  void fold_into(int index, const std::string& out, opgraph::Value v) {
    folded_[index] = true;
    ++folded_count_;
    env_[out].v = v;
  }
  const onnx::NodeProto& node() const { return *node_; }
};

// Numpy broadcasting of two constants' dims; error if they do not broadcast.
std::optional<std::vector<int64_t>> broadcast(const std::vector<int64_t>& a, const std::vector<int64_t>& b);
// The transposition of a constant.
Const transpose_const(const Const& c, const std::vector<uint32_t>& perm);

}  // namespace tessera::onnx_import::detail
