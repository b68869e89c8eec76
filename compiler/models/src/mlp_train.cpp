#include "tessera/models/mlp_train.h"

#include <cmath>
#include <fstream>
#include <random>
#include <stdexcept>

#include "tessera/arch/targets.h"
#include "tessera/opgraph/autodiff.h"
#include "tessera/opgraph/lower.h"
#include "tessera/ops/init.h"

namespace tessera::models {

using opgraph::DType;
using opgraph::OpGraph;
using opgraph::Value;

namespace {

std::vector<float> read_f32_file(const std::string& path, size_t count) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw std::runtime_error(path + ": cannot open");
  const std::streamsize bytes = in.tellg();
  if (bytes < 0 || static_cast<uint64_t>(bytes) != uint64_t{count} * 4)
    throw std::runtime_error(path + ": " + std::to_string(bytes) + " bytes, expected " + std::to_string(count * 4) +
                             " (" + std::to_string(count) + " f32)");
  std::vector<float> v(count);
  in.seekg(0);
  if (!in.read(reinterpret_cast<char*>(v.data()), bytes)) throw std::runtime_error(path + ": read error");
  return v;
}

void check_widths(const std::vector<uint32_t>& widths) {
  if (widths.size() < 2) throw std::runtime_error("mlp: needs at least an input and an output width");
  for (uint32_t w : widths)
    if (w == 0) throw std::runtime_error("mlp: widths must be at least 1");
}

const std::vector<float>& param(const MlpParams& params, const std::string& name, size_t count) {
  const auto it = params.find(name);
  if (it == params.end()) throw std::runtime_error("mlp: no initial value for parameter '" + name + "'");
  if (it->second.size() != count)
    throw std::runtime_error("mlp: parameter '" + name + "' has " + std::to_string(it->second.size()) +
                             " values, expected " + std::to_string(count));
  return it->second;
}

// The layers on x: h = relu(h w + b) between layers, logits = h w + b last. Parameters are
// made in mlp_param_names order and appended to `made`.
Value forward(OpGraph& og, Value x, const std::vector<uint32_t>& widths, const MlpParams& params,
              const std::string& prefix, std::vector<Value>* made) {
  Value h = x;
  for (size_t l = 0; l + 1 < widths.size(); ++l) {
    const uint32_t in = widths[l], out = widths[l + 1];
    const std::string id = "fc" + std::to_string(l + 1);
    const Value w = og.parameter(id + ".w", {in, out}, param(params, id + ".w", size_t{in} * out));
    const Value b = og.parameter(id + ".b", {out}, param(params, id + ".b", out));
    if (made) made->insert(made->end(), {w, b});
    h = og.add_bias(og.matmul(h, w, prefix + id), b, prefix + id);
    if (l + 2 < widths.size()) h = og.relu(h, prefix + id);
  }
  return h;
}

}  // namespace

std::vector<std::string> mlp_param_names(const std::vector<uint32_t>& widths) {
  std::vector<std::string> names;
  for (size_t l = 0; l + 1 < widths.size(); ++l) {
    const std::string id = "fc" + std::to_string(l + 1);
    names.insert(names.end(), {id + ".w", id + ".b"});
  }
  return names;
}

MlpParams read_plan_params(const std::string& dir, const std::vector<uint32_t>& widths) {
  check_widths(widths);
  MlpParams p;
  for (size_t l = 0; l + 1 < widths.size(); ++l) {
    const std::string k = std::to_string(l + 1);
    p["fc" + k + ".w"] = read_f32_file(dir + "/w" + k + ".f32", size_t{widths[l]} * widths[l + 1]);
    p["fc" + k + ".b"] = read_f32_file(dir + "/b" + k + ".f32", widths[l + 1]);
  }
  return p;
}

float init_bound(uint32_t fan_in) { return 1.0f / std::sqrt(static_cast<float>(fan_in)); }

