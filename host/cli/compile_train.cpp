// `tessera compile mnist-train`: initial parameters (a plan's w1.f32 ... or the seeded init),
// the training, inference and init programs lowered into one graph, compiled, the memory per tile
// printed, the executable written.
#include "compile_train.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <utility>

#include <CLI/CLI.hpp>

#include "paths.h"
#include "tessera/arch/tile_map.h"
#include "tessera/exe/file.h"
#include "tessera/models/mlp_train.h"
#include "tessera/passes/passes.h"

namespace tessera::cli {

namespace {

const char* const kTrainOptions[] = {"--init", "--seed", "--widths", "--steps-per-sync", "--infer-batch",
                                     "--infer-batches", "--epochs", "--train-size", "--lr", "--momentum"};


constexpr uint32_t kMaxWidth = 1u << 20, kMaxLayers = 64;
constexpr uint64_t kMaxTotalSteps = (uint64_t{1} << 31) - 1;

std::string widths_text(const std::vector<uint32_t>& w) {
  std::string s;
  for (uint32_t v : w) s += (s.empty() ? "" : "-") + std::to_string(v);
  return s;
}

}  // namespace

uint32_t checked_schedule(const CompileTrainArgs& t, uint32_t batch) {
  if (batch == 0 || t.steps_per_sync == 0 || t.infer_batch == 0 || t.infer_batches == 0 || t.epochs == 0)
    throw std::runtime_error("--batch, --steps-per-sync, --infer-batch, --infer-batches and --epochs must be at least 1");
  if (t.steps_per_sync > kMaxTransfersPerRun || t.infer_batches > kMaxTransfersPerRun)
    throw std::runtime_error("--steps-per-sync and --infer-batches: at most " + std::to_string(kMaxTransfersPerRun) +
                             " host transfers per run (got " + std::to_string(t.steps_per_sync) + " and " +
                             std::to_string(t.infer_batches) + ")");
  // std::isfinite and the comparisons: NaN fails every test below.
  if (!(std::isfinite(t.lr) && t.lr > 0))
    throw std::runtime_error("--lr " + std::to_string(t.lr) + ": the learning rate must be finite and above 0");
  if (!(t.momentum >= 0 && t.momentum < 1))
    throw std::runtime_error("--momentum " + std::to_string(t.momentum) + ": must be in [0, 1)");
  if (t.train_size < batch)
    throw std::runtime_error("--train-size " + std::to_string(t.train_size) + " is less than one batch");
  // In 64 bits: epochs * steps once wrapped in 32 into a 2-step schedule.
  const uint64_t total_steps = uint64_t{t.epochs} * (t.train_size / batch);
  if (total_steps > kMaxTotalSteps)
    throw std::runtime_error("--epochs " + std::to_string(t.epochs) + " x " + std::to_string(t.train_size / batch) +
                             " steps per epoch = " + std::to_string(total_steps) + " steps, more than the " +
                             std::to_string(kMaxTotalSteps) + " the learning-rate schedule counts");
  return static_cast<uint32_t>(total_steps);
}

namespace {

int compile_train(const CompileArgs& c, const CompileTrainArgs& t, const CLI::App& cmd) {
  models::MlpTrainConfig cfg;
  cfg.target = cmd.count("--target") ? c.target : "medium";
  cfg.batch = cmd.count("--batch") ? c.batch : 32;
  cfg.widths = t.widths;
  cfg.steps_per_sync = t.steps_per_sync;
  cfg.infer_batch = t.infer_batch;
  cfg.infer_batches = t.infer_batches;
  cfg.lr0 = t.lr;
  cfg.momentum = t.momentum;
  if (cmd.count("--weights")) throw std::runtime_error("mnist-train takes --init DIR (a plan's w1.f32 ...), not --weights");
  if (cmd.count("--batches")) throw std::runtime_error("mnist-train takes --steps-per-sync and --infer-batches, not --batches");
  if (cfg.widths.size() < 2 || cfg.widths.front() != 784 || cfg.widths.back() != 10)
    throw std::runtime_error("--widths must start at 784 and end at 10 (MNIST), got " + widths_text(cfg.widths));
  if (cfg.batch == 0 || cfg.steps_per_sync == 0 || cfg.infer_batch == 0 || cfg.infer_batches == 0 || t.epochs == 0)
    throw std::runtime_error("--batch, --steps-per-sync, --infer-batch, --infer-batches and --epochs must be at least 1");
  for (uint32_t w : cfg.widths)
    if (w == 0 || w > kMaxWidth)
      throw std::runtime_error("--widths " + widths_text(cfg.widths) + ": each width must be 1 .. " + std::to_string(kMaxWidth));
  if (cfg.widths.size() > kMaxLayers + 1)
    throw std::runtime_error("--widths " + widths_text(cfg.widths) + ": at most " + std::to_string(kMaxLayers) + " layers");
  cfg.total_steps = checked_schedule(t, cfg.batch);
  const arch::Target* target = arch::find_target(cfg.target);
  if (!target) {
    throw std::runtime_error("unknown target '" + cfg.target + "' (targets: " + arch::target_names() + ")");
  }

  check_output_file(c.output, "-o");

  const auto start = std::chrono::steady_clock::now();
  passes::CompileOptions o =
      passes::firmware_options(c.firmware.empty() ? TESSERA_DEFAULT_FIRMWARE : c.firmware, target);
  o.progress = [](const std::string& line) { note("  " + line); };
  cfg.firmware_bytes = o.layout.firmware_end - arch::kSramBase;

  // Before the parameters are made (784-100000-10 once took a minute and 14 GB to fail): a
  // lower bound, so that nothing that would fit is refused: the persistent parameters and
  // their velocities, and one step's activations, which the backward pass needs all at once.
  uint64_t param_count = 0, acts = 0;
  for (size_t k = 1; k < cfg.widths.size(); ++k)
    param_count += uint64_t{cfg.widths[k - 1]} * cfg.widths[k] + cfg.widths[k];
  for (uint32_t w : cfg.widths) acts += w;
  check_fits({"mnist-train " + widths_text(cfg.widths) + ", batch " + std::to_string(cfg.batch),
              4 * (2 * param_count + uint64_t{cfg.batch} * acts),
              std::to_string(4 * param_count) + " bytes of parameters, as many of velocities, " +
                  std::to_string(4 * uint64_t{cfg.batch} * acts) + " of one step's activations"},
             cfg.target, target->tiles, target->sram_bytes, cfg.firmware_bytes);

  const models::MlpParams params =
      t.init.empty() ? models::init_mlp_params(cfg.widths, t.seed) : models::read_plan_params(t.init, cfg.widths);
  note("initial parameters: " + (t.init.empty() ? "seeded init, seed " + std::to_string(t.seed) : t.init));
  note("building mnist-train " + widths_text(cfg.widths) + " for " + cfg.target + " (" + std::to_string(target->tiles) +
       " tiles): batch " + std::to_string(cfg.batch) + ", " + std::to_string(cfg.steps_per_sync) +
       " steps per run of \"train\", lr " + std::to_string(cfg.lr0) + " linear to 0 over " +
       std::to_string(cfg.total_steps) + " steps, momentum " + std::to_string(cfg.momentum) + "; \"infer\" " +
       std::to_string(cfg.infer_batches) + " x " + std::to_string(cfg.infer_batch));
  graph::Graph g(*target);
  models::build_mlp_training(g, cfg, params);
  const exe::Executable e = compile_and_write(std::move(g), o, c.output);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const uint32_t in = cfg.widths.front(), classes = cfg.widths.back();
  std::printf("\nprograms:\n"
              "  train  Repeat(%u) { in x f32[%u,%u], labels u32[%u]; forward, backward; out loss f32[%u]; sgd }\n"
              "  infer  Repeat(%u) { in x_infer f32[%u,%u]; forward; out logits f32[%u,%u] }\n"
              "  init   { in seed u32[1]; fcK.w, fcK.b = U(-1/sqrt(fan_in), +1/sqrt(fan_in)) by Philox4x32-10\n"
              "           (stream = parameter index, counter = element index); velocities, lr, steps = 0 }\n"
              "parameters: fc1.w fc1.b ... fc%zu.b (and <name>.velocity)\n",
              cfg.steps_per_sync, cfg.batch, in, cfg.batch, cfg.batch, cfg.infer_batches, cfg.infer_batch, in,
              cfg.infer_batch, classes, cfg.widths.size() - 1);
  std::printf("\nwrote %s, compiled in %.2f s\n", c.output.c_str(), s);
  return 0;
}

}  // namespace

void add_compile_train_options(CLI::App* cmd, CompileTrainArgs& t) {
  cmd->add_option("--init", t.init,
                  "mnist-train: initial parameters from a training plan folder (w1.f32 b1.f32 w2.f32 b2.f32 w3.f32 "
                  "b3.f32, [in,out] row-major; examples/mnist/training-plan.md). Without it: the seeded init");
  cmd->add_option("--seed", t.seed,
                  "mnist-train without --init: std::mt19937(seed); per layer, weights (row-major [in,out]) then "
                  "bias, each U(-1/sqrt(fan_in), +1/sqrt(fan_in)) by std::uniform_real_distribution<float> "
                  "(default 1)");
  cmd->add_option("--widths", t.widths, "mnist-train: layer widths (default 784,256,128,10)")->delimiter(',');
  cmd->add_option("--steps-per-sync", t.steps_per_sync, "mnist-train: SGD steps per run of program train (default 25)");
  cmd->add_option("--infer-batch", t.infer_batch, "mnist-train: images per transfer of program infer (default 100)");
  cmd->add_option("--infer-batches", t.infer_batches, "mnist-train: transfers per run of program infer (default 1)");
  cmd->add_option("--epochs", t.epochs, "mnist-train: epochs of the lr schedule (default 15)");
  cmd->add_option("--train-size", t.train_size,
                  "mnist-train: training digits per epoch; the lr decays linearly to 0 over "
                  "epochs * (train-size / batch) steps (default 8000)");
  cmd->add_option("--lr", t.lr, "mnist-train: initial learning rate (default 0.02)");
  cmd->add_option("--momentum", t.momentum, "mnist-train: SGD momentum (default 0.9)");
  cmd->add_flag("--train", t.train,
                "MODEL.onnx: a training executable for `tessera train` (the model a classifier: logits out; "
                "takes --batch (default 32), --steps-per-sync, --infer-batch, --infer-batches, --epochs, "
                "--train-size, --lr, --momentum)");
}

int compile_command(const CompileArgs& c, const CompileTrainArgs& t, const CLI::App& cmd) {
  const bool onnx = c.model.size() > 5 && c.model.compare(c.model.size() - 5, 5, ".onnx") == 0;
  if (cmd.count("--plan") && onnx && t.train)
    throw std::runtime_error("--plan is an option of MODEL.onnx without --train");
  for (const char* opt : {"--no-in-place", "--no-liveness", "--no-early-updates", "--recompute", "--plan"}) {
    const bool train_only = std::string(opt) == "--no-early-updates" || std::string(opt) == "--recompute";
    if (cmd.count(opt) && (!onnx || (train_only && !t.train)))
      throw std::runtime_error(std::string(opt) + " is an option of MODEL.onnx" + (train_only ? " --train" : "") +
                               ", not " + c.model + (train_only && onnx ? " without --train" : ""));
  }
  if (c.model == "mnist-train") return compile_train(c, t, cmd);
  if (t.train && !onnx) throw std::runtime_error("--train is an option of MODEL.onnx (mnist-train trains already)");
  for (const char* opt : kTrainOptions) {
    const bool classifier_option = t.train && std::string(opt) != "--init" && std::string(opt) != "--seed" &&
                                   std::string(opt) != "--widths";
    if (cmd.count(opt) && !classifier_option)
      throw std::runtime_error(std::string(opt) + " is an option of mnist-train" +
                               (onnx && !t.train ? " or MODEL.onnx --train" : "") + ", not " + c.model);
  }
#if TESSERA_HAVE_ONNX
  if (onnx && t.train) return compile_onnx_train(c, t, cmd);
  if (onnx) return compile_onnx(c, cmd);
#else
  if (onnx) throw std::runtime_error(c.model + ": this build has no ONNX import (libonnx-dev was not found)");
#endif
  return compile(c);
}

}  // namespace tessera::cli
