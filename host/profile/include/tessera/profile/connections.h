// The compiled graph as flat arrays: every vertex of every tile (from the tile tables, in
// (compute set, tile, position) order) with its tile, compute set, codelet and layer, and
// an edge for every pointer field of its state (the codelet's signature says which words
// are tile addresses, and `const` ones are only read) to the tensor region (one interval of
// one tensor) that holds the address and is live, by the planner's live ranges
// (exe::LiveRange), at the step where the vertex's compute set runs. No per-vertex objects: a graph of 10^7 vertices and
// 10^8 edges is a few arrays.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/profile/exe_image.h"

namespace tessera::profile {

struct Region {
  uint32_t tensor = 0, interval = 0;  // exe.tensors[tensor].intervals[interval]
};

struct GraphData {
  std::vector<std::string> layers;     // the executable's layer names, then "(other)"
  uint32_t tiles = 0;
  // Vertices.
  std::vector<uint32_t> vertex_tile, vertex_cs, vertex_layer;
  std::vector<uint16_t> vertex_codelet;
  // Regions (only those some vertex touches), and the layer each is drawn with (its first
  // writer's, else its first reader's).
  std::vector<Region> regions;
  std::vector<uint32_t> region_layer;
  // Edges: vertex -> region (write) or region -> vertex (read).
  std::vector<uint32_t> edge_vertex, edge_region;
  std::vector<uint8_t> edge_write;
  uint64_t unresolved = 0;  // pointer fields that point into no tensor (scratch, tables)

  size_t vertex_count() const { return vertex_tile.size(); }
  size_t edge_count() const { return edge_vertex.size(); }
};

// Reads the graph of `image`'s executable (every compute set, every tile).
GraphData read_graph(const ExeImage& image);

// Per codelet index, per state word: 0 a value, 1 a pointer read, 2 a pointer written
// (from the firmware's codelet signatures).
const std::vector<std::vector<uint8_t>>& codelet_fields();
// The codelet's name, or "codelet N".
std::string codelet_name(uint32_t codelet);

}  // namespace tessera::profile
