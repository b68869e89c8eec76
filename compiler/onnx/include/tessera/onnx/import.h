// ONNX import: a model file (ONNX ModelProto, opsets 11 to 17) into an op graph for
// inference. Weights stay constants (the lowering places them); inputs become input
// streams and outputs output streams named after the model's graph inputs and outputs.
//
//   onnx_import::ImportOptions o;
//   o.batch = 8;  // for inputs whose batch dimension is symbolic
//   onnx_import::Model m = onnx_import::import_file("lenet.onnx", o);
//   std::vector<opgraph::Words> v = opgraph::evaluate(m.graph, {{"x", ...}});
//
// The ops, attributes and foldings supported are listed in docs/onnx.md. BatchNormalization
// after a Conv with constant weights whose result has no other use is folded into that
// Conv's weights and bias; elsewhere it becomes a per-channel multiply and add.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "tessera/opgraph/opgraph.h"

namespace tessera::onnx_import {

// A model the importer cannot take: the message names the file, the node (its index in
// the graph and its name), its op type and what is unsupported or wrong, e.g.
// "lenet.onnx: node 3 '/conv2/Conv' (Conv): attribute auto_pad 'SAME_MIDDLE' is not
// supported (NOTSET, SAME_UPPER, SAME_LOWER, VALID)".
class ImportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ImportOptions {
  // The size of a symbolic (dynamic) first dimension of the graph's inputs; 0: none given,
  // and such an input is an error. Any other dynamic dimension is always an error.
  uint32_t batch = 0;
};

struct Model {
  opgraph::OpGraph graph;
  int64_t opset = 0;                 // of the default ONNX domain
  std::string producer;              // "pytorch 1.13.0", ...
  std::vector<std::string> inputs;   // graph inputs (initializers excluded), in order
  std::vector<std::string> outputs;  // graph outputs, in order
  uint32_t folded_batch_norms = 0;   // BatchNormalizations folded into a Conv
};

// The model in `bytes` (a serialized ModelProto); `what` names it in errors. Throws
// ImportError for a malformed or truncated file, an unsupported opset, op, attribute or
// dynamic shape, or a graph that does not check (a name no node makes, mismatched shapes).
Model import_model(std::span<const std::byte> bytes, const std::string& what, const ImportOptions& o = {});
Model import_file(const std::string& path, const ImportOptions& o = {});

// The op types import_model takes, "BatchNormalization, Clip, ...".
std::string supported_ops();

}  // namespace tessera::onnx_import
