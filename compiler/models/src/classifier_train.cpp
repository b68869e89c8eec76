#include "tessera/models/classifier_train.h"

#include <stdexcept>

#include "tessera/opgraph/autodiff.h"
#include "tessera/opgraph/lower.h"

namespace tessera::models {

using opgraph::DType;
using opgraph::OpGraph;
using opgraph::OpKind;
using opgraph::Value;

namespace {

// The model's one input and one output op.
std::pair<const opgraph::Op*, const opgraph::Op*> interface_of(const OpGraph& m, const char* which) {
  const opgraph::Op *in = nullptr, *out = nullptr;
  for (const opgraph::Op& op : m.ops()) {
    if (op.kind == OpKind::kInput) {
      if (in) throw std::runtime_error(std::string(which) + ": a classifier has one input, this model has more");
      in = &op;
    }
    if (op.kind == OpKind::kOutput) {
      if (out) throw std::runtime_error(std::string(which) + ": a classifier has one output, this model has more");
      out = &op;
    }
  }
  if (!in || !out) throw std::runtime_error(std::string(which) + ": a classifier needs an input and an output");
  const opgraph::ValueInfo &x = m.info(in->result), &y = m.info(out->operands[0]);
  if (x.dtype != DType::kF32 || x.shape.empty() || y.dtype != DType::kF32 || y.shape.size() != 2 ||
      y.shape[0] != x.shape[0])
    throw std::runtime_error(std::string(which) + ": input " + opgraph::type_string(x.dtype, x.shape) + " and output " +
                             opgraph::type_string(y.dtype, y.shape) + ": need f32 [B, ...] in and logits f32 [B, classes] out");
  return {in, out};
}

}  // namespace

ClassifierGraphs build_classifier_graphs(const OpGraph& model, const OpGraph& model_infer,
                                         const ClassifierTrainConfig& c) {
  if (c.total_steps == 0) throw std::runtime_error("classifier: total_steps must be at least 1");
  const auto [in, out] = interface_of(model, "classifier");
  const auto [in_i, out_i] = interface_of(model_infer, "classifier (inference batch)");
  ClassifierGraphs r;
  {
    OpGraph& og = r.train;
    const opgraph::ValueInfo& xi = model.info(in->result);
    const Value x = og.input("x", DType::kF32, xi.shape);
    const Value labels = og.input("labels", DType::kU32, {xi.shape[0]});
    const std::vector<Value> map = og.append(model, {{in->name, x}}, true);
    for (const opgraph::Op& op : model.ops())
      if (op.kind == OpKind::kConstant || op.kind == OpKind::kParameter) r.params.push_back(map[op.result.id]);
    r.loss = og.softmax_xent(map[out->operands[0].id], labels, "loss");
    og.output("loss", r.loss);
    const std::vector<Value> grads = opgraph::gradients(og, r.loss, r.params);
    for (size_t i = 0; i < r.params.size(); ++i)
      og.sgd_momentum(r.params[i], grads[i], c.momentum, c.lr0, c.total_steps, "sgd");
  }
  {
    OpGraph& og = r.infer;
    const opgraph::ValueInfo& xi = model_infer.info(in_i->result);
    const Value x = og.input("x_infer", DType::kF32, xi.shape);
    const std::vector<Value> map = og.append(model_infer, {{in_i->name, x}}, true, "infer.");
    r.logits = map[out_i->operands[0].id];
    og.output("logits", r.logits);
  }
  return r;
}

void build_classifier_training(graph::Graph& g, const OpGraph& model, const OpGraph& model_infer,
                               const ClassifierTrainConfig& c) {
  if (c.steps_per_sync == 0 || c.infer_batches == 0)
    throw std::runtime_error("classifier: steps_per_sync and infer_batches must be at least 1");
  const ClassifierGraphs og = build_classifier_graphs(model, model_infer, c);
  opgraph::LowerOptions t;
  t.batches = c.steps_per_sync;
  t.firmware_bytes = c.firmware_bytes;
  t.train = true;
  t.program = "train";
  t.big_model = c.big_model;
  t.memory_proportion = c.memory_proportion;
  t.op_proportions = c.op_proportions;
  t.lowered_ops = c.lowered_ops;
  t.in_place = c.in_place;
  t.early_updates = c.early_updates;
  t.recompute = c.recompute;
  t.note = c.note;
  // Weights the training program keeps in device memory, streamed by the inference program too.
  t.streamed = std::make_shared<std::map<std::string, std::shared_ptr<const ops::StreamedWeight>>>();
  const std::map<std::string, graph::Tensor> bound = opgraph::lower(og.train, g, t);
  opgraph::LowerOptions i;
  i.batches = c.infer_batches;
  i.firmware_bytes = c.firmware_bytes;
  i.program = "infer";
  i.big_model = c.big_model;
  i.memory_proportion = c.memory_proportion;
  i.op_proportions = c.op_proportions;
  i.lowered_ops = c.lowered_ops;
  i.first_op_index = og.train.ops().size();
  i.in_place = c.in_place;
  i.parameters = bound;
  i.streamed = t.streamed;
  opgraph::lower(og.infer, g, i);
}

}  // namespace tessera::models
