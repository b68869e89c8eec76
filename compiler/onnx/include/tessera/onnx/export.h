// ONNX export of an op graph's inference part: what its outputs need, as a standard ONNX
// model (opset 13) that PyTorch, ONNX Runtime or any other engine can evaluate.
//
//   export_onnx(og, {{"fc1.w", trained_w1}, ...}, "mlp.onnx");
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "tessera/opgraph/opgraph.h"

namespace tessera::onnx_export {

class OnnxError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Writes to `path` the ops the graph's outputs depend on: inputs become graph inputs (f32,
// or u32 as uint32), parameters and constants initializers (their value from `values` by
// name if given there, e.g. trained weights, else their initial data), matmul -> MatMul,
// add_bias -> Add, relu -> Relu, softmax -> Softmax (axis 1), argmax -> ArgMax (axis 1,
// keepdims 0: int64 in ONNX), outputs graph outputs named as in the op graph. Throws
// OnnxError naming the op if one has no ONNX form (the training ops), a value in `values`
// has the wrong size or names nothing, or the file cannot be written.
void export_onnx(const opgraph::OpGraph& og, const std::map<std::string, std::vector<float>>& values,
                 const std::string& path, const std::string& model_name = "tessera");

}  // namespace tessera::onnx_export
