// `tessera compile`: built-in models to executables.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <utility>

#include "cli.h"
#include "paths.h"
#include "tessera/arch/tile_map.h"
#include "tessera/exe/file.h"
#include "tessera/models/mlp.h"
#include "tessera/passes/passes.h"

namespace tessera::cli {

namespace {

std::string megabytes(uint64_t bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f MB", static_cast<double>(bytes) / 1e6);
  return b;
}

}  // namespace

void check_fits(const FitEstimate& e, const std::string& target_name, uint32_t tiles, uint32_t sram_bytes,
                uint32_t firmware_bytes) {
  const uint64_t per_tile = sram_bytes > firmware_bytes ? sram_bytes - firmware_bytes : 0;
  const uint64_t available = per_tile * tiles;
  if (e.tensor_bytes <= available) return;
  throw std::runtime_error(e.what + " does not fit " + target_name + ": its tensors need at least " +
                           std::to_string(e.tensor_bytes) + " bytes (" + megabytes(e.tensor_bytes) + ": " + e.breakdown +
                           "), the " + std::to_string(tiles) + " tiles hold " + std::to_string(available) + " (" +
                           megabytes(available) + ": " + std::to_string(per_tile) + " bytes each beside the firmware's " +
                           std::to_string(firmware_bytes) + "); nothing was compiled (a smaller model, batch or a "
                           "larger target)");
}

int compile(const CompileArgs& a) {
  const arch::Target* target = arch::find_target(a.target);
  if (!target) {
    throw std::runtime_error("unknown target '" + a.target + "' (targets: " + arch::target_names() + ")");
  }
  if (a.model != "mnist-mlp")
    throw std::runtime_error("unknown model '" + a.model + "' (built-in models: mnist-mlp, mnist-train)");
  if (a.weights.empty()) throw std::runtime_error("mnist-mlp needs --weights DIR");
  if (a.batch == 0 || a.batches == 0) throw std::runtime_error("--batch and --batches must be at least 1");
  if (a.batches > kMaxTransfersPerRun)
    throw std::runtime_error("--batches " + std::to_string(a.batches) + ": at most " + std::to_string(kMaxTransfersPerRun) +
                             " host transfers per run");
  check_output_file(a.output, "-o");
  const auto start = std::chrono::steady_clock::now();
  passes::CompileOptions o =
      passes::firmware_options(a.firmware.empty() ? TESSERA_DEFAULT_FIRMWARE : a.firmware, target);
  o.progress = [](const std::string& line) { note("  " + line); };

  note("building " + a.model + " for " + a.target + " (" + std::to_string(target->tiles) + " tiles), batch " +
       std::to_string(a.batch) + " x " + std::to_string(a.batches));
  // A lower bound for 784-128-10 (the weights' shapes are checked as they are read): the
  // weights and one batch of images.
  const uint64_t weights = 784ull * 128 + 128 + 128ull * 10 + 10, activations = uint64_t{a.batch} * 784;
  check_fits({"mnist-mlp, batch " + std::to_string(a.batch), 4 * (weights + activations),
              std::to_string(4 * weights) + " bytes of weights, " + std::to_string(4 * activations) + " of one batch of images"},
             a.target, target->tiles, target->sram_bytes, o.layout.firmware_end - arch::kSramBase);
  graph::Graph g(*target);
  models::build_mlp_inference(g, models::read_mlp_weights(a.weights),
                              {a.batch, a.batches, o.layout.firmware_end - arch::kSramBase});
  const exe::Executable e = compile_and_write(std::move(g), o, a.output);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("wrote %s, compiled in %.2f s\n", a.output.c_str(), s);
  return 0;
}

}  // namespace tessera::cli
