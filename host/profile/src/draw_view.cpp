// draw_view: the memory view drawn with cairo (PNG or SVG). Three panels: the tile grid
// (each tile a stacked bar of its SRAM by category, tensors by layer, on the mesh's
// layout), the bytes live per superstep, and the exchange matrix between tile groups.
#include <cairo-svg.h>
#include <cairo.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include "tessera/profile/colours.h"
#include "tessera/profile/view.h"

namespace tessera::profile {

namespace {

constexpr int kW = 1400, kH = 900;

void colour(cairo_t* c, Rgb x) { cairo_set_source_rgb(c, x.r, x.g, x.b); }

void text(cairo_t* c, double x, double y, const std::string& s, double size = 12) {
  cairo_set_font_size(c, size);
  cairo_move_to(c, x, y);
  cairo_show_text(c, s.c_str());
}

std::string kib(uint64_t b) {
  char s[32];
  if (b >= (10u << 20)) std::snprintf(s, sizeof s, "%.1f MiB", b / 1048576.0);
  else std::snprintf(s, sizeof s, "%.1f KiB", b / 1024.0);
  return s;
}

void tile_grid(cairo_t* c, const ViewData& v, double x0, double y0, double w, double h) {
  colour(c, {0, 0, 0});
  text(c, x0, y0 - 8, "memory per tile (" + v.target + ", " + std::to_string(v.tiles) + " tiles of " + kib(v.sram_bytes) + ")", 14);
  const uint32_t cols = std::max(1u, v.mesh_cols), rows = std::max(1u, (v.tiles + cols - 1) / cols);
  const double cw = w / cols, ch = h / rows, gap = std::min(cw, ch) > 12 ? 2 : 0;
  for (uint32_t t = 0; t < v.tiles; ++t) {
    const double x = x0 + (t % cols) * cw, y = y0 + (t / cols) * ch;
    cairo_rectangle(c, x, y, cw - gap, ch - gap);
    cairo_set_source_rgb(c, 0.93, 0.93, 0.93);
    cairo_fill(c);
    double used = 0;  // bytes stacked so far, from the bottom
    auto stack = [&](uint64_t bytes, Rgb col) {
      if (!bytes) return;
      const double bh = (ch - gap) * std::min(1.0, double(bytes) / v.sram_bytes);
      const double top = y + (ch - gap) - (ch - gap) * std::min(1.0, used / v.sram_bytes) - bh;
      cairo_rectangle(c, x, std::max(y, top), cw - gap, bh);
      colour(c, col);
      cairo_fill(c);
      used += bytes;
    };
    for (int k = 0; k < 6; ++k) stack(v.category[t][k], category_colour(k));
    // Tensors by layer (the planner may alias tensors, so scale to what it planned).
    uint64_t sum = 0;
    for (uint64_t b : v.tensor_layer_bytes[t]) sum += b;
    const double scale = sum ? double(v.category[t][6]) / sum : 0;
    for (size_t l = 0; l < v.layers.size(); ++l)
      stack(static_cast<uint64_t>(v.tensor_layer_bytes[t][l] * scale), layer_colour(static_cast<uint32_t>(l)));
    if (cw > 40 && ch > 30) {
      cairo_set_source_rgb(c, 0, 0, 0);
      text(c, x + 3, y + 12, std::to_string(t) + ": " + std::to_string(static_cast<int>(100 * used / v.sram_bytes)) + "%", 10);
    }
  }
}

void live_chart(cairo_t* c, const ViewData& v, double x0, double y0, double w, double h) {
  colour(c, {0, 0, 0});
  text(c, x0, y0 - 8, "bytes live per superstep of '" + v.program + "' (blue: fullest tile, of " + kib(v.sram_bytes) + ")", 14);
  cairo_set_line_width(c, 1);
  cairo_rectangle(c, x0, y0, w, h);
  cairo_stroke(c);
  const size_t n = v.live_max_tile.size();
  if (!n) return;
  const double top = std::max<double>(v.sram_bytes, *std::max_element(v.live_max_tile.begin(), v.live_max_tile.end()));
  cairo_set_source_rgb(c, 0.2, 0.35, 0.8);
  cairo_set_line_width(c, 1.5);
  for (size_t k = 0; k < n; ++k) {
    const double x = x0 + w * (n == 1 ? 0.5 : double(k) / (n - 1)), y = y0 + h - h * v.live_max_tile[k] / top;
    k ? cairo_line_to(c, x, y) : cairo_move_to(c, x, y);
  }
  cairo_stroke(c);
  colour(c, {0.3, 0.3, 0.3});
  text(c, x0 + 4, y0 + 14, "peak " + kib(*std::max_element(v.live_max_tile.begin(), v.live_max_tile.end())) +
                               " on one tile, " + kib(*std::max_element(v.live_total.begin(), v.live_total.end())) +
                               " over all; " + std::to_string(n) + " supersteps", 11);
}

void exchange_matrix(cairo_t* c, const ViewData& v, double x0, double y0, double size) {
  colour(c, {0, 0, 0});
  const uint32_t per = v.groups ? (v.tiles + v.groups - 1) / v.groups : 1;
  text(c, x0, y0 - 8, "bytes exchanged per run, sender row to receiver column (" + std::to_string(v.groups) + " groups" +
                          (per > 1 ? " of " + std::to_string(per) + " tiles" : "") + ")", 14);
  if (!v.groups) return;
  const uint64_t top = *std::max_element(v.exchange.begin(), v.exchange.end());
  const double cell = size / v.groups;
  for (uint32_t a = 0; a < v.groups; ++a)
    for (uint32_t b = 0; b < v.groups; ++b) {
      const uint64_t x = v.exchange[size_t(a) * v.groups + b];
      const double f = x && top ? std::sqrt(double(x) / double(top)) : 0;
      cairo_set_source_rgb(c, 1 - 0.9 * f, 1 - 0.6 * f, 1 - 0.2 * f);
      cairo_rectangle(c, x0 + b * cell, y0 + a * cell, cell, cell);
      cairo_fill(c);
    }
  cairo_set_source_rgb(c, 0, 0, 0);
  cairo_rectangle(c, x0, y0, size, size);
  cairo_stroke(c);
  text(c, x0 + size + 6, y0 + 12, "max " + kib(top), 11);
}

void legend(cairo_t* c, const ViewData& v, double x0, double y0, double w) {
  double x = x0, y = y0;
  auto item = [&](const std::string& name, Rgb col) {
    const double tw = 16 + 7.0 * name.size();
    if (x + tw > x0 + w) x = x0, y += 16;
    colour(c, col);
    cairo_rectangle(c, x, y - 9, 10, 10);
    cairo_fill(c);
    cairo_set_source_rgb(c, 0, 0, 0);
    text(c, x + 13, y, name, 11);
    x += tw;
  };
  for (int k = 0; k < 6; ++k) item(v.categories[k], category_colour(k));
  for (size_t l = 0; l < v.layers.size() && l < 60; ++l) item(v.layers[l], layer_colour(static_cast<uint32_t>(l)));
}

void draw(cairo_t* c, const ViewData& v) {
  cairo_set_source_rgb(c, 1, 1, 1);
  cairo_paint(c);
  cairo_select_font_face(c, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  tile_grid(c, v, 20, 40, 640, 700);
  live_chart(c, v, 720, 40, 660, 240);
  exchange_matrix(c, v, 720, 340, 400);
  legend(c, v, 20, 780, kW - 40);
}

}  // namespace

std::pair<int, int> draw_view(const ViewData& v, const std::string& path) {
  const bool svg = path.size() > 4 && path.compare(path.size() - 4, 4, ".svg") == 0;
  const bool png = path.size() > 4 && path.compare(path.size() - 4, 4, ".png") == 0;
  if (!svg && !png) throw ProfileError("'" + path + "': the picture must be .png or .svg");
  cairo_surface_t* s = svg ? cairo_svg_surface_create(path.c_str(), kW, kH)
                           : cairo_image_surface_create(CAIRO_FORMAT_RGB24, kW, kH);
  std::unique_ptr<cairo_surface_t, void (*)(cairo_surface_t*)> guard(s, cairo_surface_destroy);
  if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS)
    throw ProfileError("'" + path + "': " + cairo_status_to_string(cairo_surface_status(s)));
  cairo_t* c = cairo_create(s);
  draw(c, v);
  const cairo_status_t st = cairo_status(c);
  cairo_destroy(c);
  if (st != CAIRO_STATUS_SUCCESS) throw ProfileError("'" + path + "': drawing failed: " + cairo_status_to_string(st));
  if (png) {
    const cairo_status_t w = cairo_surface_write_to_png(s, path.c_str());
    if (w != CAIRO_STATUS_SUCCESS) throw ProfileError("'" + path + "': " + cairo_status_to_string(w));
  }
  cairo_surface_finish(s);
  if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS)
    throw ProfileError("'" + path + "': " + cairo_status_to_string(cairo_surface_status(s)));
  return {kW, kH};
}

}  // namespace tessera::profile
