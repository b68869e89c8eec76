#include "tessera/models/mlp.h"

#include <fstream>
#include <stdexcept>

#include "tessera/ops/elementwise.h"
#include "tessera/ops/matmul.h"

namespace tessera::models {

using graph::Tensor;

namespace {

std::vector<float> read_f32(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw std::runtime_error(path + ": cannot open");
  const std::streamsize bytes = in.tellg();
  if (bytes <= 0 || bytes % 4) throw std::runtime_error(path + ": " + std::to_string(bytes) + " bytes is not a whole number of f32 values");
  std::vector<float> v(static_cast<size_t>(bytes) / 4);
  in.seekg(0);
  if (!in.read(reinterpret_cast<char*>(v.data()), bytes)) throw std::runtime_error(path + ": read error");
  return v;
}

}  // namespace

MlpWeights read_mlp_weights(const std::string& dir) {
  MlpWeights m;
  for (int layer = 1; layer <= 2; ++layer) {
    m.w.push_back(read_f32(dir + "/w" + std::to_string(layer) + ".f32"));
    m.b.push_back(read_f32(dir + "/b" + std::to_string(layer) + ".f32"));
  }
  m.sizes = {784, static_cast<uint32_t>(m.b[0].size()), static_cast<uint32_t>(m.b[1].size())};
  for (size_t i = 0; i < 2; ++i)
    if (m.w[i].size() != size_t{m.sizes[i]} * m.sizes[i + 1])
      throw std::runtime_error(dir + "/w" + std::to_string(i + 1) + ".f32: " + std::to_string(m.w[i].size()) +
                               " values, expected " + std::to_string(m.sizes[i]) + " x " + std::to_string(m.sizes[i + 1]));
  if (m.sizes[2] != 10) throw std::runtime_error(dir + "/b2.f32: " + std::to_string(m.sizes[2]) + " classes, expected 10");
  return m;
}

void build_mlp_inference(graph::Graph& g, const MlpWeights& w, const MlpOptions& o) {
  const uint32_t layers = static_cast<uint32_t>(w.w.size());
  const auto cost = ops::CostModel::for_target(g.target());
  // A matmul may use half of what the firmware leaves; inputs, weights and the other
  // layers need the rest.
  const double budget = 0.5 * (g.target().sram_bytes - o.firmware_bytes);
  Tensor x = g.add_variable(exe::DType::kF32, {o.batch, w.sizes[0]}, "x");
  g.map_linearly(x, w.sizes[0]);  // whole images per tile
  graph::Program body = graph::Sequence();
  const graph::Stream xs = g.add_stream("x", exe::DType::kF32, {o.batch, w.sizes[0]});
  body.add(graph::HostWrite(xs, x));
  Tensor act = x;
  for (uint32_t l = 0; l < layers; ++l) {
    const std::string id = "layer" + std::to_string(l + 1);
    Tensor weights = g.add_variable(exe::DType::kF32, {w.sizes[l], w.sizes[l + 1]}, id + ".w");
    g.set_initial_value(weights, w.w[l]);
    const bool last = l + 1 == layers;
    // The last layer keeps each row on one tile, for argmax.
    const ops::MatMulPlan plan = ops::plan_matmul(o.batch, w.sizes[l], w.sizes[l + 1], g.target().tiles, cost,
                                                  last ? 1 : 0xFFFFFFFFu, budget);
    act = ops::matmul(g, body, act, weights, plan, id + ".matmul");
    ops::add_bias(g, body, act, w.b[l], id + ".bias");
    if (!last) ops::relu(g, body, act, id + ".relu");
  }
  const Tensor preds = ops::argmax(g, body, act, "argmax");
  body.add(graph::HostRead(g.add_stream("logits", exe::DType::kF32, {o.batch, w.sizes[layers]}), act));
  body.add(graph::HostRead(g.add_stream("preds", exe::DType::kU32, {o.batch}), preds));
  g.add_program("infer", o.batches > 1 ? graph::Repeat(o.batches, body) : body);
}

}  // namespace tessera::models
