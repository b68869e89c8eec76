// tessera profile, view and graph on MNIST (the built-in MLP, for inference and for training
// on `medium`) and LeNet-5 (from ONNX), run as
// a user runs them, their files read back and checked against independent sources:
//  - the trace (nlohmann-json) against the run report of the same run (the engine's cycle
//    counts): one track per tile, each track's phases adding up to the run's cycles and to
//    each superstep's compute and exchange cycles, a host event per host sync; the
//    timeline picture of the expected width with content;
//  - the view: a PNG and an SVG of the expected size with many colours, the JSON's
//    categories equal to the executable's plan and its exchange matrix equal to the words
//    the emulator counted moving;
//  - the graph: GraphML and GEXF read back, their vertex and edge counts equal to the
//    compiler's own graph (its vertices, and their connected pointer fields) and the
//    executable's debug map; a PNG of the requested size with content.
#include <cairo.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>
#include <tuple>

#include "tessera/arch/tile_map.h"
#include "tessera/exe/elf.h"
#include "tessera/exe/file.h"
#include "tessera/graph/graph.h"
#include "tessera/models/mlp.h"
#include "tessera/models/mlp_train.h"
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
  // From graph::Graph: each (compute set, tile, tensor, written) a vertex field points to, counted.
  std::map<std::tuple<uint32_t, uint32_t, std::string, bool>, size_t> graph_links;
};

void count_graph(const graph::Graph& g, Model& m) {
  m.graph_vertices = g.vertices().size();
  for (const graph::VertexData& v : g.vertices()) {
    const graph::CodeletInfo& c = graph::codelets()[v.codelet];
    for (size_t f = 0; f < v.fields.size(); ++f) {
      if (!v.fields[f].region.valid()) continue;
      ++m.graph_edges;
      ++m.graph_links[{v.compute_set, v.tile, g.variables()[v.fields[f].region.var].name, !c.fields[f].is_const}];
    }
  }
}

fs::path work_dir(const std::string& name) {
  const fs::path d = fs::path(TESSERA_VIZ_WORK_DIR) / name;
  fs::create_directories(d);
  return d;
}

// MNIST inference on `small`: `batches` batches of `batch` digits, compiled into work_dir(name).
Model mnist_model(const std::string& name, uint32_t batch, uint32_t batches) {
  Model m{name, work_dir(name), {}, {}, 0, 0, {}};
  const passes::CompileOptions o = passes::firmware_options(kFirmware);
  graph::Graph g(*arch::find_target("small"));
  models::build_mlp_inference(g, models::read_mlp_weights(TESSERA_MNIST_REFERENCE_DIR),
                              {batch, batches, o.layout.firmware_end - arch::kSramBase});
  count_graph(g, m);
  m.exe = passes::compile(g, o);
  m.tsx = m.dir / "mnist.tsx";
  exe::write_file(m.exe, m.tsx);
  return m;
}

const Model& mnist() {
  static const Model m = mnist_model("mnist", 40, 2);
  return m;
}

// The MLP's training executable (programs train, infer, init; Repeat in train) on `medium`.
const Model& mlp_train() {
  static const Model m = [] {
    Model m{"train", work_dir("train"), {}, {}, 0, 0, {}};
    const passes::CompileOptions o = passes::firmware_options(kFirmware, arch::find_target("medium"));
    models::MlpTrainConfig c;
    c.steps_per_sync = 2;
    c.firmware_bytes = o.layout.firmware_end - arch::kSramBase;
    const graph::Graph g = models::build_mlp_training(c, models::init_mlp_params(c.widths, 1));
    count_graph(g, m);
    m.exe = passes::compile(g, o);
    m.tsx = m.dir / "train.tsx";
    exe::write_file(m.exe, m.tsx);
    return m;
  }();
  return m;
}

