// The list of registered ops (op_def.h).
#include "op_def.h"

namespace tessera::opgraph::detail {

extern const OpDef kReshapeDef, kTransposeDef, kConcatDef, kConv2dDef, kMaxPool2dDef, kAvgPool2dDef, kLrnDef,
    kBinaryDef, kUnaryDef, kConv2dGradInputDef, kConv2dGradWeightDef, kChannelSumDef, kMaxPool2dGradDef,
    kAvgPool2dGradDef, kUnaryGradDef;

const OpDef* find_op_def(OpKind kind) {
  static const OpDef* const defs[] = {
      &kReshapeDef,   &kTransposeDef,       &kConcatDef,           &kConv2dDef,     &kMaxPool2dDef,
      &kAvgPool2dDef, &kLrnDef,             &kBinaryDef,           &kUnaryDef,      &kConv2dGradInputDef,
      &kConv2dGradWeightDef, &kChannelSumDef, &kMaxPool2dGradDef, &kAvgPool2dGradDef, &kUnaryGradDef};
  for (const OpDef* d : defs)
    if (d->kind == kind) return d;
  return nullptr;
}

std::string op_who(const char* op, const std::string& name) {
  return name.empty() ? std::string(op) : std::string(op) + " '" + name + "'";
}

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

}  // namespace tessera::opgraph::detail
