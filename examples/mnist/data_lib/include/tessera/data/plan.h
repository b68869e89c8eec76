// tessera_data: the MNIST training plan (examples/mnist/training-plan.md): initial parameters,
// the order of the training digits and the pixel shifts of every sample of every step; its
// reader and writer, the shift, the gathering of one step's batch, and its generation from a
// seed exactly as the PyTorch reference (train_sgd_reference.py) does it: numpy's
// default_rng (SeedSequence + PCG64, permutation, integers) and torch.manual_seed +
// nn.Linear's default init (mt19937, uniform_), so that `--seed S` on either side gives
// bit-identical plans.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tessera/data/dataset.h"

namespace tessera::data {

inline constexpr const char* kPlanFormat = "tessera-mnist-plan-1";

struct Plan {
  std::uint32_t batch = 0;  // B
  std::uint32_t steps = 0;  // T
  std::vector<std::uint32_t> layers{784, 256, 128, 10};
  // w1, b1, w2, b2, ... (plan_param_names): w_k [layers[k-1], layers[k]] row-major ([in, out]).
  std::vector<std::vector<float>> params;
  std::vector<std::uint32_t> order;  // T*B training-digit indices, step-major
  std::vector<std::int8_t> shifts;   // T*B*2: dx, dy per sample
  // Informative (plan.json); 0 / -1 when absent.
  std::uint32_t steps_per_epoch = 0;
  std::uint32_t epochs = 0;
  std::int64_t seed = -1;
  std::int32_t shift_max = -1;

  // steps_per_epoch if given, else 8000 / batch; at least 1, at most steps.
  std::uint32_t epoch_steps() const;
  std::uint32_t index(std::uint32_t step, std::uint32_t sample) const { return order[std::size_t(step) * batch + sample]; }
  int dx(std::uint32_t step, std::uint32_t sample) const { return shifts[2 * (std::size_t(step) * batch + sample)]; }
  int dy(std::uint32_t step, std::uint32_t sample) const { return shifts[2 * (std::size_t(step) * batch + sample) + 1]; }
};

// "w1", "b1", "w2", ... for layers.size()-1 layers, and their shapes.
std::vector<std::string> plan_param_names(std::size_t layer_count);
std::vector<std::vector<std::uint32_t>> plan_param_shapes(std::span<const std::uint32_t> layers);

// Reads a plan directory. Checks everything: plan.json (a JSON object; format, if present,
// "tessera-mnist-plan-1"; integers batch >= 1, steps >= 1; layers, if present, integers
// >= 1 starting at 784 and ending at 10), every file's exact size, finite parameters, order
// indices < train_count. DataError names the file and the problem.
Plan read_plan(const std::string& dir, std::uint32_t train_count = kSplitTrain);
// plan.json's text parsed into a Plan without the binary files (batch, steps, layers, the
// informative keys). `name` is the file named in errors.
Plan parse_plan_json(std::string_view text, const std::string& name);

// Writes plan.json (with the informative keys that are set) and all files into `dir`
// (created if needed).
void write_plan(const Plan& plan, const std::string& dir);
// Writes w1.f32, b1.f32, ... (raw little-endian f32) into `dir` (created if needed).
void write_params(const std::string& dir, std::span<const std::uint32_t> layers,
                  const std::vector<std::vector<float>>& params);
// Reads w1.f32, b1.f32, ... of the given layers from `dir` (exact sizes, finite values).
std::vector<std::vector<float>> read_params(const std::string& dir, std::span<const std::uint32_t> layers);

// The reference's generator (train_sgd_reference.py generate_plan): parameters from
// torch.manual_seed(seed) and nn.Linear's init in layer order; per epoch
// default_rng(seed).permutation(train_count) and integers(-shift_max, shift_max,
// endpoint=True, size=(steps_per_epoch*batch, 2)); steps_per_epoch = train_count / batch.
Plan generate_plan(std::uint64_t seed, std::uint32_t batch = 32, std::uint32_t epochs = 15, int shift_max = 2,
                   std::vector<std::uint32_t> layers = {784, 256, 128, 10}, std::uint32_t train_count = kSplitTrain);

// Translates a 28x28 image by (dx, dy) with zero fill: out[r][c] = in[r-dy][c-dx] when both
// are in 0..27, else 0. `in` and `out` hold 784 floats and must not overlap.
void shift_image(std::span<const float> in, int dx, int dy, std::span<float> out);

// Step `step`'s batch: x [B,784] (digit order[t*B+j] of `train`, shifted) and its labels [B].
void gather_step(const Dataset& train, const Plan& plan, std::uint32_t step, std::span<float> x,
                 std::span<std::uint32_t> labels);

// ---- The generators, exposed for tests ----

// numpy.random.default_rng(seed) (SeedSequence(seed) -> PCG64), numpy 1.17+ algorithms.
class NumpyRng {
 public:
  explicit NumpyRng(std::uint64_t seed);
  std::uint64_t next_u64();
  std::uint32_t next_u32();  // PCG64's buffered 32-bit draw
  // Generator.permutation(n) (arange + shuffle).
  std::vector<std::int64_t> permutation(std::uint32_t n);
  // Generator.integers(low, high, endpoint=True, size=count) with the default int64 dtype.
  std::vector<std::int64_t> integers_closed(std::int64_t low, std::int64_t high, std::size_t count);

 private:
  std::uint64_t interval(std::uint64_t max);  // random_interval: uniform 0..max by masking
  unsigned __int128 state_ = 0, inc_ = 0;
  bool has_u32_ = false;
  std::uint32_t u32_ = 0;
};

// torch.manual_seed(seed)'s CPU generator (mt19937) and Tensor.uniform_ for float32.
class TorchRng {
 public:
  explicit TorchRng(std::uint64_t seed);
  std::uint32_t next_u32();
  float uniform(double from, double to);  // one element of float32 uniform_(from, to)

 private:
  std::uint32_t mt_[624];
  int next_ = 624;
};

}  // namespace tessera::data
