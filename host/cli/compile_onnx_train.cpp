// `tessera compile MODEL.onnx --train`: a classifier's on-device training executable for
// `tessera train` (models/classifier_train.h: programs "train" and "infer" over the model's
// weights made parameters).
#include <chrono>
#include <cstdio>
#include <future>
#include <stdexcept>
#include <utility>

#include <CLI/CLI.hpp>

#include "compile_train.h"
#include "paths.h"
#include "tessera/arch/tile_map.h"
#include "tessera/exe/file.h"
#include "tessera/models/classifier_train.h"
#include "tessera/onnx/import.h"
#include "tessera/passes/passes.h"

namespace tessera::cli {

int compile_onnx_train(const CompileArgs& c, const CompileTrainArgs& t, const CLI::App& cmd) {
  const arch::Target* target = arch::find_target(c.target);
  if (!target) throw std::runtime_error("unknown target '" + c.target + "' (targets: " + arch::target_names() + ")");
  if (cmd.count("--weights")) throw std::runtime_error("an ONNX model holds its weights: drop --weights");
  if (cmd.count("--batches")) throw std::runtime_error("--train takes --steps-per-sync and --infer-batches, not --batches");
  const uint32_t batch = cmd.count("--batch") ? c.batch : 32;
  models::ClassifierTrainConfig cfg;
  cfg.total_steps = checked_schedule(t, batch);
  cfg.steps_per_sync = t.steps_per_sync;
  cfg.infer_batches = t.infer_batches;
  cfg.lr0 = t.lr;
  cfg.momentum = t.momentum;
  cfg.in_place = !c.no_in_place;
  cfg.early_updates = !c.no_early_updates;
  cfg.recompute = recompute_kinds(c);
  cfg.note = note;
  check_output_file(c.output, "-o");
  check_memory_proportion(c, cmd);

  const auto start = std::chrono::steady_clock::now();
  // The model at the training batch and at the inference batch, imported side by side (each
  // decodes and copies every initializer: on AlexNet a third of the compile when in turn).
  onnx_import::ImportOptions io, ioi;
  io.batch = batch;
  ioi.batch = t.infer_batch;
  std::future<onnx_import::Model> infer_import =
      std::async(std::launch::async, [&] { return onnx_import::import_file(c.model, ioi); });
  const onnx_import::Model m = onnx_import::import_file(c.model, io);
  const onnx_import::Model mi = infer_import.get();
  note("imported " + c.model + " (opset " + std::to_string(m.opset) + ") at batch " + std::to_string(batch) +
       " (train) and " + std::to_string(t.infer_batch) + " (infer): " + std::to_string(m.graph.ops().size()) + " ops");

  passes::CompileOptions o = passes::firmware_options(c.firmware.empty() ? TESSERA_DEFAULT_FIRMWARE : c.firmware, target);
  o.progress = [](const std::string& line) { note("  " + line); };
  o.liveness = !c.no_liveness;
  cfg.firmware_bytes = o.layout.firmware_end - arch::kSramBase;
  // Persistent: each weight, its velocity and (a big model's, until its update) gradient.
  uint64_t weights = 0;
  for (const opgraph::Op& op : m.graph.ops())
    if (op.kind == opgraph::OpKind::kConstant) {
      uint64_t n = 4;
      for (uint32_t d : m.graph.info(op.result).shape) n *= d;
      weights += n;
    }
  const bool fixed = cmd.count("--memory-proportion") > 0;
  compile_with_proportions(fixed ? c.memory_proportion : first_proportion(3 * weights, *target, cfg.firmware_bytes),
                           fixed, o, c.output, [&](const Proportions& props, std::vector<opgraph::LoweredOp>* lowered) {
    const double p = props.all;
    graph::Graph g(*target);
    cfg.memory_proportion = p;
    cfg.op_proportions = props.ops;
    cfg.lowered_ops = lowered;
    try {
      models::build_classifier_training(g, m.graph, mi.graph, cfg);
    } catch (const opgraph::OpGraphError& e) {
      throw std::runtime_error(c.model + ": cannot be trained on the tiles: " + e.what());
    }
    note("programs \"train\" x " + std::to_string(cfg.steps_per_sync) + " steps, lr " + std::to_string(cfg.lr0) +
         " linear to 0 over " + std::to_string(cfg.total_steps) + " steps, momentum " + std::to_string(cfg.momentum) +
         "; \"infer\" x " + std::to_string(cfg.infer_batches) + "; memory proportion " + proportion(p));
    return g;
  });
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("\nprograms: train (streams x, labels in; loss out), infer (x_infer in; logits out); parameters: the "
              "model's weights by their ONNX names\nwrote %s, compiled in %.2f s\n",
              c.output.c_str(), s);
  return 0;
}

}  // namespace tessera::cli
