// `tessera profile`, `tessera view` and `tessera graph`: a run's timeline, the memory
// picture and the compiled graph's picture (library tessera_profile, docs/profiling.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace tessera::cli {

struct ProfileArgs {
  std::string model;
  std::string device = "emu";            // emu (ISS, cycle model) | vlt
  std::string program;                   // empty: the first
  std::string output;                    // trace.json
  std::string report;                    // the run report too (run.json)
  std::string png;                       // the timeline as a picture too
  std::vector<std::string> inputs;       // NAME=FILE for host-to-device streams (default zeros)
  uint32_t tiles_per_track = 0;          // 0: automatic
  bool all_tiles = false;                // one track per tile
  unsigned threads = 1;
  unsigned timeout_ms = 600000;
};
CLI::App* add_profile_command(CLI::App& app, ProfileArgs& args);
int profile(const ProfileArgs& args);

struct ViewArgs {
  std::string model;
  std::string output;                    // view.png | view.svg
  std::string json;                      // the same data as JSON
  std::string program;                   // the liveness of this program (default: the first)
};
CLI::App* add_view_command(CLI::App& app, ViewArgs& args);
int view(const ViewArgs& args);

struct GraphArgs {
  std::string model;
  std::vector<std::string> outputs;      // .png, .graphml, .gexf (any number)
  int size = 2048;                       // the PNG's side in pixels
  unsigned threads = 2;
};
CLI::App* add_graph_command(CLI::App& app, GraphArgs& args);
int graph(const GraphArgs& args);

}  // namespace tessera::cli
