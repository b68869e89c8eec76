// The memory view of an executable: per tile its bytes by category (code, stack, control,
// vertex state, send lists, landing, then tensors split by layer), the bytes live at each
// superstep of a program, and the bytes each group of tiles sends to each other group; as
// JSON, and drawn with cairo as PNG or SVG (docs/profiling.md).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "tessera/profile/connections.h"
#include "tessera/profile/exe_image.h"

namespace tessera::profile {

struct ViewData {
  std::string target, program;
  uint32_t tiles = 0, mesh_cols = 0, mesh_rows = 0, sram_bytes = 0;
  std::vector<std::string> categories;           // code .. landing (fixed), then "tensors"
  std::vector<std::vector<uint32_t>> category;   // [tile][category], from the compiler's plan
  std::vector<std::string> layers;
  std::vector<std::vector<uint64_t>> tensor_layer_bytes;  // [tile][layer]: tensor intervals by layer
  // Per superstep of `program`: bytes live over all tiles and on the fullest tile: the
  // fixed categories (code .. landing) plus the tensor intervals live then by the memory
  // planner's live ranges (exe::LiveRange; the most at any planner step of the superstep).
  std::vector<uint64_t> live_total, live_max_tile;
  // Per tile: the most bytes live at any of the program's planner steps (both branches of
  // each If, which the supersteps follow only one of). Over all programs, the most of each
  // tile's is its planned total (the sum of its categories).
  std::vector<uint64_t> live_peak_tile;
  uint32_t planner_steps = 0;                    // the program's steps in the planner's numbering
  uint32_t groups = 0;                           // the exchange matrix is groups x groups
  std::vector<uint64_t> exchange;                // [src group * groups + dst group] bytes per run
};

// `program` empty: the first. `max_steps` bounds the supersteps walked.
ViewData make_view(const ExeImage& image, const GraphData& graph, const std::string& program, size_t max_steps = 1u << 16);
void write_view_json(std::ostream& out, const ViewData& v);
// Draws the view into `path` (.png or .svg; anything else is a ProfileError).
// Returns {width, height} in pixels (points for SVG).
std::pair<int, int> draw_view(const ViewData& v, const std::string& path);

}  // namespace tessera::profile
