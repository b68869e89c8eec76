// The compiler's passes from the vertex graph to an executable, one per file, each with
// one entry point, and the whole pipeline as compile().
//
//   passes::CompileOptions o;
//   o.firmware = bytes_of("tessera-firmware.elf");
//   o.layout = exe::firmware_layout(exe::parse_elf(o.firmware, "firmware"));
//   exe::Executable x = passes::compile(graph, o);
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "tessera/passes/ir.h"

namespace tessera::passes {

// check_fit.cpp: the tiles whose vertex state and tensors with an initial value alone exceed
// what the firmware leaves (a lower bound, right after validate), one error line each;
// `report` gets those bytes per tile.
std::vector<std::string> check_fit(const graph::Graph& g, const exe::FirmwareLayout& fw,
                                   std::vector<exe::TileMemory>& report);
// lower_programs.cpp: programs -> global control programs (adds hidden tensors to `g`).
Lowered lower_programs(graph::Graph& g);
// plan_exchanges.cpp: copies and host transfers -> per-tile runs, checked.
ExchangePlan plan_exchanges(const graph::Graph& g, const Lowered& l);
// plan_memory.cpp: per-tile addresses and the usage report; never throws for lack of
// space (it reports into `errors`). Folds the strided sends of `x` (fold_sends.cpp) once it
// knows which intervals lie together. Without `liveness`, no two tensors share memory.
MemoryPlan plan_memory(const graph::Graph& g, const Lowered& l, ExchangePlan& x,
                        const exe::FirmwareLayout& fw, bool liveness = true);
// resolve_addresses.cpp: vertex state words, send entries, stream and tensor addresses.
Resolved resolve_addresses(const graph::Graph& g, const Lowered& l, const ExchangePlan& x, const MemoryPlan& m);

struct CompileOptions {
  std::vector<uint8_t> firmware;  // the firmware ELF's bytes, stored in the executable
  exe::FirmwareLayout layout;  // the firmware's memory: everything below firmware_end is its
  std::function<void(const std::string&)> progress;  // told after each pass, if set
  // false: every tensor keeps its memory for the whole run (to measure what sharing the
  // memory of tensors with disjoint live ranges saves; `--no-liveness`).
  bool liveness = true;
};

// firmware.cpp: options for the firmware ELF at `elf_path` (its bytes, and the layout from its
// symbols tessera_tile_header and __firmware_end), checked to leave room on `target`'s tiles
// if one is given. Throws std::runtime_error (unreadable) or exe::ElfError naming the file.
CompileOptions firmware_options(const std::string& elf_path, const arch::Target* target = nullptr);

// codegen.cpp: the executable's segments and metadata.
exe::Executable codegen(const graph::Graph& g, const Lowered& l, const MemoryPlan& m, const Resolved& r,
                        const CompileOptions& o);

// A graph that cannot compile for lack of memory: the message names the tiles, and the
// full per-tile report is still there.
class CompileError : public std::runtime_error {
 public:
  CompileError(const std::string& what, std::vector<exe::TileMemory> memory,
               std::vector<std::vector<std::pair<uint32_t, uint32_t>>> peaks = {})
      : std::runtime_error(what), memory(std::move(memory)), peaks(std::move(peaks)) {}
  std::vector<exe::TileMemory> memory;
  // From the memory plan, per tile that does not fit: the temporaries (variable, bytes) live
  // when its tensors peak. Empty when the graph failed before (check_fit).
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> peaks;
};

// validate, check_fit, lower_programs, plan_exchanges, plan_memory, resolve_addresses, codegen.
// Throws graph::GraphError or CompileError.
exe::Executable compile(const graph::Graph& g, const CompileOptions& o);
// The same on a graph the caller gives up: no working copy (lowering adds hidden tensors),
// and `g` is left empty (moved from) and its memory freed before the executable returns.
exe::Executable compile(graph::Graph&& g, const CompileOptions& o);

// Text dumps of each stage, for the golden tests and for debugging.
std::string dump(const graph::Graph& g, const Lowered& l);
std::string dump(const graph::Graph& g, const ExchangePlan& x);
std::string dump(const graph::Graph& g, const MemoryPlan& m);
std::string dump(const Resolved& r);
std::string dump(const exe::Executable& e);

}  // namespace tessera::passes
