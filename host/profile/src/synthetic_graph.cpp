// synthetic_graph: a graph the size of a big CNN's training graph, for the scale bench.
#include <algorithm>
#include <cmath>
#include <random>

#include "tessera/profile/graph_picture.h"

namespace tessera::profile {

GraphData synthetic_graph(uint64_t vertices, uint64_t edges, uint32_t layers, uint32_t tiles, uint64_t seed) {
  if (!vertices || !layers || !tiles || vertices > UINT32_MAX || edges > (uint64_t(1) << 34))
    throw ProfileError("synthetic graph: sizes out of range");
  GraphData g;
  g.tiles = tiles;
  for (uint32_t i = 0; i < layers; ++i) g.layers.push_back("layer " + std::to_string(i));
  g.layers.push_back("(other)");
  std::mt19937_64 rng(seed);
  // Layer sizes vary over two orders of magnitude (as convolutions and fully connected
  // layers do); each layer is one compute set.
  std::vector<double> weight(layers);
  for (uint32_t i = 0; i < layers; ++i) weight[i] = std::exp(std::uniform_real_distribution<double>(0, 4.6)(rng));
  double total = 0;
  for (double w : weight) total += w;
  std::vector<uint64_t> first(layers + 1, 0);
  for (uint32_t i = 0; i < layers; ++i) first[i + 1] = i + 1 == layers ? vertices : first[i] + uint64_t(vertices * weight[i] / total);
  g.vertex_tile.resize(vertices), g.vertex_cs.resize(vertices), g.vertex_layer.resize(vertices), g.vertex_codelet.resize(vertices);
  for (uint32_t layer = 0; layer < layers; ++layer)
    for (uint64_t v = first[layer]; v < first[layer + 1]; ++v) {
      g.vertex_layer[v] = layer, g.vertex_cs[v] = layer, g.vertex_codelet[v] = static_cast<uint16_t>(layer % 30);
      g.vertex_tile[v] = static_cast<uint32_t>((v - first[layer]) * tiles / std::max<uint64_t>(1, first[layer + 1] - first[layer]));
    }
  // Regions: one output region per 4 vertices of a layer (written by them), read by them and
  // (one edge in 8) by the next layer's vertices on the same tile.
  const uint64_t per_vertex = edges / vertices, extra = edges % vertices;
  g.edge_vertex.reserve(edges), g.edge_region.reserve(edges), g.edge_write.reserve(edges);
  const uint64_t regions = (vertices + 3) / 4;
  g.regions.resize(regions);
  g.region_layer.resize(regions);
  for (uint64_t r = 0; r < regions; ++r) g.region_layer[r] = g.vertex_layer[std::min(vertices - 1, r * 4)];
  std::uniform_int_distribution<uint32_t> small(0, 7);
  for (uint64_t v = 0; v < vertices; ++v) {
    const uint64_t own = v / 4, n = per_vertex + (v < extra);
    const uint32_t layer = g.vertex_layer[v];
    for (uint64_t k = 0; k < n; ++k) {
      uint64_t r = own;
      bool write = k == 0;
      if (!write) {
        if (layer > 0 && small(rng) == 0) {  // from the previous layer, same place in it
          const uint64_t a = first[layer - 1], b = first[layer];
          r = (a + (v - first[layer]) * (b - a) / std::max<uint64_t>(1, first[layer + 1] - first[layer])) / 4;
        } else {
          r = std::min(regions - 1, own + small(rng) / 2);  // neighbours' regions
        }
      }
      g.edge_vertex.push_back(static_cast<uint32_t>(v));
      g.edge_region.push_back(static_cast<uint32_t>(r));
      g.edge_write.push_back(write);
    }
  }
  return g;
}

}  // namespace tessera::profile
