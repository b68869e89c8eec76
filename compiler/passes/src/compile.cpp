// The pipeline: validate, check_fit, lower_programs, plan_exchanges, plan_memory, resolve_addresses,
// codegen. The graph is copied because lowering adds hidden tensors to it, unless the caller
// gives it up (compile(Graph&&)).
#include <chrono>
#include <cstdio>

#include "tessera/passes/passes.h"

namespace tessera::passes {

namespace {

// Reports each finished pass and how long it took, if the caller asked for progress.
class Progress {
 public:
  explicit Progress(const std::function<void(const std::string&)>& sink) : sink_(sink) {}
  void done(const char* pass) {
    if (!sink_) return;
    const auto now = std::chrono::steady_clock::now();
    char line[96];
    std::snprintf(line, sizeof line, "%-18s %7.2f s", pass, std::chrono::duration<double>(now - last_).count());
    sink_(line);
    last_ = now;
  }

 private:
  const std::function<void(const std::string&)>& sink_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

// The error for a graph that does not fit: one line per tile, and the per-tile report.
[[noreturn]] void does_not_fit(const graph::Graph& g, const std::vector<std::string>& lines,
                               std::vector<exe::TileMemory> report,
                               std::vector<std::vector<std::pair<uint32_t, uint32_t>>> peaks = {}) {
  std::string what = "the graph does not fit target '" + std::string(g.target().name) + "':";
  for (const std::string& line : lines) what += "\n  " + line;
  throw CompileError(what, std::move(report), std::move(peaks));
}

// The passes after validate, on a graph they may add hidden tensors to.
exe::Executable run(graph::Graph& g, const CompileOptions& o, Progress& progress) {
  if (o.layout.firmware_end <= o.layout.header)
    throw graph::GraphError("compile: firmware layout not set (header and firmware_end from the firmware ELF)");
  std::vector<exe::TileMemory> bound;
  if (const std::vector<std::string> over = check_fit(g, o.layout, bound); !over.empty()) does_not_fit(g, over, std::move(bound));
  progress.done("check fit");
  const Lowered l = lower_programs(g);
  progress.done("lower programs");
  ExchangePlan x = plan_exchanges(g, l);
  progress.done("plan exchanges");
  const MemoryPlan m = plan_memory(g, l, x, o.layout, o.liveness);
  progress.done("plan memory");
  if (!m.errors.empty()) {
    std::vector<std::string> lines = m.errors;
    lines.push_back(m.peak);
    std::vector<exe::TileMemory> report;
    for (const MemoryPlan::Tile& t : m.tiles) report.push_back(t.usage);
    does_not_fit(g, lines, std::move(report), m.peak_temporaries);
  }
  const Resolved r = resolve_addresses(g, l, x, m);
  progress.done("resolve addresses");
  exe::Executable e = codegen(g, l, m, r, o);
  progress.done("codegen");
  return e;
}

}  // namespace

exe::Executable compile(const graph::Graph& input, const CompileOptions& o) {
  Progress progress(o.progress);
  graph::validate(input);
  progress.done("validate");
  graph::Graph g = input;
  return run(g, o, progress);
}

exe::Executable compile(graph::Graph&& g, const CompileOptions& o) {
  Progress progress(o.progress);
  graph::validate(g);
  progress.done("validate");
  // Owned here, so it is freed before the caller writes the executable (AlexNet's training
  // graph holds hundreds of MB of initial values).
  graph::Graph owned = std::move(g);
  return run(owned, o, progress);
}

}  // namespace tessera::passes
