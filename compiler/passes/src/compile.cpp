// The pipeline: validate, lower_programs, plan_exchanges, plan_memory, resolve_addresses,
// codegen. The graph is copied because lowering adds hidden tensors to it.
#include "tessera/passes/passes.h"

namespace tessera::passes {

exe::Executable compile(const graph::Graph& input, const CompileOptions& o) {
  graph::validate(input);
  if (o.layout.firmware_end <= o.layout.header)
    throw graph::GraphError("compile: firmware layout not set (header and firmware_end from the firmware ELF)");
  graph::Graph g = input;
  const Lowered l = lower_programs(g);
  const ExchangePlan x = plan_exchanges(g, l);
  const MemoryPlan m = plan_memory(g, l, x, o.layout);
  if (!m.errors.empty()) {
    std::string what = "the graph does not fit target '" + std::string(g.target().name) + "':";
    for (const std::string& line : m.errors) what += "\n  " + line;
    std::vector<exe::TileMemory> report;
    for (const MemoryPlan::Tile& t : m.tiles) report.push_back(t.usage);
    throw CompileError(what, std::move(report));
  }
  const Resolved r = resolve_addresses(g, l, x, m);
  return codegen(g, l, m, r, o);
}

}  // namespace tessera::passes
