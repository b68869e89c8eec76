// `tessera view`: the memory view of an executable as PNG or SVG, and as JSON.
#include <CLI/CLI.hpp>
#include <fstream>
#include <stdexcept>

#include "cli.h"
#include "inspect.h"
#include "paths.h"
#include "tessera/exe/file.h"
#include "tessera/profile/connections.h"
#include "tessera/profile/view.h"

namespace tessera::cli {

CLI::App* add_view_command(CLI::App& app, ViewArgs& a) {
  CLI::App* c = app.add_subcommand("view", "draw an executable's memory per tile, bytes live per superstep and exchange matrix");
  c->add_option("model", a.model, "the executable (.tsx)")->required();
  c->add_option("--program", a.program, "the program whose supersteps the liveness follows (default: the first)");
  c->add_option("--json", a.json, "also write the data as JSON");
  c->add_option("-o,--output", a.output, "the picture to write (.png or .svg)")->required();
  return c;
}

int view(const ViewArgs& a) {
  check_input_file(a.model, "view");
  const bool png = a.output.ends_with(".png"), svg = a.output.ends_with(".svg");
  if (!png && !svg) throw std::runtime_error("-o '" + a.output + "': the picture must be .png or .svg");
  check_output_file(a.output, "-o");
  if (!a.json.empty()) check_output_file(a.json, "--json");
  note("reading " + a.model);
  const exe::Executable e = exe::read_file(a.model);
  const profile::ExeImage image(e);
  const profile::GraphData g = profile::read_graph(image);
  const profile::ViewData v = profile::make_view(image, g, a.program);
  const auto [w, h] = profile::draw_view(v, a.output);
  note("wrote " + a.output + " (" + std::to_string(w) + " x " + std::to_string(h) + ")");
  if (!a.json.empty()) {
    std::ofstream f(a.json);
    if (!f) throw std::runtime_error("cannot open '" + a.json + "' for writing");
    profile::write_view_json(f, v);
    if (!f.flush()) throw std::runtime_error("writing '" + a.json + "' failed");
    note("wrote " + a.json);
  }
  return 0;
}

}  // namespace tessera::cli
