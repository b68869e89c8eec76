// The window ops' gradients (window.h): per image and group or channel block, tiles taken
// in turn; weight and bias gradients summed per image part and the parts reduced.
#include <functional>

#include "tessera/ops/window.h"
#include "tile_copies.h"

namespace tessera::ops {

using graph::Tensor;

namespace {

uint32_t ceil_div(uint32_t a, uint32_t b) { return (a + b - 1) / b; }
uint32_t as_word(int64_t v) { return static_cast<uint32_t>(static_cast<int32_t>(v)); }

// Elements [b, e) of x's flattened view.
Tensor part(const Tensor& x, uint64_t b, uint64_t e) {
  return x.flatten().slice(static_cast<uint32_t>(b), static_cast<uint32_t>(e));
}

// A gradient summed over images: `blocks` output blocks ([begin, end) of `out`'s elements),
// each split over `pn` image parts on tiles block * pn + part (mod tiles). vertex(tile, n,
// block index, destination, accumulate) adds image n's share of a block. The parts' partial
// sums are added on the part-0 tile by reduce_sum.
void sum_over_images(graph::Graph& g, graph::Program& prog, const Tensor& out,
                     const std::vector<std::pair<uint32_t, uint32_t>>& blocks, uint32_t batch, const std::string& name,
                     detail::TileCopies& tc,
                     const std::function<void(graph::ComputeSet, uint32_t, uint32_t, size_t, const Tensor&, bool)>& vertex) {
  const uint32_t tiles = g.target().tiles;
  const uint32_t pn = std::max<uint32_t>(1, std::min<uint32_t>(batch, tiles / std::max<size_t>(1, blocks.size())));
  const uint32_t per = ceil_div(batch, pn);
  const graph::ComputeSet cs = g.add_compute_set(name);
  const graph::ComputeSet rs = g.add_compute_set(name + ".reduce");
  graph::Program gather = graph::Sequence();
  bool reduce = false;
  for (size_t b = 0; b < blocks.size(); ++b) {
    const auto [m0, m1] = blocks[b];
    const uint32_t len = m1 - m0;
    const uint32_t home = static_cast<uint32_t>((b * pn) % tiles);
    const Tensor dst = part(out, m0, m1);
    g.set_tile_mapping(dst, home);
    const uint32_t parts = ceil_div(batch, per);
    Tensor partials;
    if (parts > 1) {
      partials = g.add_variable(exe::DType::kF32, {parts, len}, name + ".partials" + std::to_string(b));
      g.set_tile_mapping(partials, home);
    }
    for (uint32_t p = 0; p < parts; ++p) {
      const uint32_t tile = static_cast<uint32_t>((b * pn + p) % tiles);
      Tensor target = dst;
      if (parts > 1) {
        target = g.add_variable(exe::DType::kF32, {len}, name + ".part" + std::to_string(b) + "." + std::to_string(p));
        g.set_tile_mapping(target, tile);
        gather.add(graph::Copy(target, partials.flatten().slice(p * len, (p + 1) * len)));
      }
      for (uint32_t n = p * per; n < std::min(batch, (p + 1) * per); ++n) vertex(cs, tile, n, b, target, n > p * per);
    }
    if (parts > 1) {
      const graph::Vertex v = g.add_vertex(rs, "reduce_sum", home);
      g.connect(v, "out", dst);
      g.connect(v, "in", partials.flatten());
      g.set_field(v, "n", len);
      g.set_field(v, "k", parts);
      reduce = true;
    }
  }
  tc.finish(prog, graph::Execute(cs));
  if (reduce) {
    for (graph::Program& c : gather.body) prog.add(std::move(c));
    prog.add(graph::Execute(rs));
  }
}

// Output channel blocks of a grouped op: each within one group, about `want` of them.
std::vector<std::pair<uint32_t, uint32_t>> channel_blocks(uint32_t channels, uint32_t groups, uint32_t want) {
  const uint32_t mg = channels / groups;
  const uint32_t per_group = std::max<uint32_t>(1, ceil_div(want, groups));
  const uint32_t size = ceil_div(mg, std::min(mg, per_group));
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (uint32_t gi = 0; gi < groups; ++gi)
    for (uint32_t m = gi * mg; m < (gi + 1) * mg; m += size) out.push_back({m, std::min((gi + 1) * mg, m + size)});
  return out;
}

void conv_fields(graph::Graph& g, graph::Vertex v, const WindowGeometry& geo) {
  g.set_field(v, "h", geo.h);
  g.set_field(v, "wd", geo.w);
  g.set_field(v, "oh", geo.oh);
  g.set_field(v, "ow", geo.ow);
  g.set_field(v, "kh", geo.kh);
  g.set_field(v, "kw", geo.kw);
  g.set_field(v, "sh", geo.sh);
  g.set_field(v, "sw", geo.sw);
  g.set_field(v, "ph", as_word(geo.pt));
  g.set_field(v, "pw", as_word(geo.pl));
  g.set_field(v, "dh", geo.dh);
  g.set_field(v, "dw", geo.dw);
}

// The pools' gradients: one vertex per image and channel block.
Tensor pool_grad(graph::Graph& g, graph::Program& prog, const Tensor& dy, const Tensor* x, const WindowGeometry& geo,
                 bool count_include_pad, uint32_t batch, const std::string& name) {
  const uint32_t tiles = g.target().tiles, c = geo.c_in;
  const uint32_t block = std::max<uint32_t>(1, ceil_div(batch * c, tiles));
  const Tensor dx = g.add_variable(exe::DType::kF32, {batch, c, geo.h, geo.w}, name);
  detail::TileCopies tc(g, name);
  const graph::ComputeSet cs = g.add_compute_set(name);
  const uint64_t in_plane = uint64_t(geo.h) * geo.w, out_plane = uint64_t(geo.oh) * geo.ow;
  uint32_t job = 0;
  for (uint32_t n = 0; n < batch; ++n)
    for (uint32_t c0 = 0; c0 < c; c0 += block, ++job) {
      const uint32_t c1 = std::min(c, c0 + block), tile = job % tiles;
      const uint64_t ib = (uint64_t(n) * c + c0) * in_plane, ie = (uint64_t(n) * c + c1) * in_plane;
      const uint64_t ob = (uint64_t(n) * c + c0) * out_plane, oe = (uint64_t(n) * c + c1) * out_plane;
      const Tensor dxb = part(dx, ib, ie);
      g.set_tile_mapping(dxb, tile);
      const graph::Vertex v = g.add_vertex(cs, x ? "maxpool2d_grad" : "avgpool2d_grad", tile);
      g.connect(v, "dx", dxb);
      g.connect(v, "dy", tc.on(part(dy, ob, oe), tile));
      if (x) g.connect(v, "x", tc.on(part(*x, ib, ie), tile));
      g.set_field(v, "c", c1 - c0);
      g.set_field(v, "h", geo.h);
      g.set_field(v, "wd", geo.w);
      g.set_field(v, "oh", geo.oh);
      g.set_field(v, "ow", geo.ow);
      g.set_field(v, "kh", geo.kh);
      g.set_field(v, "kw", geo.kw);
      g.set_field(v, "sh", geo.sh);
      g.set_field(v, "sw", geo.sw);
      if (x) {
        g.set_field(v, "ph", as_word(geo.pt));
        g.set_field(v, "pw", as_word(geo.pl));
      } else {
        g.set_field(v, "pt", as_word(geo.pt));
        g.set_field(v, "pl", as_word(geo.pl));
        g.set_field(v, "pb", as_word(geo.pb));
        g.set_field(v, "pr", as_word(geo.pr));
        g.set_field(v, "count_include_pad", count_include_pad ? 1 : 0);
      }
    }
  tc.finish(prog, graph::Execute(cs));
  return dx;
}

}  // namespace

Tensor conv2d_grad_input(graph::Graph& g, graph::Program& prog, const Tensor& dy, const ConvWeights& wts,
                         const WindowGeometry& geo, uint32_t batch, const std::string& name) {
  const uint32_t tiles = g.target().tiles, groups = geo.groups;
  const uint32_t cg = geo.c_in / groups, mg = geo.c_out / groups, per = cg * geo.kh * geo.kw;
  const Tensor dx = g.add_variable(exe::DType::kF32, {batch, geo.c_in, geo.h, geo.w}, name);
  detail::TileCopies tc(g, name);
  std::map<std::pair<uint32_t, uint32_t>, Tensor> wblocks;  // (group, tile) -> weights there
  const graph::ComputeSet cs = g.add_compute_set(name);
  const uint64_t in_plane = uint64_t(geo.h) * geo.w, out_plane = uint64_t(geo.oh) * geo.ow;
  for (uint32_t n = 0; n < batch; ++n)
    for (uint32_t gi = 0; gi < groups; ++gi) {
      const uint32_t tile = (n * groups + gi) % tiles;
      const Tensor dxb = part(dx, (uint64_t(n) * geo.c_in + gi * cg) * in_plane,
                              (uint64_t(n) * geo.c_in + (gi + 1) * cg) * in_plane);
      g.set_tile_mapping(dxb, tile);
      auto it = wblocks.find({gi, tile});
      if (it == wblocks.end()) {
        Tensor wb;
        if (wts.w.valid()) {
          wb = tc.on(part(wts.w, uint64_t(gi) * mg * per, uint64_t(gi + 1) * mg * per), tile);
        } else {
          wb = g.add_variable(exe::DType::kF32, {mg * per}, name + ".w" + std::to_string(gi) + "@" + std::to_string(tile));
          g.set_tile_mapping(wb, tile);
          g.set_initial_value(wb, std::vector<float>(wts.w_values.begin() + gi * mg * per,
                                                     wts.w_values.begin() + (gi + 1) * mg * per));
        }
        it = wblocks.emplace(std::make_pair(gi, tile), wb).first;
      }
      const graph::Vertex v = g.add_vertex(cs, "conv2d_grad_input", tile);
      g.connect(v, "dx", dxb);
      g.connect(v, "dy", tc.on(part(dy, (uint64_t(n) * geo.c_out + gi * mg) * out_plane,
                                    (uint64_t(n) * geo.c_out + (gi + 1) * mg) * out_plane),
                               tile));
      g.connect(v, "w", it->second);
      g.set_field(v, "cin", cg);
      g.set_field(v, "cout", mg);
      conv_fields(g, v, geo);
    }
  tc.finish(prog, graph::Execute(cs));
  return dx;
}

Tensor conv2d_grad_weight(graph::Graph& g, graph::Program& prog, const Tensor& x, const Tensor& dy,
                          const WindowGeometry& geo, uint32_t batch, const std::string& name) {
  const uint32_t cg = geo.c_in / geo.groups, mg = geo.c_out / geo.groups, per = cg * geo.kh * geo.kw;
  const Tensor dw = g.add_variable(exe::DType::kF32, {geo.c_out, cg, geo.kh, geo.kw}, name);
  const auto blocks = channel_blocks(geo.c_out, geo.groups, std::min(geo.c_out, g.target().tiles));
  std::vector<std::pair<uint32_t, uint32_t>> ranges;
  for (const auto& [m0, m1] : blocks) ranges.push_back({m0 * per, m1 * per});
  const uint64_t in_plane = uint64_t(geo.h) * geo.w, out_plane = uint64_t(geo.oh) * geo.ow;
  detail::TileCopies tc(g, name);
  sum_over_images(g, prog, dw, ranges, batch, name, tc,
                  [&](graph::ComputeSet cs, uint32_t tile, uint32_t n, size_t b, const Tensor& dst, bool acc) {
                    const auto [m0, m1] = blocks[b];
                    const uint32_t gi = m0 / mg;
                    const graph::Vertex v = g.add_vertex(cs, "conv2d_grad_weight", tile);
                    g.connect(v, "dweight", dst);
                    g.connect(v, "x", tc.on(part(x, (uint64_t(n) * geo.c_in + gi * cg) * in_plane,
                                                 (uint64_t(n) * geo.c_in + (gi + 1) * cg) * in_plane),
                                            tile));
                    g.connect(v, "dy", tc.on(part(dy, (uint64_t(n) * geo.c_out + m0) * out_plane,
                                                  (uint64_t(n) * geo.c_out + m1) * out_plane),
                                             tile));
                    g.set_field(v, "cin", cg);
                    g.set_field(v, "cout", m1 - m0);
                    conv_fields(g, v, geo);
                    g.set_field(v, "accumulate", acc ? 1 : 0);
                  });
  return dw;
}

Tensor channel_sum(graph::Graph& g, graph::Program& prog, const Tensor& dy, uint32_t channels, uint32_t hw,
                   uint32_t batch, const std::string& name) {
  const Tensor out = g.add_variable(exe::DType::kF32, {channels}, name);
  const auto blocks = channel_blocks(channels, 1, std::min(channels, g.target().tiles));
  detail::TileCopies tc(g, name);
  sum_over_images(g, prog, out, blocks, batch, name, tc,
                  [&](graph::ComputeSet cs, uint32_t tile, uint32_t n, size_t b, const Tensor& dst, bool acc) {
                    const auto [c0, c1] = blocks[b];
                    const graph::Vertex v = g.add_vertex(cs, "channel_sum", tile);
                    g.connect(v, "out", dst);
                    g.connect(v, "src", tc.on(part(dy, (uint64_t(n) * channels + c0) * hw,
                                                   (uint64_t(n) * channels + c1) * hw),
                                              tile));
                    g.set_field(v, "c", c1 - c0);
                    g.set_field(v, "hw", hw);
                    g.set_field(v, "accumulate", acc ? 1 : 0);
                  });
  return out;
}

Tensor max_pool2d_grad(graph::Graph& g, graph::Program& prog, const Tensor& dy, const Tensor& x,
                       const WindowGeometry& geo, uint32_t batch, const std::string& name) {
  return pool_grad(g, prog, dy, &x, geo, false, batch, name);
}

Tensor avg_pool2d_grad(graph::Graph& g, graph::Program& prog, const Tensor& dy, const WindowGeometry& geo,
                       bool count_include_pad, uint32_t batch, const std::string& name) {
  return pool_grad(g, prog, dy, nullptr, geo, count_include_pad, batch, name);
}

}  // namespace tessera::ops
