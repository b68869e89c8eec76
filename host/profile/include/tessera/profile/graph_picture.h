// The compiled graph's picture and its files for Gephi and Cytoscape (docs/profiling.md).
//
// Layout, in two levels, linear in the graph's size:
//  1. the layer graph (one node per layer, sized by its vertices and regions; an edge
//     weighted by the regions one layer writes and another reads) is laid out by a force
//     layout (Fruchterman-Reingold with disk overlap removal), deterministically;
//  2. each layer's vertices fill its disk along an evenly spaced spiral in tile order, so a
//     layer's tiles form bands and vertices that share regions sit close; each tensor
//     region sits at the mean of its writers in its own layer (else of its readers), and
//     the layers that read it reach over to it.
// Edges are rasterised with additive blending into a float buffer (two threads), tone
// mapped, then cairo adds the layers' names and writes the PNG.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "tessera/profile/connections.h"

namespace tessera::profile {

struct Layout {
  std::vector<float> vx, vy;        // per vertex, in [0, 1]
  std::vector<float> rx, ry;        // per region
  std::vector<float> lx, ly, lr;    // per layer: centre and radius
};

Layout layout_graph(const GraphData& g);

struct RenderOptions {
  int size = 2048;                 // the PNG is size x size pixels
  unsigned threads = 2;
  std::string title;
};

// Draws `g` laid out by `l` into a PNG at `path`; returns the pixels drawn by edges (for a
// test to see the picture is not empty).
uint64_t render_graph_png(const GraphData& g, const Layout& l, const std::string& path, const RenderOptions& o);

// GraphML and GEXF (1.3 with viz positions and colours): vertices "v<i>" (kind vertex:
// tile, compute set, codelet, layer), regions "r<i>" (kind region: tensor, tile, offset,
// count, layer), edges vertex -> region for writes and region -> vertex for reads.
void write_graphml(std::ostream& out, const GraphData& g, const Layout& l, const exe::Executable& e);
void write_gexf(std::ostream& out, const GraphData& g, const Layout& l, const exe::Executable& e);

// A graph with `vertices` vertices and `edges` edges, shaped like a CNN's training graph on
// `tiles` tiles: `layers` layers of varied size, each vertex reading and writing regions on
// its tile, some read from the layer before (for the scale bench). Seeded.
GraphData synthetic_graph(uint64_t vertices, uint64_t edges, uint32_t layers, uint32_t tiles, uint64_t seed);

}  // namespace tessera::profile
