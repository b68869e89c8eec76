// `tessera graph`: the compiled graph (vertices on their tiles, edges to the tensor regions
// they read and write) as a PNG clustered by layer, GraphML or GEXF; prints its counts.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "cli.h"
#include "inspect.h"
#include "paths.h"
#include "tessera/exe/file.h"
#include "tessera/profile/connections.h"
#include "tessera/profile/graph_picture.h"

namespace tessera::cli {

CLI::App* add_graph_command(CLI::App& app, GraphArgs& a) {
  CLI::App* c = app.add_subcommand("graph", "draw the compiled graph clustered by layer (.png) or write it (.graphml, .gexf)");
  c->add_option("model", a.model, "the executable (.tsx)")->required();
  c->add_option("-o,--output", a.outputs, "files to write: .png, .graphml or .gexf (repeat for several)")->required();
  c->add_option("--size", a.size, "the PNG's side in pixels")->check(CLI::Range(64, 16384));
  c->add_option("--threads", a.threads, "threads drawing the edges")->check(CLI::Range(1u, 64u));
  return c;
}

int graph(const GraphArgs& a) {
  check_input_file(a.model, "graph");
  for (const std::string& o : a.outputs) {
    if (!o.ends_with(".png") && !o.ends_with(".graphml") && !o.ends_with(".gexf"))
      throw std::runtime_error("-o '" + o + "': expected .png, .graphml or .gexf");
    check_output_file(o, "-o");
  }
  note("reading " + a.model);
  const exe::Executable e = exe::read_file(a.model);
  const profile::ExeImage image(e);
  const profile::GraphData g = profile::read_graph(image);
  std::printf("%s: %zu vertices, %zu edges, %zu tensor regions, %zu layers on %u tiles\n", a.model.c_str(), g.vertex_count(),
              g.edge_count(), g.regions.size(), g.layers.size() - 1, e.tiles);
  if (g.unresolved)
    note(std::to_string(g.unresolved) + " vertex pointers lie in no tensor (scratch or tables): no edge drawn for them");
  const profile::Layout l = profile::layout_graph(g);
  for (const std::string& o : a.outputs) {
    if (o.ends_with(".png")) {
      profile::RenderOptions ro;
      ro.size = a.size, ro.threads = a.threads;
      ro.title = e.target + ": " + std::to_string(g.vertex_count()) + " vertices, " + std::to_string(g.edge_count()) + " edges";
      profile::render_graph_png(g, l, o, ro);
    } else {
      std::ofstream f(o);
      if (!f) throw std::runtime_error("cannot open '" + o + "' for writing");
      if (o.ends_with(".graphml")) profile::write_graphml(f, g, l, e);
      else profile::write_gexf(f, g, l, e);
      if (!f.flush()) throw std::runtime_error("writing '" + o + "' failed");
    }
    note("wrote " + o);
  }
  return 0;
}

}  // namespace tessera::cli
