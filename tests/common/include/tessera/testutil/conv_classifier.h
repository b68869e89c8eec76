// A conv and a classifier as an op graph: x [1, 4, 16, 16] -> conv 4 -> 8 (3x3, stride 2,
// pad 1) -> relu -> [1, 512] -> matmul [512, fc_out] + bias -> output "y". The weight-region
// and weight-streaming tests size the classifier to fill or overflow a target. Weights from
// `rng` in the order conv.w, conv.b, fc.w, fc.b. The test links tessera_opgraph.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "tessera/opgraph/eval.h"
#include "tessera/opgraph/opgraph.h"
#include "tessera/testutil/seeded.h"

namespace tessera::testutil {

inline void conv_classifier(opgraph::OpGraph& og, uint32_t fc_out, std::mt19937& rng) {
  using opgraph::Value;
  const Value x = og.input("x", opgraph::DType::kF32, {1, 4, 16, 16});
  const Value w = og.constant("conv.w", {8, 4, 3, 3}, seeded(8 * 4 * 9, 0.3f, rng));
  const Value b = og.constant("conv.b", {8}, seeded(8, 0.1f, rng));
  const Value c = og.relu(og.conv2d(x, w, b, {2, 2, 1, 1, 1, 1, 1, 1, 1}, "conv"), "relu");  // [1, 8, 8, 8]
  const Value flat = og.reshape(c, {1, 512}, "flat");
  const Value fw = og.constant("fc.w", {512, fc_out}, seeded(512 * fc_out, 0.05f, rng));
  const Value fb = og.constant("fc.b", {fc_out}, seeded(fc_out, 0.1f, rng));
  og.output("y", og.add_bias(og.matmul(flat, fw, "fc"), fb, "fc"));
}

// The op graph's one output for `inputs`, by the reference interpreter.
inline std::vector<float> evaluate_output(const opgraph::OpGraph& og,
                                          const std::map<std::string, opgraph::Words>& inputs) {
  const std::vector<opgraph::Words> v = opgraph::evaluate(og, inputs);
  for (const opgraph::Op& op : og.ops())
    if (op.kind == opgraph::OpKind::kOutput) return opgraph::to_floats(v.at(op.operands[0].id));
  return {};
}

// `y` against the interpreter's `ref`, element by element within 1e-5 relative (the first
// three differences reported).
inline void expect_matches_interpreter(const std::vector<float>& y, const std::vector<float>& ref) {
  ASSERT_EQ(y.size(), ref.size());
  size_t bad = 0;
  for (size_t i = 0; i < y.size(); ++i)
    if (!(std::fabs(y[i] - ref[i]) <= 1e-5f * (1 + std::fabs(ref[i]))) && ++bad <= 3)
      ADD_FAILURE() << "y[" << i << "] " << y[i] << ", the interpreter " << ref[i];
  EXPECT_EQ(bad, 0u);
}

}  // namespace tessera::testutil
