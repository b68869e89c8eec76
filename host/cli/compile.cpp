// `tessera compile`: built-in models to executables.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "cli.h"
#include "tessera/arch/tile_map.h"
#include "tessera/exe/file.h"
#include "tessera/models/mlp.h"
#include "tessera/passes/passes.h"

namespace tessera::cli {

int compile(const CompileArgs& a) {
  const arch::Target* target = arch::find_target(a.target);
  if (!target) {
    throw std::runtime_error("unknown target '" + a.target + "' (targets: " + arch::target_names() + ")");
  }
  if (a.model != "mnist-mlp")
    throw std::runtime_error("unknown model '" + a.model + "' (built-in models: mnist-mlp, mnist-train)");
  if (a.weights.empty()) throw std::runtime_error("mnist-mlp needs --weights DIR");
  if (a.batch == 0 || a.batches == 0) throw std::runtime_error("--batch and --batches must be at least 1");
  const auto start = std::chrono::steady_clock::now();
  passes::CompileOptions o =
      passes::firmware_options(a.firmware.empty() ? TESSERA_DEFAULT_FIRMWARE : a.firmware, target);
  o.progress = [](const std::string& line) { note("  " + line); };

  note("building " + a.model + " for " + a.target + " (" + std::to_string(target->tiles) + " tiles), batch " +
       std::to_string(a.batch) + " x " + std::to_string(a.batches));
  graph::Graph g(*target);
  models::build_mlp_inference(g, models::read_mlp_weights(a.weights),
                              {a.batch, a.batches, o.layout.firmware_end - arch::kSramBase});
  note("compiling " + std::to_string(g.vertices().size()) + " vertices in " + std::to_string(g.compute_sets().size()) +
       " compute sets");
  exe::Executable e;
  try {
    e = passes::compile(g, o);
  } catch (const passes::CompileError& err) {
    print_memory(err.memory);
    throw;
  }
  print_memory(e.memory);
  exe::write_file(e, a.output);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("\nwrote %s: %u supersteps, %llu exchange bytes, compiled in %.2f s\n", a.output.c_str(), e.supersteps,
              static_cast<unsigned long long>(e.exchange_bytes), s);
  return 0;
}

}  // namespace tessera::cli
