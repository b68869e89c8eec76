// MNIST MLP training on the device: one executable, three programs over the same persistent
// parameters (`tessera compile mnist-train`, docs/compiler.md "Training is one program").
//
// The executable's interface (what `tessera train` relies on):
//
//   program "train" = Repeat(steps_per_sync) {
//       HostWrite stream "x"       f32 [batch, 784]   pixels in [0,1], row-major
//       HostWrite stream "labels"  u32 [batch]
//       forward; backward (autodiff gradients of the mean softmax cross-entropy)
//       HostRead  stream "loss"    f32 [batch]        each sample's loss, before the step's update
//       sgd_momentum updates of every parameter }
//     One run = steps_per_sync SGD steps (transfer i of a stream = step i of the run). The
//     learning rate lr_t = lr0 * (1 - t / total_steps) is kept on the device: t counts the
//     steps since the executable was loaded (persistent step words, sgd.step@...).
//   program "infer" = Repeat(infer_batches) {
//       HostWrite stream "x_infer" f32 [infer_batch, 784]
//       forward with the current parameter values (copied where its matmuls need them)
//       HostRead  stream "logits"  f32 [infer_batch, 10] }
//   program "init" = Sequence {
//       HostWrite stream "seed"    u32 [1]            the RNG seed s
//       copies of the seed to every tile holding part of a parameter
//       one compute set: every parameter fcK.w, fcK.b = U(-b, b) by rng_uniform, and every
//       velocity, lr and step word = 0 (fill) }
//     Parameter p (its index in mlp_param_names order: fc1.w = 0, fc1.b = 1, fc2.w = 2, ...),
//     element j (flat row-major index in the whole tensor, [in,out] for weights) gets
//       x = word 0 of Philox4x32-10(counter {j, p, 0, 0}, key {s, 0x54535241})
//       u = (x >> 8) * 2^-24                       (exact, in [0, 1))
//       value = fp_fma(u, 2b, -b)                  (one rounding; 2b = hi - lo exactly)
//     with b = init_bound(fan_in of the layer) = 1.0f / sqrtf(f32(fan_in)) for both the
//     weights and the bias: PyTorch's nn.Linear bias bound, and its weight bound too
//     (kaiming_uniform(a = sqrt(5)) gives gain sqrt(2/(1+5)) * sqrt(3/fan_in) = 1/sqrt(fan_in));
//     not PyTorch's random numbers. A run of "init" restarts training from a clean state
//     (the learning-rate schedule from step 0) without reloading.
//   tensors (persistent, Engine::read_tensor / write_tensor between runs):
//       fc1.w f32[784,256], fc1.b f32[256], fc2.w f32[256,128], fc2.b f32[128],
//       fc3.w f32[128,10], fc3.b f32[10]   ([in,out] row-major, y = x w + b: the plan's
//       w1, b1, w2, b2, w3, b3; fcK for layer K of other widths), and their velocities
//       fc1.w.velocity ... fc3.b.velocity (same shapes, zero initially); the lr and step
//       words sgd.lr@<tile>.<k>, sgd.step@<tile>.<k> (zero initially).
//
// The parameters and velocities have initial values, so the memory planner keeps them for
// the whole run (never sharing their bytes with either program's temporaries).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tessera/graph/graph.h"
#include "tessera/opgraph/opgraph.h"

namespace tessera::models {

struct MlpTrainConfig {
  std::vector<uint32_t> widths = {784, 256, 128, 10};  // inputs, hidden..., classes
  uint32_t batch = 32;            // samples per SGD step
  uint32_t steps_per_sync = 25;   // SGD steps per run of "train" (host transfers per run)
  uint32_t infer_batch = 100;     // samples per transfer of "infer"
  uint32_t infer_batches = 1;     // transfers per run of "infer"
  float lr0 = 0.02f, momentum = 0.9f;
  uint32_t total_steps = 3750;    // the lr's linear decay to 0 (15 epochs x 250 steps)
  std::string target = "medium";  // arch/targets
  uint32_t firmware_bytes = 16384;  // SRAM the firmware takes on every tile (its __firmware_end)
};

// Parameters by name: "fc1.w" ([in,out] row-major), "fc1.b", "fc2.w", ...
using MlpParams = std::map<std::string, std::vector<float>>;

// The names of the parameters of `widths`, in order: fc1.w, fc1.b, fc2.w, ...
std::vector<std::string> mlp_param_names(const std::vector<uint32_t>& widths);

// Reads a training plan's initial parameters (examples/mnist/training-plan.md): w1.f32,
// b1.f32, ... of `widths` from `dir`, as fc1.w, fc1.b, ... Throws std::runtime_error naming
// a missing or wrongly sized file.
MlpParams read_plan_params(const std::string& dir, const std::vector<uint32_t>& widths);

// The bound b of a layer's initial values: 1.0f / std::sqrt(float(fan_in)) (f32 sqrt and
// division, each correctly rounded).
float init_bound(uint32_t fan_in);

// The seeded initialisation on the host: std::mt19937(seed), then for each layer in order its weights
// (row-major [in,out]) and then its bias, each value from
// std::uniform_real_distribution<float>(-1/sqrt(in), 1/sqrt(in)) (PyTorch's nn.Linear bounds;
// not PyTorch's random numbers).
MlpParams init_mlp_params(const std::vector<uint32_t>& widths, uint32_t seed);

// The two op graphs: `train` (inputs "x", "labels"; output "loss" = softmax_xent per row;
// gradients by autodiff; one sgd_momentum per parameter, named "sgd") and `infer` (input
// "x_infer", output "logits"; layers named infer.fcK), both with parameters fcK.w / fcK.b
// of initial value `params`. Throws std::runtime_error for a missing or wrongly sized
// parameter or a bad config.
struct MlpTrainGraphs {
  opgraph::OpGraph train, infer;
  opgraph::Value loss, logits;              // in train / in infer
  std::vector<opgraph::Value> train_params;  // in mlp_param_names order
};
MlpTrainGraphs build_mlp_training_graphs(const MlpTrainConfig& c, const MlpParams& params);

// Lowers both into `g` (for c.target): "train" first (its ops place the parameters), then
// "infer" with its parameters bound to the training program's tensors; then adds program
// "init" (above) over the same parameters and the optimizer state "train" made.
void build_mlp_training(graph::Graph& g, const MlpTrainConfig& c, const MlpParams& params);

// The same into a new graph for c.target (std::runtime_error for an unknown target).
graph::Graph build_mlp_training(const MlpTrainConfig& c, const MlpParams& params);

}  // namespace tessera::models
