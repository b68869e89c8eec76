// ONNX export (export.h) through the ONNX protobuf classes.
#include "tessera/onnx/export.h"

#include <fstream>
#include <set>

#include <onnx/onnx_pb.h>

namespace tessera::onnx_export {

namespace {

using opgraph::Op;
using opgraph::OpKind;
using opgraph::Value;

std::string value_name(const opgraph::OpGraph& og, Value v) {
  const Op& op = og.producer(v);
  const bool leaf = op.kind == OpKind::kInput || op.kind == OpKind::kConstant || op.kind == OpKind::kParameter;
  return leaf ? op.name : "v" + std::to_string(v.id);
}

void set_type(onnx::ValueInfoProto* vi, const opgraph::ValueInfo& info, bool int64 = false) {
  auto* t = vi->mutable_type()->mutable_tensor_type();
  t->set_elem_type(int64 ? onnx::TensorProto::INT64
                   : info.dtype == opgraph::DType::kU32 ? onnx::TensorProto::UINT32
                                                        : onnx::TensorProto::FLOAT);
  for (uint32_t d : info.shape) t->mutable_shape()->add_dim()->set_dim_value(d);
}

}  // namespace

void export_onnx(const opgraph::OpGraph& og, const std::map<std::string, std::vector<float>>& values,
                 const std::string& path, const std::string& model_name) {
  // What the outputs need, back to the leaves.
  std::vector<bool> needed(og.values().size(), false);
  for (auto it = og.ops().rbegin(); it != og.ops().rend(); ++it) {
    const bool live = it->kind == OpKind::kOutput || (it->result.valid() && needed[it->result.id]);
    if (live)
      for (const Value v : it->operands) needed[v.id] = true;
  }
  std::set<std::string> used_values;

  onnx::ModelProto model;
  model.set_ir_version(8);
  model.set_producer_name("tessera");
  model.add_opset_import()->set_version(13);
  onnx::GraphProto* graph = model.mutable_graph();
  graph->set_name(model_name);

  for (const Op& op : og.ops()) {
    if (op.kind == OpKind::kOutput) {
      const opgraph::ValueInfo& info = og.info(op.operands[0]);
      const bool int64 = og.producer(op.operands[0]).kind == OpKind::kArgmax;
      onnx::NodeProto* id = graph->add_node();
      id->set_op_type("Identity");
      id->add_input(value_name(og, op.operands[0]));
      id->add_output(op.name);
      set_type(graph->add_output(), info, int64);
      graph->mutable_output(graph->output_size() - 1)->set_name(op.name);
      continue;
    }
    if (!op.result.valid() || !needed[op.result.id]) continue;  // updates, and what no output needs
    const opgraph::ValueInfo& info = og.info(op.result);
    const std::string out = value_name(og, op.result);
    auto node = [&](const char* type) {
      onnx::NodeProto* n = graph->add_node();
      n->set_op_type(type);
      n->set_name(op.name.empty() ? out : op.name + "." + type);
      for (const Value v : op.operands) n->add_input(value_name(og, v));
      n->add_output(out);
      return n;
    };
    auto int_attr = [](onnx::NodeProto* n, const char* name, int64_t v) {
      onnx::AttributeProto* a = n->add_attribute();
      a->set_name(name);
      a->set_type(onnx::AttributeProto::INT);
      a->set_i(v);
    };
    switch (op.kind) {
      case OpKind::kInput: {
        onnx::ValueInfoProto* in = graph->add_input();
        in->set_name(op.name);
        set_type(in, info);
        break;
      }
      case OpKind::kConstant: case OpKind::kParameter: {
        std::vector<float> data = og.constant_data(op.result);
        if (auto it = values.find(op.name); it != values.end()) {
          if (it->second.size() != data.size())
            throw OnnxError("export_onnx: value for '" + op.name + "' has " + std::to_string(it->second.size()) +
                            " elements, its shape " + opgraph::type_string(info.dtype, info.shape) + " needs " +
                            std::to_string(data.size()));
          data = it->second;
          used_values.insert(op.name);
        }
        onnx::TensorProto* t = graph->add_initializer();
        t->set_name(op.name);
        t->set_data_type(onnx::TensorProto::FLOAT);
        for (uint32_t d : info.shape) t->add_dims(d);
        t->set_raw_data(std::string(reinterpret_cast<const char*>(data.data()), data.size() * sizeof(float)));
        break;
      }
      case OpKind::kMatMul: node("MatMul"); break;
      case OpKind::kAddBias: node("Add"); break;
      case OpKind::kRelu: node("Relu"); break;
      case OpKind::kSoftmax: int_attr(node("Softmax"), "axis", 1); break;
      case OpKind::kArgmax: {
        onnx::NodeProto* n = node("ArgMax");
        int_attr(n, "axis", 1);
        int_attr(n, "keepdims", 0);
        break;
      }
      default:
        throw OnnxError(std::string("export_onnx: ") + opgraph::op_kind_name(op.kind) +
                        (op.name.empty() ? "" : " '" + op.name + "'") + " has no ONNX form");
    }
  }
  for (const auto& [name, data] : values)
    if (!used_values.count(name))
      throw OnnxError("export_onnx: '" + name + "' is not a parameter or constant the outputs use");

  std::ofstream f(path, std::ios::binary);
  if (!f || !model.SerializeToOstream(&f) || !f.flush())
    throw OnnxError("export_onnx: cannot write '" + path + "'");
}

}  // namespace tessera::onnx_export
