// render_graph_png: every edge rasterised additively (each thread its own float buffer,
// summed at the end), vertices as brighter dots, tone mapped onto black; cairo writes the
// layers' names and the PNG.
#include <cairo.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <thread>

#include "tessera/profile/colours.h"
#include "tessera/profile/graph_picture.h"

namespace tessera::profile {

namespace {

struct Accum {
  int n;
  std::vector<float> rgb;  // 3 floats per pixel: summed colour
  std::vector<float> hits; // summed weight
  explicit Accum(int size) : n(size), rgb(size_t(size) * size * 3, 0.f), hits(size_t(size) * size, 0.f) {}
  void plot(int x, int y, const Rgb& c, float w) {
    if (unsigned(x) >= unsigned(n) || unsigned(y) >= unsigned(n)) return;
    const size_t i = size_t(y) * n + x;
    rgb[3 * i] += float(c.r) * w, rgb[3 * i + 1] += float(c.g) * w, rgb[3 * i + 2] += float(c.b) * w;
    hits[i] += w;
  }
  // A line of total weight about 1 per pixel step (DDA).
  void line(float x0, float y0, float x1, float y1, const Rgb& c, float w) {
    const float dx = x1 - x0, dy = y1 - y0;
    const int steps = std::max(1, static_cast<int>(std::max(std::fabs(dx), std::fabs(dy))));
    const float sx = dx / steps, sy = dy / steps;
    float x = x0, y = y0;
    for (int k = 0; k <= steps; ++k, x += sx, y += sy) plot(static_cast<int>(x), static_cast<int>(y), c, w);
  }
};

}  // namespace

uint64_t render_graph_png(const GraphData& g, const Layout& l, const std::string& path, const RenderOptions& o) {
  if (o.size < 64 || o.size > 16384) throw ProfileError("picture size " + std::to_string(o.size) + " outside 64..16384");
  const int n = o.size;
  const float scale = static_cast<float>(n);
  std::vector<Rgb> colours(g.layers.size());
  for (size_t i = 0; i < colours.size(); ++i) colours[i] = layer_colour(static_cast<uint32_t>(i));
  const unsigned threads = std::max(1u, o.threads);
  std::vector<std::unique_ptr<Accum>> acc;
  for (unsigned t = 0; t < threads; ++t) acc.push_back(std::make_unique<Accum>(n));
  const size_t E = g.edge_count(), V = g.vertex_count();
  {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        Accum& a = *acc[t];
        for (size_t i = E * t / threads; i < E * (t + 1) / threads; ++i) {
          const uint32_t v = g.edge_vertex[i], r = g.edge_region[i];
          a.line(l.vx[v] * scale, l.vy[v] * scale, l.rx[r] * scale, l.ry[r] * scale, colours[g.vertex_layer[v]], 1.f);
        }
        for (size_t v = V * t / threads; v < V * (t + 1) / threads; ++v)
          a.plot(static_cast<int>(l.vx[v] * scale), static_cast<int>(l.vy[v] * scale), colours[g.vertex_layer[v]], 4.f);
      });
    for (auto& th : pool) th.join();
  }
  Accum& a = *acc[0];
  for (unsigned t = 1; t < threads; ++t) {
    for (size_t i = 0; i < a.rgb.size(); ++i) a.rgb[i] += acc[t]->rgb[i];
    for (size_t i = 0; i < a.hits.size(); ++i) a.hits[i] += acc[t]->hits[i];
    acc[t].reset();
  }
  // Tone map: the mean colour of what crossed a pixel, brightness 1 - exp(-hits / k), with k
  // from the busy pixels so that dense and sparse graphs both show.
  std::vector<float> nz;
  for (size_t i = 0; i < a.hits.size(); i += 7)
    if (a.hits[i] > 0) nz.push_back(a.hits[i]);
  float k = 1;
  if (!nz.empty()) {
    std::nth_element(nz.begin(), nz.begin() + nz.size() * 3 / 4, nz.end());
    k = std::max(0.5f, nz[nz.size() * 3 / 4]);
  }
  cairo_surface_t* s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, n, n);
  std::unique_ptr<cairo_surface_t, void (*)(cairo_surface_t*)> guard(s, cairo_surface_destroy);
  if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) throw ProfileError("cannot make a " + std::to_string(n) + "^2 picture");
  cairo_surface_flush(s);
  unsigned char* px = cairo_image_surface_get_data(s);
  const int stride = cairo_image_surface_get_stride(s);
  uint64_t lit = 0;
  for (int y = 0; y < n; ++y) {
    uint32_t* row = reinterpret_cast<uint32_t*>(px + size_t(y) * stride);
    for (int x = 0; x < n; ++x) {
      const size_t i = size_t(y) * n + x;
      const float h = a.hits[i];
      if (h <= 0) {
        row[x] = 0x000000u;
        continue;
      }
      ++lit;
      const float b = 1.f - std::exp(-h / k) * 0.85f;
      auto ch = [&](int c) { return static_cast<uint32_t>(std::clamp(a.rgb[3 * i + c] / h * b * 255.f, 0.f, 255.f)); };
      row[x] = ch(0) << 16 | ch(1) << 8 | ch(2);
    }
  }
  cairo_surface_mark_dirty(s);
  cairo_t* c = cairo_create(s);
  cairo_select_font_face(c, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
  const double fs = std::max(10.0, n / 120.0);
  cairo_set_font_size(c, fs);
  // Layer names, the biggest layers first; a name that would overlap one already written
  // is left out (the GraphML and GEXF have every layer).
  std::vector<size_t> order;
  for (size_t i = 0; i < g.layers.size(); ++i)
    if (l.lr[i] > 0) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return l.lr[a] > l.lr[b]; });
  struct Box {
    double x0, y0, x1, y1;
  };
  std::vector<Box> placed;
  for (size_t i : order) {
    cairo_text_extents_t ext;
    cairo_text_extents(c, g.layers[i].c_str(), &ext);
    const double x = l.lx[i] * n - ext.width / 2, y = (l.ly[i] - l.lr[i]) * n - fs * 0.3;
    const Box b{x - 2, y - ext.height - 2, x + ext.width + 2, y + 4};
    bool clash = false;
    for (const Box& o : placed) clash = clash || !(b.x1 < o.x0 || o.x1 < b.x0 || b.y1 < o.y0 || o.y1 < b.y0);
    if (clash) continue;
    placed.push_back(b);
    cairo_set_source_rgb(c, 1, 1, 1);
    cairo_move_to(c, x, y);
    cairo_show_text(c, g.layers[i].c_str());
  }
  if (!o.title.empty()) {
    cairo_set_source_rgb(c, 0.85, 0.85, 0.85);
    cairo_move_to(c, fs, fs * 1.5);
    cairo_show_text(c, o.title.c_str());
  }
  const cairo_status_t st = cairo_status(c);
  cairo_destroy(c);
  if (st != CAIRO_STATUS_SUCCESS) throw ProfileError(std::string("drawing the graph failed: ") + cairo_status_to_string(st));
  const cairo_status_t w = cairo_surface_write_to_png(s, path.c_str());
  if (w != CAIRO_STATUS_SUCCESS) throw ProfileError("'" + path + "': " + cairo_status_to_string(w));
  return lit;
}

}  // namespace tessera::profile
