// Training any classifier op graph on the device (an imported ONNX model, LeNet, ...): the
// executable `tessera train` runs, with the interface of mlp_train.h but the model's own
// layers and parameter names.
//
//   program "train" = Repeat(steps_per_sync) {
//       HostWrite stream "x"       the model's input at the training batch B
//       HostWrite stream "labels"  u32 [B]
//       forward; backward (autodiff of the mean softmax cross-entropy of the logits)
//       HostRead  stream "loss"    f32 [B]
//       sgd_momentum of every parameter, lr_t = lr0 * (1 - t / total_steps) }
//   program "infer" = Repeat(infer_batches) {
//       HostWrite stream "x_infer" the model's input at the inference batch
//       HostRead  stream "logits"  the model's output }
//   tensors: every constant of the model becomes a parameter of the same name (its initial
//   value the model's), with "<name>.velocity" beside it.
//
// There is no program "init": the model's weights are the initial values (a model exported
// from PyTorch carries PyTorch's initialisation).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <vector>

#include "tessera/graph/graph.h"
#include "tessera/opgraph/lower.h"
#include "tessera/opgraph/opgraph.h"

namespace tessera::models {

struct ClassifierTrainConfig {
  uint32_t steps_per_sync = 25;  // SGD steps per run of "train"
  uint32_t infer_batches = 1;    // transfers per run of "infer"
  float lr0 = 0.02f, momentum = 0.9f;
  uint32_t total_steps = 3750;      // the learning rate's linear decay to 0
  uint32_t firmware_bytes = 16384;  // SRAM the firmware takes on every tile
  bool big_model = false;           // opgraph::LowerOptions::big_model for both programs
  double memory_proportion = 0.5;   // opgraph::LowerOptions::memory_proportion for both
  // opgraph::LowerOptions::op_proportions and lowered_ops for both: "train"'s ops numbered
  // from 0, then "infer"'s (ClassifierGraphs: first_op_index the train graph's op count).
  std::map<size_t, double> op_proportions = {};
  std::vector<opgraph::LoweredOp>* lowered_ops = nullptr;
  // opgraph::LowerOptions' memory savings: in_place for both, the others for "train".
  bool in_place = true, early_updates = true;
  std::set<opgraph::OpKind> recompute = {};
  std::function<void(const std::string&)> note = {};  // opgraph::LowerOptions::note for "train"
};

// The two op graphs: `train` (inputs "x", "labels"; output "loss"; gradients; one
// sgd_momentum per parameter, named "sgd") and `infer` (input "x_infer", output "logits";
// layers prefixed "infer."), from the model at the training batch (`model`: one f32 input
// [B, ...], one output, the logits f32 [B, classes]) and at the inference batch
// (`model_infer`, the same model with another batch). Throws std::runtime_error naming
// what does not fit that form.
struct ClassifierGraphs {
  opgraph::OpGraph train, infer;
  opgraph::Value loss, logits;
  std::vector<opgraph::Value> params;  // in the model's order
};
ClassifierGraphs build_classifier_graphs(const opgraph::OpGraph& model, const opgraph::OpGraph& model_infer,
                                         const ClassifierTrainConfig& c);

// Lowers both into `g`: "train" first (its ops place the parameters), then "infer" over the
// same parameters.
void build_classifier_training(graph::Graph& g, const opgraph::OpGraph& model, const opgraph::OpGraph& model_infer,
                               const ClassifierTrainConfig& c);

}  // namespace tessera::models
