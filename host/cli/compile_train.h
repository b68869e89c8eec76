// `tessera compile mnist-train`: the MNIST MLP's on-device training executable (programs
// "train" and "infer" over the same parameters; compiler/models/.../mlp_train.h for the
// stream and tensor names). Its options hang off the `compile` subcommand, next to mnist-mlp's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli.h"

namespace CLI {
class App;
}

namespace tessera::cli {

struct CompileTrainArgs {
  std::string init;                  // plan directory (w1.f32 b1.f32 ...); empty: seeded init
  uint32_t seed = 1;                 // the seeded init's std::mt19937 seed
  std::vector<uint32_t> widths = {784, 256, 128, 10};
  uint32_t steps_per_sync = 25;      // SGD steps per run of "train"
  uint32_t infer_batch = 100, infer_batches = 1;
  uint32_t epochs = 15, train_size = 8000;  // total steps = epochs * (train_size / batch)
  float lr = 0.02f, momentum = 0.9f;
  bool train = false;                // MODEL.onnx --train: a classifier's training executable
  // Shared with mnist-mlp (CompileArgs), with other defaults when not given: target medium,
  // batch 32.
};

// The learning-rate schedule's total steps, epochs * (train_size / batch), after checking
// every training option's range (lr, momentum, transfers per run, the step count).
uint32_t checked_schedule(const CompileTrainArgs& t, uint32_t batch);

// `tessera compile MODEL.onnx --train`: the model imported at the training and at the
// inference batch, its constants made parameters, programs "train" and "infer"
// (models/classifier_train.h), compiled (compile_onnx_train.cpp).
int compile_onnx_train(const CompileArgs& c, const CompileTrainArgs& t, const CLI::App& cmd);

// Adds mnist-train's options to the `compile` subcommand.
void add_compile_train_options(CLI::App* compile_cmd, CompileTrainArgs& t);

// Runs `tessera compile` for either model: mnist-train here (reading --target, --batch,
// --firmware, -o from `c` when given on `cmd`), mnist-mlp through compile(c) (refusing
// mnist-train's options).
int compile_command(const CompileArgs& c, const CompileTrainArgs& t, const CLI::App& cmd);

}  // namespace tessera::cli
