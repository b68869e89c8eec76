// layout_graph: a force layout of the layer graph, then every vertex on its layer's
// sunflower spiral and every region at the mean of its vertices (graph_picture.h).
#include <algorithm>
#include <cmath>
#include <map>

#include "tessera/profile/graph_picture.h"

namespace tessera::profile {

namespace {

// Disks of radius r, pulled by springs along the weighted layer edges to just touching
// (a heavier edge pulls harder), pushed apart when nearer than a little more than touching,
// drawn weakly to the centre; then every overlap removed. Deterministic.
void force_layout(std::vector<double>& x, std::vector<double>& y, const std::vector<double>& r,
                  const std::map<std::pair<uint32_t, uint32_t>, double>& w) {
  const size_t n = x.size();
  double wmax = 1;
  for (const auto& [ab, weight] : w) wmax = std::max(wmax, weight);
  std::vector<double> dx(n), dy(n);
  const double rmax = n ? *std::max_element(r.begin(), r.end()) : 1;
  double step = rmax;
  for (int it = 0; it < 600; ++it) {
    std::fill(dx.begin(), dx.end(), 0), std::fill(dy.begin(), dy.end(), 0);
    for (size_t i = 0; i < n; ++i)
      for (size_t j = i + 1; j < n; ++j) {
        const double ex = x[i] - x[j], ey = y[i] - y[j], d = std::max(1e-9, std::hypot(ex, ey));
        const double room = (r[i] + r[j]) * 1.6;
        if (d >= room) continue;
        const double f = (room - d) * 0.25;
        dx[i] += ex / d * f, dy[i] += ey / d * f, dx[j] -= ex / d * f, dy[j] -= ey / d * f;
      }
    for (const auto& [ab, weight] : w) {
      const auto [a, b] = ab;
      const double ex = x[a] - x[b], ey = y[a] - y[b], d = std::max(1e-9, std::hypot(ex, ey));
      const double target = (r[a] + r[b]) * 1.2;
      if (d <= target) continue;
      const double f = (d - target) * (0.05 + 0.25 * std::log1p(weight) / std::log1p(wmax));
      dx[a] -= ex / d * f, dy[a] -= ey / d * f, dx[b] += ex / d * f, dy[b] += ey / d * f;
    }
    double cx = 0, cy = 0;
    for (size_t i = 0; i < n; ++i) cx += x[i] / n, cy += y[i] / n;
    for (size_t i = 0; i < n; ++i) {
      // Each disk moves at most `step` per round (many overlapping neighbours would
      // otherwise add up to an overshoot that grows every round).
      const double mx = dx[i] - (x[i] - cx) * 0.02, my = dy[i] - (y[i] - cy) * 0.02, m = std::hypot(mx, my);
      const double k = m > step ? step / m : 1;
      x[i] += mx * k, y[i] += my * k;
    }
    step = std::max(step * 0.993, rmax * 0.01);
  }
  for (int it = 0; it < 500; ++it) {  // no two disks overlap
    bool moved = false;
    for (size_t i = 0; i < n; ++i)
      for (size_t j = i + 1; j < n; ++j) {
        const double ex = x[i] - x[j], ey = y[i] - y[j], d = std::hypot(ex, ey), want = (r[i] + r[j]) * 1.08;
        if (d >= want) continue;
        const double ux = d > 1e-9 ? ex / d : std::cos(double(i + j)), uy = d > 1e-9 ? ey / d : std::sin(double(i + j));
        const double push = (want - d) / 2 + 1e-9;
        x[i] += ux * push, y[i] += uy * push, x[j] -= ux * push, y[j] -= uy * push;
        moved = true;
      }
    if (!moved) break;
  }
}

}  // namespace

Layout layout_graph(const GraphData& g) {
  const size_t L = g.layers.size(), V = g.vertex_count(), R = g.regions.size();
  Layout l;
  std::vector<uint64_t> vcount(L, 0), rcount(L, 0);
  for (uint32_t layer : g.vertex_layer) ++vcount[layer];
  for (uint32_t layer : g.region_layer) ++rcount[layer < L ? layer : L - 1];
  // The layer graph: region writer's layer -> reading vertex's layer.
  std::map<std::pair<uint32_t, uint32_t>, double> w;
  for (size_t i = 0; i < g.edge_count(); ++i) {
    if (g.edge_write[i]) continue;
    const uint32_t a = g.region_layer[g.edge_region[i]], b = g.vertex_layer[g.edge_vertex[i]];
    if (a != b && a < L) w[{std::min(a, b), std::max(a, b)}] += 1;
  }
  // Layers with nothing in them get no disk.
  std::vector<uint32_t> used;
  for (uint32_t i = 0; i < L; ++i)
    if (vcount[i] + rcount[i]) used.push_back(i);
  std::vector<uint32_t> index(L, UINT32_MAX);
  for (uint32_t k = 0; k < used.size(); ++k) index[used[k]] = k;
  std::vector<double> x(used.size()), y(used.size()), r(used.size());
  for (size_t k = 0; k < used.size(); ++k) {
    const double a = 2 * M_PI * k / std::max<size_t>(used.size(), 1);
    r[k] = std::sqrt(double(vcount[used[k]] + rcount[used[k]]));
    x[k] = std::cos(a) * std::sqrt(double(V + R)) * 1.5, y[k] = std::sin(a) * std::sqrt(double(V + R)) * 1.5;
  }
  std::map<std::pair<uint32_t, uint32_t>, double> wu;
  for (const auto& [ab, weight] : w)
    if (index[ab.first] != UINT32_MAX && index[ab.second] != UINT32_MAX) wu[{index[ab.first], index[ab.second]}] = weight;
  force_layout(x, y, r, wu);
  // Normalise into [0.04, 0.96]^2.
  double x0 = 1e300, x1 = -1e300, y0 = 1e300, y1 = -1e300;
  for (size_t k = 0; k < used.size(); ++k)
    x0 = std::min(x0, x[k] - r[k]), x1 = std::max(x1, x[k] + r[k]), y0 = std::min(y0, y[k] - r[k]), y1 = std::max(y1, y[k] + r[k]);
  const double span = std::max({x1 - x0, y1 - y0, 1e-9}), s = 0.92 / span;
  const double ox = 0.04 + (0.92 - (x1 - x0) * s) / 2, oy = 0.04 + (0.92 - (y1 - y0) * s) / 2;
  l.lx.assign(L, 0.5f), l.ly.assign(L, 0.5f), l.lr.assign(L, 0.f);
  for (size_t k = 0; k < used.size(); ++k) {
    l.lx[used[k]] = static_cast<float>(ox + (x[k] - x0) * s);
    l.ly[used[k]] = static_cast<float>(oy + (y[k] - y0) * s);
    l.lr[used[k]] = static_cast<float>(r[k] * s);
  }
  // Vertices on their layer's spiral in tile order (the vertices come in compute-set, tile
  // order; a counting sort by tile within each layer keeps it linear). Point i of n sits at
  // radius R sqrt(i / n), angle sqrt(4 pi i): an Archimedean spiral with its points and its
  // turns equally spaced, so the disk is evenly filled and neighbours in tile order (which
  // share regions) are neighbours in the picture.
  l.vx.resize(V), l.vy.resize(V);
  {
    // counts per (layer, tile) -> the position of each vertex within its layer
    std::vector<uint64_t> base(L * size_t(g.tiles + 1), 0);
    for (size_t v = 0; v < V; ++v) ++base[size_t(g.vertex_layer[v]) * (g.tiles + 1) + g.vertex_tile[v] + 1];
    for (size_t layer = 0; layer < L; ++layer)
      for (uint32_t t = 0; t < g.tiles; ++t) base[layer * (g.tiles + 1) + t + 1] += base[layer * (g.tiles + 1) + t];
    for (size_t v = 0; v < V; ++v) {
      const uint32_t layer = g.vertex_layer[v];
      const uint64_t i = base[size_t(layer) * (g.tiles + 1) + g.vertex_tile[v]]++;
      const double n = double(vcount[layer] + rcount[layer]);
      const double rad = l.lr[layer] * std::sqrt((i + 0.5) / n), a = std::sqrt(4 * M_PI * (i + 0.5));
      l.vx[v] = static_cast<float>(l.lx[layer] + rad * std::cos(a));
      l.vy[v] = static_cast<float>(l.ly[layer] + rad * std::sin(a));
    }
  }
  // Regions at the mean of their writers in the region's layer (its first writer's), else of
  // their readers: a region sits in the layer that makes it, and the layers that read it or
  // update it in place reach over to it.
  std::vector<double> sx(R, 0), sy(R, 0);
  std::vector<uint32_t> sn(R, 0);
  for (size_t i = 0; i < g.edge_count(); ++i)
    if (g.edge_write[i] && g.vertex_layer[g.edge_vertex[i]] == g.region_layer[g.edge_region[i]]) {
      const uint32_t r = g.edge_region[i], v = g.edge_vertex[i];
      sx[r] += l.vx[v], sy[r] += l.vy[v], ++sn[r];
    }
  std::vector<bool> written(R);
  for (size_t r = 0; r < R; ++r) written[r] = sn[r] > 0;
  for (size_t i = 0; i < g.edge_count(); ++i)
    if (!g.edge_write[i] && !written[g.edge_region[i]]) {
      const uint32_t r = g.edge_region[i], v = g.edge_vertex[i];
      sx[r] += l.vx[v], sy[r] += l.vy[v], ++sn[r];
    }
  l.rx.resize(R), l.ry.resize(R);
  for (size_t r = 0; r < R; ++r) {
    const uint32_t layer = std::min<uint32_t>(g.region_layer[r], static_cast<uint32_t>(L - 1));
    l.rx[r] = sn[r] ? static_cast<float>(sx[r] / sn[r]) : l.lx[layer];
    l.ry[r] = sn[r] ? static_cast<float>(sy[r] / sn[r]) : l.ly[layer];
  }
  return l;
}

}  // namespace tessera::profile
