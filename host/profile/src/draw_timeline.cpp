// draw_timeline_png: the run's timeline as a picture, from walk_timeline.
#include <cairo.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <set>

#include "tessera/profile/colours.h"
#include "tessera/profile/timeline.h"

namespace tessera::profile {

void draw_timeline_png(const ExeImage& image, const exe::Program& program,
                       const std::vector<runtime::SuperstepCycles>& cycles, uint32_t group, uint32_t clock_mhz,
                       const std::string& path, const std::string& device) {
  const exe::Executable& e = image.exe();
  uint64_t total = 0;
  for (const auto& s : cycles) total += s.compute_cycles + s.exchange_cycles;
  const uint32_t tracks = (e.tiles + std::max(1u, group) - 1) / std::max(1u, group);
  const double row = std::clamp(640.0 / std::max(1u, tracks), 6.0, 16.0);
  const double x0 = 120, top = 40, width = 1400, plot = width - x0 - 20;
  const int height = static_cast<int>(top + row * (tracks + 1.5) + 90);
  cairo_surface_t* surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, static_cast<int>(width), height);
  std::unique_ptr<cairo_surface_t, void (*)(cairo_surface_t*)> guard(surface, cairo_surface_destroy);
  cairo_t* c = cairo_create(surface);
  cairo_set_source_rgb(c, 1, 1, 1);
  cairo_paint(c);
  cairo_select_font_face(c, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  auto x_of = [&](uint64_t cyc) { return x0 + plot * (total ? double(cyc) / total : 0); };
  auto box = [&](uint64_t from, uint64_t len, double y, double h, Rgb col) {
    if (!len) return;
    cairo_set_source_rgb(c, col.r, col.g, col.b);
    cairo_rectangle(c, x_of(from), y, std::max(0.5, x_of(from + len) - x_of(from)), h);
    cairo_fill(c);
  };
  const Rgb wait{0.88, 0.88, 0.88}, xchg{0.1, 0.1, 0.4}, sync{0.35, 0.35, 0.35}, host{0.95, 0.55, 0.1};
  std::set<uint32_t> layers;
  const TimelineTracks tt = walk_timeline(image, program, cycles, group, [&](const TimelineTracks& t, const TimelineStep& s) {
    const uint64_t at = s.start + s.compute;
    if (s.stream) box(at, std::max<uint64_t>(s.exchange, total / 2000), top, row - 1, host);
    for (uint32_t tr = 0; tr < t.tracks; ++tr) {
      const double y = top + row * (tr + 1.5);
      const uint32_t layer = s.track_layer[tr];
      if (layer != UINT32_MAX) layers.insert(layer);
      box(s.start, s.track_compute[tr], y, row - 1, layer == UINT32_MAX ? Rgb{0.6, 0.6, 0.6} : layer_colour(layer));
      box(s.start + s.track_compute[tr], s.compute - s.track_compute[tr], y, row - 1, wait);
      box(at, s.exchange, y, row - 1, s.barrier == StepPlan::kExchange ? xchg : s.barrier == StepPlan::kHostSync ? host : sync);
    }
  });
  cairo_set_source_rgb(c, 0, 0, 0);
  cairo_set_font_size(c, 14);
  char title[256];
  const std::string on = device.empty() ? "" : " on " + device;
  std::snprintf(title, sizeof title, "%s, program '%s'%s: %zu supersteps, %llu cycles (%.1f us at %u MHz)",
                e.target.c_str(), program.name.c_str(), on.c_str(), cycles.size(), static_cast<unsigned long long>(total),
                clock_mhz ? double(total) / clock_mhz : 0.0, clock_mhz);
  cairo_move_to(c, 10, 22);
  cairo_show_text(c, title);
  cairo_set_font_size(c, std::min(11.0, row));
  cairo_move_to(c, 10, top + row - 2);
  cairo_show_text(c, "host");
  const uint32_t every = std::max(1u, static_cast<uint32_t>(12 / row));
  for (uint32_t tr = 0; tr < tt.tracks; tr += every) {
    cairo_move_to(c, 10, top + row * (tr + 2.5) - 2);
    cairo_show_text(c, tt.names[tr].c_str());
  }
  // Legend: the phases, then the layers seen.
  double lx = 10, ly = top + row * (tt.tracks + 1.5) + 24;
  cairo_set_font_size(c, 11);
  auto item = [&](const std::string& name, Rgb col) {
    const double w = 18 + 6.5 * name.size();
    if (lx + w > width - 10) lx = 10, ly += 16;
    cairo_set_source_rgb(c, col.r, col.g, col.b);
    cairo_rectangle(c, lx, ly - 9, 10, 10);
    cairo_fill(c);
    cairo_set_source_rgb(c, 0, 0, 0);
    cairo_move_to(c, lx + 13, ly);
    cairo_show_text(c, name.c_str());
    lx += w;
  };
  item("wait for barrier", wait), item("exchange", xchg), item("sync", sync), item("host sync", host);
  for (uint32_t l : layers)
    if (l < e.layer_names.size()) item(e.layer_names[l], layer_colour(l));
  const cairo_status_t st = cairo_status(c);
  cairo_destroy(c);
  if (st != CAIRO_STATUS_SUCCESS) throw ProfileError(std::string("drawing the timeline failed: ") + cairo_status_to_string(st));
  const cairo_status_t w = cairo_surface_write_to_png(surface, path.c_str());
  if (w != CAIRO_STATUS_SUCCESS) throw ProfileError("'" + path + "': " + cairo_status_to_string(w));
}

}  // namespace tessera::profile
