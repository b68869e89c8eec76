// `tessera compile MODEL.onnx`: the ONNX model imported into an op graph (tessera_onnx_import),
// lowered onto the target's tiles (opgraph::lower), compiled, the memory per tile printed,
// the executable written. Streams are named after the model's inputs and outputs.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

#include <CLI/CLI.hpp>

#include "cli.h"
#include "paths.h"
#include "tessera/arch/tile_map.h"
#include "tessera/exe/file.h"
#include "tessera/onnx/import.h"
#include "tessera/opgraph/lower.h"
#include "tessera/opgraph/refit.h"
#include "tessera/passes/passes.h"

namespace tessera::cli {

std::string proportion(double p) {
  char s[32];
  std::snprintf(s, sizeof s, "%g", p);
  return s;
}

std::set<opgraph::OpKind> recompute_kinds(const CompileArgs& c) {
  std::set<opgraph::OpKind> r;
  for (const std::string& name : c.recompute) {
    bool known = false;
    for (const opgraph::OpKind k : {opgraph::OpKind::kMaxPool2d, opgraph::OpKind::kAvgPool2d, opgraph::OpKind::kLrn})
      if (name == opgraph::op_kind_name(k)) r.insert(k), known = true;
    if (!known) throw std::runtime_error("--recompute " + name + ": not an op it can recompute (max_pool2d, avg_pool2d, lrn)");
  }
  return r;
}

void check_memory_proportion(const CompileArgs& c, const CLI::App& cmd) {
  if (cmd.count("--memory-proportion") && !(c.memory_proportion > 0 && c.memory_proportion <= 1))
    throw std::runtime_error("--memory-proportion " + proportion(c.memory_proportion) + ": must be in (0, 1]");
}

double first_proportion(double persistent_bytes, const arch::Target& target, uint32_t firmware_bytes) {
  const double available = double(target.tiles) * (target.sram_bytes > firmware_bytes ? target.sram_bytes - firmware_bytes : 0);
  const double resident = opgraph::resident_training_bytes(persistent_bytes, available, target.device_memory_mib > 0);
  return resident > 0.5 * available ? 0.25 : 0.5;
}

exe::Executable compile_with_proportions(double first, bool is_fixed, const passes::CompileOptions& o,
                                         const std::string& output, const LowerWith& lower, bool may_spread) {
  std::exception_ptr fit_error;  // the last proportion that lowered but did not fit
  std::set<double> tried;
  Proportions props{first, {}};
  // Rounds of smaller shares for single ops left, and the shares before the last round.
  int op_rounds = kOpRounds;
  std::optional<std::map<size_t, double>> before;
  opgraph::OpShrinker shrinker;
  for (double& p = props.all;;) {
    tried.insert(p);
    std::optional<graph::Graph> g;
    std::vector<opgraph::LoweredOp> lowered;
    try {
      g.emplace(lower(props, &lowered));
    } catch (const std::exception& e) {
      // Smaller shares for single ops that leave one of them no plan: back to the shares
      // before, and every op's halved from there.
      if (before && p / 2 >= kSmallestProportion && !tried.count(p / 2)) {
        note("cannot lower with smaller shares for single ops (" + std::string(e.what()) + "): lowering again with " +
             proportion(p / 2) + " for every op");
        props.ops = *before, before.reset(), op_rounds = 0;
        p /= 2;
        continue;
      }
      // A first proportion below 0.5 (a big training graph's) may leave an op no share that
      // fits: try twice as much, up to 0.5. After a fit failure the error there stands.
      if (!is_fixed && !fit_error && p < 0.5 && !tried.count(2 * p)) {
        note("cannot lower with memory proportion " + proportion(p) + " (" + e.what() + "): lowering again with " +
             proportion(2 * p));
        p *= 2;
        continue;
      }
      if (!fit_error) throw;
      note("cannot lower with memory proportion " + proportion(p) + " (" + e.what() + "): the error before stands");
      std::rethrow_exception(fit_error);
    }
    try {
      return compile_and_write(std::move(*g), o, output);
    } catch (const passes::CompileError& e) {
      if (may_spread && !props.spread) {
        props.spread = true;
        note("does not fit with memory proportion " + proportion(p) + ": lowering again with each window op on " +
             "the tiles after the one before's");
        continue;
      }
      if (is_fixed) throw;
      fit_error = std::current_exception();
      // The ops whose temporaries fill the tiles that do not fit get half their share; the
      // others keep theirs. Where the memory plan names none that can shrink, every op does.
      // An op whose plan the last round's less did not change names the next op on its
      // tiles too (opgraph::OpShrinker).
      const std::map<size_t, double> ops_before = props.ops;
      const std::map<size_t, std::string> shrink =
          op_rounds > 0 ? shrinker.next(e.peaks, lowered, props) : std::map<size_t, std::string>{};
      if (!shrink.empty()) {
        --op_rounds;
        before = ops_before;
        std::string names;
        for (const auto& [op, name] : shrink)
          names += (names.empty() ? "" : ", ") + name + " " + proportion(props.of(op));
        note("does not fit with memory proportion " + proportion(p) + ": lowering again with less for the ops whose " +
             "temporaries fill the tiles that do not fit: " + names);
        continue;
      }
      if (p <= kSmallestProportion || tried.count(p / 2)) throw;
      note("does not fit with memory proportion " + proportion(p) + ": lowering again with " + proportion(p / 2) +
           " (smaller shares per op)");
      before.reset();
      p /= 2;
    }
  }
}

int compile_onnx(const CompileArgs& c, const CLI::App& cmd) {
  const arch::Target* target = arch::find_target(c.target);
  if (!target) throw std::runtime_error("unknown target '" + c.target + "' (targets: " + arch::target_names() + ")");
  if (cmd.count("--weights")) throw std::runtime_error("an ONNX model holds its weights: drop --weights");
  onnx_import::ImportOptions io;
  io.batch = cmd.count("--batch") ? c.batch : 0;  // only for a dynamic batch dimension
  const uint32_t batches = cmd.count("--batches") ? c.batches : 1;
  if ((cmd.count("--batch") && c.batch == 0) || batches == 0)
    throw std::runtime_error("--batch and --batches must be at least 1");
  if (batches > kMaxTransfersPerRun)
    throw std::runtime_error("--batches " + std::to_string(batches) + ": at most " + std::to_string(kMaxTransfersPerRun) +
                             " host transfers per run");
  check_memory_proportion(c, cmd);
  check_input_file(c.model, "model");
  check_output_file(c.output, "-o");
  const auto start = std::chrono::steady_clock::now();
  const onnx_import::Model m = onnx_import::import_file(c.model, io);
  note("imported " + c.model + " (opset " + std::to_string(m.opset) + (m.producer.empty() ? "" : ", from " + m.producer) +
       "): " + std::to_string(m.graph.ops().size()) + " ops" +
       (m.folded_batch_norms ? ", " + std::to_string(m.folded_batch_norms) + " BatchNormalizations folded" : ""));
  for (const opgraph::Op& op : m.graph.ops())
    if (op.kind == opgraph::OpKind::kInput || op.kind == opgraph::OpKind::kOutput) {
      const opgraph::ValueInfo& vi = m.graph.info(op.kind == opgraph::OpKind::kInput ? op.result : op.operands[0]);
      note(std::string("  ") + (op.kind == opgraph::OpKind::kInput ? "input  " : "output ") + op.name + " " +
           opgraph::type_string(vi.dtype, vi.shape));
    }

  passes::CompileOptions o = passes::firmware_options(c.firmware.empty() ? TESSERA_DEFAULT_FIRMWARE : c.firmware, target);
  o.liveness = !c.no_liveness;
  o.progress = [](const std::string& line) { note("  " + line); };
  // A lower bound: the weights (constants) and one transfer of the inputs, before lowering;
  // on a target with device memory, without the matmuls' and convs' constant weights, which
  // may stream from there (docs/weight-streaming.md).
  std::set<uint32_t> streamable;
  if (target->device_memory_mib > 0)
    for (const opgraph::Op& op : m.graph.ops())
      if (op.kind == opgraph::OpKind::kMatMul || op.kind == opgraph::OpKind::kConv2d) streamable.insert(op.operands[1].id);
  uint64_t weights = 0, inputs = 0, streamed = 0;
  for (const opgraph::Op& op : m.graph.ops()) {
    if (op.kind != opgraph::OpKind::kConstant && op.kind != opgraph::OpKind::kInput) continue;
    uint64_t n = 4;
    for (uint32_t d : m.graph.info(op.result).shape) n *= d;
    (op.kind == opgraph::OpKind::kInput ? inputs : streamable.count(op.result.id) ? streamed : weights) += n;
  }
  check_fits({c.model, weights + inputs,
              std::to_string(weights) + " bytes of weights, " + std::to_string(inputs) + " of one transfer of the inputs" +
                  (streamed ? "; not counted: " + std::to_string(streamed) +
                                  " of matmul and conv weights, which may stream from device memory"
                            : std::string())},
             c.target, target->tiles, target->sram_bytes, o.layout.firmware_end - arch::kSramBase);
  // Lowered with the given memory proportion, or 0.5 and, while the model does not fit,
  // again with less for the ops that fill the tiles, or for all (compile_with_proportions);
  // big constant weights are placed apart, in weight regions, or streamed: they need no
  // smaller first proportion.
  const bool fixed = cmd.count("--memory-proportion") > 0;
  compile_with_proportions(fixed ? c.memory_proportion : 0.5, fixed, o, c.output, [&](const Proportions& props,
                                                                                  std::vector<opgraph::LoweredOp>* lowered) {
    const double p = props.all;
    graph::Graph g(*target);
    opgraph::LowerOptions lo;
    lo.batches = batches;
    lo.firmware_bytes = o.layout.firmware_end - arch::kSramBase;
    lo.memory_proportion = p;
    lo.op_proportions = props.ops;
    lo.lowered_ops = lowered;
    lo.in_place = !c.no_in_place;
    lo.plan_for = c.plan == "host" ? ops::PlanFor::kHost : ops::PlanFor::kMachine;
    lo.spread_window_ops = props.spread;
    lo.note = note;
    const auto lower_start = std::chrono::steady_clock::now();
    try {
      opgraph::lower(m.graph, g, lo);
    } catch (const opgraph::OpGraphError& e) {
      throw std::runtime_error(c.model + ": cannot be lowered onto the tiles yet: " + e.what());
    }
    note("lowered in " + std::to_string(std::chrono::duration<double>(std::chrono::steady_clock::now() - lower_start).count()) +
         " s with memory proportion " + proportion(p) + "; program \"infer\" x " + std::to_string(batches));
    return g;
  }, c.plan == "host");
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("wrote %s, compiled in %.2f s\n", c.output.c_str(), s);
  return 0;
}

}  // namespace tessera::cli
