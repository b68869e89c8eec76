// The `tessera` command's subcommands, each behind one function so that main.cpp only parses
// the command line and turns every exception into a message and a non-zero exit.
#pragma once

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "open_device.h"
#include "tessera/exe/executable.h"
#include "tessera/graph/graph.h"
#include "tessera/opgraph/lower.h"
#include "tessera/opgraph/refit.h"
#include "tessera/opgraph/opgraph.h"
#include "tessera/passes/passes.h"

namespace CLI {
class App;
}

namespace tessera::cli {

struct RunArgs {
  std::string model;
  std::string device = "emu";              // a registry URI: emu (ISS) | emu-native | vlt | card-sim | xrt[:N] | remote://...
  RemoteFiles remote;                      // remote devices: the server's token, TLS trust
  std::string xclbin;                      // --device xrt: the card's xclbin
  unsigned threads = 1;
  std::vector<std::string> inputs;         // name=file.bin
  std::vector<std::string> outputs;        // name=file.bin
  std::string program;                     // empty: the first
  std::string report;                      // run.json
  unsigned timeout_ms = 60000;
  bool mnist_test = false;                 // feed the MNIST test digits to "x", score "preds"
  std::string mnist_dir = TESSERA_DEFAULT_MNIST_DIR;
  std::string mnist_split = TESSERA_DEFAULT_MNIST_SPLIT;
  std::string reference_preds;             // u8 per digit, e.g. PyTorch's test_pred.u8
};

struct CompileArgs {
  std::string model;             // a built-in model: mnist-mlp
  std::string weights;           // its weights (examples/mnist/train_reference.py output)
  std::string target = "small";
  uint32_t batch = 40, batches = 50;  // 2,000 images per run: the MNIST test set
  std::string firmware;          // tessera-firmware.elf (default: the build's)
  std::string output;            // model.tsx
  double memory_proportion = 0;  // .onnx: opgraph::LowerOptions; 0: 0.5, halved while it does not fit
  // .onnx: the memory savings, to measure each (opgraph::LowerOptions, passes::CompileOptions).
  bool no_in_place = false, no_early_updates = false, no_liveness = false;
  std::vector<std::string> recompute;  // op kinds: max_pool2d, avg_pool2d, lrn
  std::string plan = "machine";         // .onnx inference: the window ops' plans for (ops::PlanFor)
};

// `tessera compile mnist-mlp ...`: build, plan and compile a built-in model, print the
// per-tile memory report, write the executable. A model that does not fit still prints
// its report and names the tile, the bytes and the largest tensors there.
int compile(const CompileArgs& args);

// `tessera compile MODEL.onnx ...`: import an ONNX model, lower, compile, write the
// executable (compile_onnx.cpp; `cmd` tells which options were given).
int compile_onnx(const CompileArgs& args, const CLI::App& cmd);

// Memory per tile by category (min / median / max), to stdout.
void print_memory(const std::vector<exe::TileMemory>& memory);

// The last steps of every compile command: compiles `g`, prints the memory per tile (also
// for a graph that does not fit, before rethrowing its error), writes the executable.
exe::Executable compile_and_write(graph::Graph&& g, const passes::CompileOptions& o, const std::string& output);

using opgraph::Proportions;
using opgraph::kSmallestProportion;
inline constexpr int kOpRounds = 4;  // lowerings with smaller shares for single ops, at most
// Builds the graph with these proportions; fills the ops it lowered (opgraph::LowerOptions::
// lowered_ops) where it can take op proportions, else leaves them empty.
using LowerWith = std::function<graph::Graph(const Proportions&, std::vector<opgraph::LoweredOp>*)>;

// compile_and_write of the graph `lower` builds: from memory proportion `first`, once if
// `is_fixed` (the user's --memory-proportion). Else, while the graph does not fit, lowered
// again: with half the share for the ops whose temporaries take the most at the peaks of the
// tiles that do not fit (opgraph::OpShrinker; kOpRounds times at most), or, where the
// lowering named no ops, none can shrink or a smaller share left an op no plan, with half the
// proportion for every op, down to 1/16; saying so each time. With `may_spread` (plans for
// the host), the first lowering that does not fit is lowered again at once with the window
// ops spread over the tiles (Proportions::spread), before any share is made smaller.
exe::Executable compile_with_proportions(double first, bool is_fixed, const passes::CompileOptions& o,
                                         const std::string& output, const LowerWith& lower, bool may_spread = false);
// The memory proportion to lower a training graph with first: 0.5, or 0.25 when its
// persistent bytes (weights, velocities and gradients) take more than half of
// what the firmware leaves on the target's tiles, where half a tile for one op's temporaries
// cannot fit (AlexNet's training step on ipu-mk2: 81%): the compile then skips a lowering
// that would fail.
// A training graph's persistent bytes are counted as left on the tiles once its biggest weights
// stream from device memory (opgraph::resident_training_bytes), where the target has it.
double first_proportion(double persistent_bytes, const arch::Target& target, uint32_t firmware_bytes);
// "0.25": a memory proportion as the user would write it.
std::string proportion(double p);
// The op kinds of --recompute (max_pool2d, avg_pool2d, lrn); throws naming one it does not take.
std::set<opgraph::OpKind> recompute_kinds(const CompileArgs& c);
// Throws if --memory-proportion was given outside (0, 1].
void check_memory_proportion(const CompileArgs& c, const CLI::App& cmd);

// The fit check made before a compile allocates anything: `tensor_bytes`, a lower bound of
// what the model's tensors take (each counted once, on no tile twice), against what the
// target's tiles hold beside the firmware. A model that cannot fit fails at once with this
// report instead of after minutes and gigabytes of compiling (docs/hardening.md).
struct FitEstimate {
  std::string what;        // e.g. "mnist-train 784-100000-10, batch 32"
  uint64_t tensor_bytes;   // lower bound of the tensors' bytes
  std::string breakdown;   // "weights 313.6 MB, velocities 313.6 MB, ..."
};
void check_fits(const FitEstimate& e, const std::string& target_name, uint32_t tiles, uint32_t sram_bytes,
                uint32_t firmware_bytes);

// Host syncs per run of a program: each transfer is listed in the executable, so the count
// is bounded (--batches, --infer-batches, --steps-per-sync).
inline constexpr uint32_t kMaxTransfersPerRun = 1u << 16;

// `tessera info model.tsx`: the executable's target, memory per tile, programs, layers
// (compute sets), tensors, streams, printed to stdout.
int info(const std::string& model);
// `tessera run model.tsx ...`: load onto the device, run one program, write outputs.
int run(const RunArgs& args);
// The program `name` of `e` (the first if `name` is empty); an error naming `model` and the
// programs there are if it has none of that name.
const exe::Program& choose_program(const exe::Executable& e, const std::string& model, const std::string& name);

// Progress and notes go to stderr, so stdout stays data.
void note(const std::string& line);

}  // namespace tessera::cli
