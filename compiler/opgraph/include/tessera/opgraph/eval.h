// A plain C++ interpreter of the op graph on the host: the reference that lowered programs
// and the autodiff rules are checked against. f32 arithmetic in float with sums in index
// order (no fused multiply-add); exp and log from <cmath>.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tessera/opgraph/opgraph.h"

namespace tessera::opgraph {

// One value's contents as 32-bit words: f32 bits or u32, row-major.
using Words = std::vector<uint32_t>;

// Evaluates every op of `og` once with the parameters' initial values; `inputs` gives each
// input's words by name. Returns the contents of every value, indexed by value id (updates,
// sgd_momentum, are not applied: see Interpreter). Throws OpGraphError for a missing or
// wrongly sized input.
std::vector<Words> evaluate(const OpGraph& og, const std::map<std::string, Words>& inputs);

// Training: the op graph run step after step, with the state the device keeps across
// steps (the parameters, the velocities of sgd_momentum, the step count).
//
//   Interpreter it(og);
//   for (...) { std::vector<Words> v = it.step({{"x", x}, {"labels", l}}); ... }
//   it.parameter("fc1.w");
class Interpreter {
 public:
  // Parameters start at their initial values, velocities at zero, the step at 0. `og` must
  // outlive the interpreter.
  explicit Interpreter(const OpGraph& og);

  // One step: every op on `inputs` with the current parameters (as evaluate), then every
  // sgd_momentum in op order, in exactly the firmware's arithmetic (sgd_momentum.cpp:
  // v = v*m, v = v + g, w = fmaf(v, -lr, w); lr = lr_linear(lr0, step, total)); then the
  // step count goes up by one. Returns the values of the step (parameters as they were
  // before the updates).
  std::vector<Words> step(const std::map<std::string, Words>& inputs);

  // A parameter's current value (by its value or name), its velocity (zeros before its
  // first update); the steps run so far.
  const std::vector<float>& parameter(Value p) const;
  const std::vector<float>& parameter(const std::string& name) const;
  const std::vector<float>& velocity(Value p) const;
  uint32_t steps() const { return steps_; }

 private:
  const OpGraph& og_;
  std::vector<std::vector<float>> params_, velocity_;  // by value id; parameters only
  uint32_t steps_ = 0;
};

// The learning rate of step `t` of the linear schedule: lr0 * (total - t) / total,
// correctly rounded to f32, +0 from t >= total on (as the firmware's lr_linear computes it).
float lr_linear(float lr0, uint32_t t, uint32_t total);

// f32 <-> words.
Words to_words(const std::vector<float>& v);
std::vector<float> to_floats(const Words& w);

}  // namespace tessera::opgraph