#if TESSERA_HAVE_ONNX
const Model& lenet() {
  static const Model m = [] {
    Model m{"lenet", work_dir("lenet"), {}, {}, 0, 0, {}};
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

std::string read_text(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t i = text.find(what); i != std::string::npos; i = text.find(what, i + 1)) ++n;
  return n;
}

// A PNG's size, its distinct colours and the share of pixels that differ from the corner's.
struct Png {
  int width = 0, height = 0;
  size_t colours = 0;
  double drawn = 0;
};
Png read_png(const fs::path& p) {
  std::unique_ptr<cairo_surface_t, void (*)(cairo_surface_t*)> s(cairo_image_surface_create_from_png(p.c_str()),
                                                                  cairo_surface_destroy);
  Png r;
  if (cairo_surface_status(s.get()) != CAIRO_STATUS_SUCCESS) return r;
  r.width = cairo_image_surface_get_width(s.get()), r.height = cairo_image_surface_get_height(s.get());
  const unsigned char* d = cairo_image_surface_get_data(s.get());
  const int stride = cairo_image_surface_get_stride(s.get());
  std::set<uint32_t> colours;
  const uint32_t background = *reinterpret_cast<const uint32_t*>(d) & 0xFFFFFFu;
  size_t drawn = 0;
  for (int y = 0; y < r.height; ++y)
    for (int x = 0; x < r.width; ++x) {
      const uint32_t c = reinterpret_cast<const uint32_t*>(d + size_t(y) * stride)[x] & 0xFFFFFFu;
      colours.insert(c);
      drawn += c != background;
    }
  r.colours = colours.size(), r.drawn = double(drawn) / (double(r.width) * r.height);
  return r;
}

// The trace and run report check_trace read back.
struct TraceFiles {
  json trace, report;
};

// `tag` goes into the file names (trace{tag}.json ...); `out`, when set, gets what was read.
void check_trace(const Model& m, const std::string& extra, uint32_t tiles_per_track, const std::string& tag = "",
                 TraceFiles* out = nullptr) {
  const fs::path trace = m.dir / ("trace" + tag + ".json"), report = m.dir / ("run" + tag + ".json");
  const fs::path timeline = m.dir / ("timeline" + tag + ".png");
  tessera("profile " + m.tsx.string() + " " + extra + " -o " + trace.string() + " --report " + report.string() +
          " --png " + timeline.string());
  const Png p = read_png(timeline);
  EXPECT_EQ(p.width, 1400);
  EXPECT_GT(p.height, 200);
  EXPECT_GE(p.colours, 16u) << "the timeline picture looks empty";
  EXPECT_GT(p.drawn, 0.2) << "the timeline picture looks empty";
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
  size_t host_events = 0, counters = 0, named_layers = 0;
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
    if (cat == "compute")
      for (const std::string& l : m.exe.layer_names) named_layers += e["name"].get<std::string>().rfind(l + " cs ", 0) == 0;
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
  // Compute events are named after the layers (the program's walk matched the run).
  EXPECT_TRUE(t["otherData"]["named_by_program"].get<bool>());
  EXPECT_GT(named_layers, 0u);
  if (out) *out = {t, r};
}

void check_view(const Model& m) {
  const fs::path png = m.dir / "view.png", svg = m.dir / "view.svg", js = m.dir / "view.json", report = m.dir / "run.json";
  tessera("view " + m.tsx.string() + " -o " + png.string() + " --json " + js.string());
  tessera("view " + m.tsx.string() + " -o " + svg.string());
  const Png p = read_png(png);
  EXPECT_EQ(p.width, 1400);
  EXPECT_EQ(p.height, 900);
  EXPECT_GE(p.colours, 12u) << "the memory view looks empty";
  EXPECT_GT(p.drawn, 0.2);
  const std::string s = read_text(svg);
  EXPECT_NE(s.find("<svg"), std::string::npos);
  EXPECT_NE(s.find("width=\"1400pt\" height=\"900pt\""), std::string::npos);
  EXPECT_GT(count(s, "<path"), 100u);
  const json v = read_json(js);
  ASSERT_EQ(v["tile_memory"].size(), m.exe.tiles);
  for (uint32_t t = 0; t < m.exe.tiles; ++t) {
    const exe::TileMemory& tm = m.exe.memory[t];
    EXPECT_EQ(v["tile_memory"][t]["categories"],
              json({tm.code, tm.stack, tm.control, tm.vertex_state, tm.send_lists, tm.landing, tm.tensors}));
  }
  // The exchange matrix against the words the emulator moved in one run (profile's report).
  uint64_t bytes = 0, words = 0;
  for (const json& b : v["exchange"]["bytes"]) bytes += b.get<uint64_t>();
  const json r = read_json(report);
  for (const json& s : r["runs"][0]["superstep_profile"]) words += s["exchange_words"].get<uint64_t>();
  EXPECT_EQ(bytes, 4 * words);
  EXPECT_GT(bytes, 0u);
  const json& live = v["live_bytes"]["max_tile"];
  ASSERT_FALSE(live.empty());
  uint64_t peak = 0;
  for (const json& b : live) peak = std::max(peak, b.get<uint64_t>());
  EXPECT_LE(peak, v["sram_bytes"].get<uint64_t>());
  EXPECT_GT(peak, 0u);
}

// The view's bytes live against the memory planner's plan, on an executable whose tensors
// share addresses (tensors with disjoint live ranges, in one program or in different
// ones): for each tile, the most its `view --program P` finds live over all programs is
// the tile's planned total (the sum of its categories, as `tessera compile` prints them;
// its tensors' share is the planner's own peak), and the fullest tile's curve peaks at the
// fullest planned total.
void check_live_bytes(const Model& m) {
  const exe::Executable& e = m.exe;
  // The premise: on some tile, two tensors' intervals overlap in address.
  bool shared = false;
  std::map<uint32_t, std::vector<std::tuple<uint32_t, uint32_t, size_t>>> at;  // tile -> (begin, end, tensor)
  for (size_t t = 0; t < e.tensors.size(); ++t)
    for (const exe::Interval& iv : e.tensors[t].intervals)
      at[iv.tile].emplace_back(iv.addr, iv.addr + iv.count * exe::dtype_bytes(e.tensors[t].dtype), t);
  for (auto& [tile, spans] : at) {
    std::sort(spans.begin(), spans.end());
    for (size_t k = 1; k < spans.size() && !shared; ++k)
      shared = std::get<0>(spans[k]) < std::get<1>(spans[k - 1]) && std::get<2>(spans[k]) != std::get<2>(spans[k - 1]);
  }
  ASSERT_TRUE(shared) << m.name << ": no two tensors share an address; the check would prove nothing";
  std::vector<uint64_t> planned(e.tiles), peak(e.tiles, 0);
  for (uint32_t t = 0; t < e.tiles; ++t) {
    const exe::TileMemory& tm = e.memory[t];
    planned[t] = uint64_t{tm.code} + tm.stack + tm.control + tm.vertex_state + tm.send_lists + tm.landing + tm.tensors;
  }
  uint64_t curve = 0;
  for (const exe::Program& p : e.programs) {
    const fs::path js = m.dir / ("live_" + p.name + ".json"), png = m.dir / ("live_" + p.name + ".png");
    tessera("view " + m.tsx.string() + " --program " + p.name + " -o " + png.string() + " --json " + js.string());
    const json v = read_json(js);
    ASSERT_EQ(v["live_bytes"]["peak_by_tile"].size(), e.tiles) << p.name;
    for (uint32_t t = 0; t < e.tiles; ++t) {
      const uint64_t b = v["live_bytes"]["peak_by_tile"][t].get<uint64_t>();
      EXPECT_LE(b, planned[t]) << "program " << p.name << " tile " << t;
      peak[t] = std::max(peak[t], b);
    }
    for (const json& b : v["live_bytes"]["max_tile"]) curve = std::max(curve, b.get<uint64_t>());
  }
  for (uint32_t t = 0; t < e.tiles; ++t) EXPECT_EQ(peak[t], planned[t]) << "tile " << t;
  EXPECT_EQ(curve, *std::max_element(planned.begin(), planned.end())) << "the fullest tile's bytes live";
}

void check_graph(const Model& m) {
  const fs::path gml = m.dir / "graph.graphml", gexf = m.dir / "graph.gexf", png = m.dir / "graph.png";
  tessera("graph " + m.tsx.string() + " -o " + gml.string() + " -o " + gexf.string() + " -o " + png.string() +
          " --size 768");
  ASSERT_GT(m.graph_vertices, 0u);
  EXPECT_EQ(m.exe.vertices.size(), m.graph_vertices);
  const std::string g = read_text(gml);
  EXPECT_EQ(count(g, "<node id=\"v"), m.graph_vertices) << "GraphML vertices";
  EXPECT_EQ(count(g, "<edge "), m.graph_edges) << "GraphML edges";
  EXPECT_EQ(count(g, "<node id=\"r"), count(g, "<data key=\"kind\">region</data>"));
  // Each edge goes to the tensor the compiler connected (not to another tensor that shares
  // its address at another time): (compute set, tile, tensor, access) counted both ways.
  {
    std::map<std::string, std::pair<uint32_t, uint32_t>> vertex;  // id -> (compute set, tile)
    std::map<std::string, std::string> tensor;                   // region id -> tensor name
    std::map<std::tuple<uint32_t, uint32_t, std::string, bool>, size_t> links;
    const auto data = [](const std::string& line, const std::string& key) {
      const std::string open = "<data key=\"" + key + "\">";
      const size_t a = line.find(open) + open.size();
      return line.substr(a, line.find("</data>", a) - a);
    };
    const auto id = [](const std::string& line, const std::string& attr) {
      const size_t a = line.find(attr + "=\"") + attr.size() + 2;
      return line.substr(a, line.find('"', a) - a);
    };
    std::istringstream in(g);
    for (std::string line; std::getline(in, line);) {
      if (line.find("<node id=\"v") != std::string::npos)
        vertex[id(line, "id")] = {std::stoul(data(line, "cs")), std::stoul(data(line, "tile"))};
      else if (line.find("<node id=\"r") != std::string::npos)
        tensor[id(line, "id")] = data(line, "tensor");
      else if (line.find("<edge ") != std::string::npos) {
        const bool w = data(line, "access") == "write";
        const std::string v = id(line, w ? "source" : "target"), r = id(line, w ? "target" : "source");
        ++links[{vertex.at(v).first, vertex.at(v).second, tensor.at(r), w}];
      }
    }
    EXPECT_TRUE(links == m.graph_links) << "GraphML edges to other tensors than the compiler's";
  }
  const std::string x = read_text(gexf);
  EXPECT_EQ(count(x, "<node id=\"v"), m.graph_vertices) << "GEXF vertices";
  EXPECT_EQ(count(x, "<edge "), m.graph_edges) << "GEXF edges";
  const Png p = read_png(png);
  EXPECT_EQ(p.width, 768);
  EXPECT_EQ(p.height, 768);
  EXPECT_GE(p.colours, 64u) << "the graph picture looks empty";
  EXPECT_GT(p.drawn, 0.02) << "the graph picture looks empty";
}

TEST(VizMnist, TraceAddsUpToTheRunsCycles) { check_trace(mnist(), "", 1); }
TEST(VizMnist, TraceGroupsTiles) { check_trace(mnist(), "--tiles-per-track 5", 5); }
TEST(VizMnist, ViewPictures) {
  check_trace(mnist(), "", 1);  // the run report the exchange matrix is checked against
  check_view(mnist());
}
TEST(VizMnist, GraphCountsMatchTheCompiler) { check_graph(mnist()); }
TEST(VizTrain, TraceAddsUpToTheRunsCycles) { check_trace(mlp_train(), "--program train --threads 2", 1); }
TEST(VizTrain, ViewPictures) {
  check_trace(mlp_train(), "--program train --threads 2", 1);
  check_view(mlp_train());
}
TEST(VizTrain, GraphCountsMatchTheCompiler) { check_graph(mlp_train()); }
TEST(VizTrain, LiveBytesPeakAtThePlannersTotals) { check_live_bytes(mlp_train()); }
#if TESSERA_HAVE_VLT_SMALL
// MNIST inference on the Verilated `small` machine (the model CI builds): 8 digits, one batch.
const Model& mnist_rtl() {
  static const Model m = mnist_model("mnist_rtl", 8, 1);
  return m;
}

// The compute event's cycles per (track, superstep) of a trace.
std::map<std::pair<int, size_t>, uint64_t> compute_events(const json& trace) {
  std::map<std::pair<int, size_t>, uint64_t> c;
  for (const json& e : trace["traceEvents"])
    if (e["ph"] == "X" && e["pid"] == 1 && e["cat"] == "compute")
      c[{e["tid"].get<int>(), e["args"]["superstep"].get<size_t>()}] = e["args"]["cycles"].get<uint64_t>();
  return c;
}

// The RTL's trace beside the cycle model's, for the same executable and digits: each checked
// as the emulator's is (one track per tile, phases adding up to the run's cycles), then
// compared superstep by superstep: the same barriers and words exchanged (the RTL's words are
// the flits its NIs injected, the emulator's its send lists' words); every tile's compute
// phase within 5% of the cycle model's, as the co-simulation requires of the compute phases
// (docs/machine-rtl.md, "Calibration"), after the 6 cycles the RTL takes to see an arrival
// (the SYNC store retires) that the ISS counts at its issue; and each exchange's barrier
// phase between 0.9x and 3x the model's (the RTL's mesh queues flits the model does not:
// up to 1.9x on these exchanges; host syncs are left out, the RTL's includes the host's DMA).
TEST(VizVlt, MnistTraceOfTheRtlMatchesTheCycleModel) {
  const Model& m = mnist_rtl();
  uint32_t seed = std::random_device{}();
  if (const char* e = std::getenv("VIZ_VLT_SEED")) seed = static_cast<uint32_t>(std::stoul(e));
  std::printf("viz.vlt_mnist: digits from seed %u (VIZ_VLT_SEED=%u repeats it)\n", seed, seed);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> pixel(0.0f, 1.0f);
  std::vector<float> x(8 * 784);
  for (float& v : x) v = pixel(rng);
  const fs::path xf = m.dir / "x.f32";
  std::ofstream(xf, std::ios::binary).write(reinterpret_cast<const char*>(x.data()), std::streamsize(x.size() * 4));
  const std::string input = " --input x=" + xf.string();
  TraceFiles emu, rtl;
  check_trace(m, "--device emu" + input, 1, "-emu", &emu);
  ASSERT_FALSE(HasFatalFailure());
  check_trace(m, "--device vlt" + input, 1, "-vlt", &rtl);
  ASSERT_FALSE(HasFatalFailure());
  EXPECT_EQ(rtl.trace["otherData"]["device"], "vlt");

  const json& es = emu.report["runs"][0]["superstep_profile"];
  const json& rs = rtl.report["runs"][0]["superstep_profile"];
  ASSERT_EQ(rs.size(), es.size()) << "supersteps";
  ASSERT_GT(es.size(), 2u);
  const auto ec = compute_events(emu.trace), rc = compute_events(rtl.trace);
  ASSERT_EQ(ec.size(), size_t{m.exe.tiles} * es.size());
  ASSERT_EQ(rc.size(), ec.size());
  constexpr uint64_t kPipeline = 6;
  double worst = 0;
  size_t exact = 0;
  for (size_t k = 0; k < es.size(); ++k) {
    EXPECT_EQ(rs[k]["kind"], es[k]["kind"]) << "superstep " << k;
    EXPECT_EQ(rs[k]["exchange_words"], es[k]["exchange_words"]) << "superstep " << k;
    std::printf("superstep %zu (%s, %llu words): compute emu %llu, RTL %llu; barrier emu %llu, RTL %llu\n", k,
                es[k]["kind"].get<std::string>().c_str(), es[k]["exchange_words"].get<unsigned long long>(),
                es[k]["compute_cycles"].get<unsigned long long>(), rs[k]["compute_cycles"].get<unsigned long long>(),
                es[k]["exchange_cycles"].get<unsigned long long>(), rs[k]["exchange_cycles"].get<unsigned long long>());
    if (es[k]["kind"] == "exchange") {
      const double b = rs[k]["exchange_cycles"].get<double>() / es[k]["exchange_cycles"].get<double>();
      EXPECT_GE(b, 0.9) << "superstep " << k << ": the RTL's barrier phase against the model's";
      EXPECT_LE(b, 3.0) << "superstep " << k << ": the RTL's barrier phase against the model's";
    }
    for (uint32_t t = 0; t < m.exe.tiles; ++t) {
      const uint64_t e = ec.at({int(t), k}), r = rc.at({int(t), k});
      const double err = std::abs(double(r) - double(kPipeline) - double(e)) / double(std::max<uint64_t>(e, 1));
      worst = std::max(worst, err);
      exact += r == e + kPipeline;
      EXPECT_LE(err, 0.05) << "tile " << t << " superstep " << k << ": emulator " << e << " cycles, RTL " << r
                           << " (less " << kPipeline << " of pipeline)";
    }
  }
  std::printf("per-tile compute phases, RTL less %llu cycles vs the cycle model: %zu of %zu equal, worst error %.2f%%\n",
              static_cast<unsigned long long>(kPipeline), exact, ec.size(), 100 * worst);
}
#endif

#if TESSERA_HAVE_ONNX
TEST(VizLeNet, TraceAddsUpToTheRunsCycles) { check_trace(lenet(), "", 1); }
TEST(VizLeNet, ViewPictures) {
  check_trace(lenet(), "", 1);
  check_view(lenet());
}
TEST(VizLeNet, GraphCountsMatchTheCompiler) { check_graph(lenet()); }
#endif

}  // namespace
}  // namespace tessera::testing
