// Regions of tensors made available on tiles: the region itself where it lies whole on the
// tile, else a new tensor there filled by a Copy; each made once, the copies collected to
// run before the compute set that reads them.
#pragma once

#include <map>
#include <string>
#include <tuple>

#include "tessera/graph/graph.h"

namespace tessera::ops::detail {

class TileCopies {
 public:
  TileCopies(graph::Graph& g, std::string name) : g_(g), name_(std::move(name)) {}

  // `region` (a contiguous view) readable on `tile`.
  graph::Tensor on(const graph::Tensor& region, uint32_t tile) {
    const auto key = std::make_tuple(region.var, region.begin, region.end, tile);
    if (auto it = made_.find(key); it != made_.end()) return it->second;
    const std::vector<graph::Interval> iv = g_.intervals(region);
    if (iv.size() == 1 && iv[0].tile == tile) return made_[key] = region;
    graph::Tensor t = g_.add_variable(g_.variables()[region.var].dtype, {region.size()},
                                      name_ + ".in" + std::to_string(made_.size()) + "@" + std::to_string(tile));
    g_.set_tile_mapping(t, tile);
    copies_.add(graph::Copy(region, t));
    return made_[key] = t;
  }

  // The copies, then `then`.
  void finish(graph::Program& prog, graph::Program then) {
    for (graph::Program& c : copies_.body) prog.add(std::move(c));
    prog.add(std::move(then));
    copies_ = graph::Sequence();
  }

 private:
  graph::Graph& g_;
  const std::string name_;
  graph::Program copies_ = graph::Sequence();
  std::map<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>, graph::Tensor> made_;
};

}  // namespace tessera::ops::detail
