// tessera profile on MNIST (the built-in MLP) and LeNet-5 (from ONNX), run as a user runs
// it, its file read back and checked against an independent source:
//  - the trace (nlohmann-json) against the run report of the same run (the engine's cycle
//    counts): one track per tile, each track's phases adding up to the run's cycles and to
//    each superstep's compute and exchange cycles, a host event per host sync;
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "tessera/arch/tile_map.h"
#include "tessera/emu/elf.h"
#include "tessera/exe/file.h"
#include "tessera/graph/graph.h"
#include "tessera/models/mlp.h"
#include "tessera/passes/passes.h"
#if TESSERA_HAVE_ONNX
#include "tessera/onnx/import.h"
#include "tessera/opgraph/lower.h"
#endif

namespace tessera::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kTessera = TESSERA_CLI;
const std::string kFirmware = std::string(TESSERA_TILE_BIN_DIR) + "/runtime/tessera-firmware.elf";

// A compiled model and the compiler's graph it came from.
struct Model {
  std::string name;
  fs::path dir, tsx;
  exe::Executable exe;
  size_t graph_vertices = 0, graph_edges = 0;  // from graph::Graph: vertices, connected pointer fields
};

void count_graph(const graph::Graph& g, Model& m) {
  m.graph_vertices = g.vertices().size();
  for (const graph::VertexData& v : g.vertices())
    for (const graph::FieldValue& f : v.fields) m.graph_edges += f.region.valid();
}

fs::path work_dir(const std::string& name) {
  const fs::path d = fs::path(TESSERA_VIZ_WORK_DIR) / name;
  fs::create_directories(d);
  return d;
}

const Model& mnist() {
  static const Model m = [] {
    Model m{"mnist", work_dir("mnist"), {}, {}, 0, 0};
    const passes::CompileOptions o = passes::firmware_options(kFirmware);
    graph::Graph g(*arch::find_target("small"));
    models::build_mlp_inference(g, models::read_mlp_weights(TESSERA_MNIST_REFERENCE_DIR),
                                {40, 2, o.layout.firmware_end - arch::kSramBase});
    count_graph(g, m);
    m.exe = passes::compile(g, o);
    m.tsx = m.dir / "mnist.tsx";
    exe::write_file(m.exe, m.tsx);
    return m;
  }();
  return m;
}

#if TESSERA_HAVE_ONNX
const Model& lenet() {
  static const Model m = [] {
    Model m{"lenet", work_dir("lenet"), {}, {}, 0, 0};
    onnx_import::ImportOptions io;
    io.batch = 4;
    const onnx_import::Model om = onnx_import::import_file(std::string(TESSERA_LENET_REFERENCE_DIR) + "/lenet.onnx", io);
    const passes::CompileOptions co = passes::firmware_options(kFirmware);
    graph::Graph g(*arch::find_target("small"));
    opgraph::LowerOptions lo;
    lo.batches = 1;
    lo.firmware_bytes = co.layout.firmware_end - arch::kSramBase;
    opgraph::lower(om.graph, g, lo);
    count_graph(g, m);
    m.exe = passes::compile(g, co);
    m.tsx = m.dir / "lenet.tsx";
    exe::write_file(m.exe, m.tsx);
    return m;
  }();
  return m;
}
#endif

void tessera(const std::string& args) {
  const std::string cmd = kTessera + " " + args;
  std::printf("$ %s\n", cmd.c_str());
  std::fflush(stdout);
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
}

json read_json(const fs::path& p) {
  std::ifstream f(p);
  return json::parse(f);
}

void check_trace(const Model& m, const std::string& extra, uint32_t tiles_per_track) {
  const fs::path trace = m.dir / "trace.json", report = m.dir / "run.json";
  tessera("profile " + m.tsx.string() + " " + extra + " -o " + trace.string() + " --report " + report.string());
  const json t = read_json(trace), r = read_json(report);
  const json& run = r["runs"][0];
  ASSERT_TRUE(run["ok"].get<bool>());
  const uint64_t total = run["total_cycles"];
  const json& steps = run["superstep_profile"];
  ASSERT_GT(total, 0u);
  const uint32_t tiles = m.exe.tiles, tracks = (tiles + tiles_per_track - 1) / tiles_per_track;
  // Tracks: named, one per tile (or group), each tile in exactly one.
  std::map<int, std::string> names;
  std::vector<uint64_t> sum(tracks, 0);
  std::vector<std::vector<uint64_t>> compute(tracks, std::vector<uint64_t>(steps.size(), 0)),
      barrier(tracks, std::vector<uint64_t>(steps.size(), 0));
  size_t host_events = 0, counters = 0;
  for (const json& e : t["traceEvents"]) {
    const std::string ph = e["ph"];
    if (ph == "M" && e["pid"] == 1 && e["name"] == "thread_name") names[e["tid"]] = e["args"]["name"];
    if (ph == "C") ++counters;
    if (ph != "X") continue;
    if (e["pid"] == 0) {
      ++host_events;
      continue;
    }
    const int tid = e["tid"];
    ASSERT_LT(tid, static_cast<int>(tracks));
    const uint64_t c = e["args"]["cycles"];
    const size_t k = e["args"]["superstep"];
    ASSERT_LT(k, steps.size());
    sum[tid] += c;
    const std::string cat = e["cat"];
    if (cat == "compute" || e["name"] == "wait for barrier") compute[tid][k] += c;
    else barrier[tid][k] += c;
  }
  ASSERT_EQ(names.size(), tracks);
  for (uint32_t k = 0; k < tracks; ++k) {
    const uint32_t a = k * tiles_per_track, b = std::min(tiles, a + tiles_per_track) - 1;
    EXPECT_EQ(names[k], a == b ? "tile " + std::to_string(a) : "tiles " + std::to_string(a) + "-" + std::to_string(b));
    EXPECT_EQ(sum[k], total) << "track " << k << ": its phases do not add up to the run's cycles";
    for (size_t s = 0; s < steps.size(); ++s) {
      EXPECT_EQ(compute[k][s], steps[s]["compute_cycles"].get<uint64_t>()) << "track " << k << " superstep " << s;
      EXPECT_EQ(barrier[k][s], steps[s]["exchange_cycles"].get<uint64_t>()) << "track " << k << " superstep " << s;
    }
  }
  EXPECT_EQ(host_events, run["host_syncs"].get<size_t>());
  EXPECT_EQ(counters, steps.size() + 1);
  EXPECT_EQ(t["total_cycles"].get<uint64_t>(), total);
}

TEST(VizMnist, TraceAddsUpToTheRunsCycles) { check_trace(mnist(), "", 1); }
TEST(VizMnist, TraceGroupsTiles) { check_trace(mnist(), "--tiles-per-track 5", 5); }
#if TESSERA_HAVE_ONNX
TEST(VizLeNet, TraceAddsUpToTheRunsCycles) { check_trace(lenet(), "", 1); }
#endif

}  // namespace
}  // namespace tessera::testing