MlpParams init_mlp_params(const std::vector<uint32_t>& widths, uint32_t seed) {
  check_widths(widths);
  std::mt19937 rng(seed);
  MlpParams p;
  for (size_t l = 0; l + 1 < widths.size(); ++l) {
    const uint32_t in = widths[l], out = widths[l + 1];
    const float bound = init_bound(in);
    std::uniform_real_distribution<float> u(-bound, bound);
    std::vector<float> w(size_t{in} * out), b(out);
    for (float& v : w) v = u(rng);
    for (float& v : b) v = u(rng);
    const std::string id = "fc" + std::to_string(l + 1);
    p[id + ".w"] = std::move(w);
    p[id + ".b"] = std::move(b);
  }
  return p;
}

MlpTrainGraphs build_mlp_training_graphs(const MlpTrainConfig& c, const MlpParams& params) {
  check_widths(c.widths);
  if (c.batch == 0 || c.infer_batch == 0) throw std::runtime_error("mlp: batch and infer_batch must be at least 1");
  if (c.total_steps == 0) throw std::runtime_error("mlp: total_steps must be at least 1");
  MlpTrainGraphs r;
  const uint32_t in = c.widths.front();
  {
    OpGraph& og = r.train;
    const Value x = og.input("x", DType::kF32, {c.batch, in});
    const Value labels = og.input("labels", DType::kU32, {c.batch});
    const Value logits = forward(og, x, c.widths, params, "", &r.train_params);
    r.loss = og.softmax_xent(logits, labels, "loss");
    og.output("loss", r.loss);
    const std::vector<Value> grads = opgraph::gradients(og, r.loss, r.train_params);
    for (size_t i = 0; i < r.train_params.size(); ++i)
      og.sgd_momentum(r.train_params[i], grads[i], c.momentum, c.lr0, c.total_steps, "sgd");
  }
  {
    OpGraph& og = r.infer;
    const Value x = og.input("x_infer", DType::kF32, {c.infer_batch, in});
    r.logits = forward(og, x, c.widths, params, "infer.", nullptr);
    og.output("logits", r.logits);
  }
  return r;
}

void build_mlp_training(graph::Graph& g, const MlpTrainConfig& c, const MlpParams& params) {
  if (c.steps_per_sync == 0 || c.infer_batches == 0)
    throw std::runtime_error("mlp: steps_per_sync and infer_batches must be at least 1");
  const MlpTrainGraphs og = build_mlp_training_graphs(c, params);
  opgraph::LowerOptions t;
  t.batches = c.steps_per_sync;
  t.firmware_bytes = c.firmware_bytes;
  t.train = true;
  t.program = "train";
  ops::SgdState sgd;
  const std::map<std::string, graph::Tensor> bound = opgraph::lower(og.train, g, t, &sgd);
  opgraph::LowerOptions i;
  i.batches = c.infer_batches;
  i.firmware_bytes = c.firmware_bytes;
  i.program = "infer";
  i.parameters = bound;
  opgraph::lower(og.infer, g, i);

  // "init": the seed word in, copied to the parameters' tiles; every parameter U(-b, b) by
  // rng_uniform (stream = its index in mlp_param_names order), the optimizer state zeroed.
  graph::Program init = graph::Sequence();
  const graph::Tensor seed = g.add_variable(exe::DType::kU32, {1}, "init.seed");
  g.set_tile_mapping(seed, 0);
  init.add(graph::HostWrite(g.add_stream("seed", exe::DType::kU32, {1}), seed));
  const std::vector<std::string> names = mlp_param_names(c.widths);
  std::vector<ops::UniformInit> uniform;
  for (uint32_t k = 0; k < names.size(); ++k) {
    const float b = init_bound(c.widths[k / 2]);
    uniform.push_back({bound.at(names[k]), k, -b, b});
  }
  std::vector<graph::Tensor> zero = sgd.velocities;
  zero.insert(zero.end(), sgd.lrs.begin(), sgd.lrs.end());
  zero.insert(zero.end(), sgd.steps.begin(), sgd.steps.end());
  ops::init_tensors(g, init, seed, uniform, zero, "init");
  g.add_program("init", init);
}

graph::Graph build_mlp_training(const MlpTrainConfig& c, const MlpParams& params) {
  const arch::Target* target = arch::find_target(c.target);
  if (!target) throw std::runtime_error("unknown target '" + c.target + "'");
  graph::Graph g(*target);
  build_mlp_training(g, c, params);
  return g;
}

}  // namespace tessera::models
