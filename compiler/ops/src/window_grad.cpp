// The window ops' gradients (window.h), tiles taken in turn: conv2d's input gradient per
// image, group, input channel block and dx row block (planned within a budget); weight and
// bias gradients summed per image part (or, for images too big for a tile, per channel
// blocks and parts of the dy rows) and the parts reduced; the pools' per image and channel
// block.
#include <algorithm>
#include <functional>
#include <map>
#include <tuple>

#include "tessera/ops/window.h"
#include "reduce_vertex.h"
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
      detail::add_reduce_sum(g, rs, home, dst, partials.flatten(), parts);
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

namespace {

// conv2d_grad_input's split of one image and group: input channel blocks of `cb`, dx row
// blocks of `rows` and dy channel blocks of `mb`, one vertex each. With mb below the group's
// dy channels, each vertex sums a part of the dy channels and the parts' partial dx blocks are
// added on the first part's tile.
struct GradInputSplit {
  uint32_t cb = 1, rows = 1, mb = 1;
};

// The dy rows [o0, o1) whose taps reach dx rows [r0, r1) (clipped to dy's rows).
std::pair<uint32_t, uint32_t> dy_rows(const WindowGeometry& geo, uint32_t r0, uint32_t r1) {
  const int64_t reach = int64_t(geo.kh - 1) * geo.dh, ph = geo.pt;
  int64_t lo = int64_t(r0) + ph - reach;
  lo = lo <= 0 ? 0 : (lo + geo.sh - 1) / geo.sh;
  const int64_t hi = std::min<int64_t>(geo.oh, (int64_t(r1) - 1 + ph) / geo.sh + 1);
  if (hi <= lo) {  // no dy row reaches the block: one row, whose taps miss it (dx = 0)
    const int64_t r = std::min<int64_t>(lo, geo.oh - 1);
    return {uint32_t(r), uint32_t(r + 1)};
  }
  return {uint32_t(lo), uint32_t(hi)};
}

// The split with the least estimated work per vertex (its multiply-adds, the words it reads
// and, split over dy channels, the partials its first tile adds), among those whose vertices
// fit `budget` bytes and number at most the tiles; the whole image and group per vertex when
// the images and groups alone fill the tiles.
GradInputSplit plan_grad_input(const WindowGeometry& geo, uint32_t batch, uint32_t tiles, double budget) {
  const uint32_t cg = geo.c_in / geo.groups, mg = geo.c_out / geo.groups, kk = geo.kh * geo.kw;
  GradInputSplit whole{cg, geo.h, mg};
  const uint64_t images = uint64_t(batch) * geo.groups;
  if (images >= tiles) return whole;
  GradInputSplit best = whole, smallest = whole;
  double best_cost = -1, least_bytes = -1;
  for (uint32_t ps = 1; ps <= geo.h; ++ps) {
    const uint32_t rows = ceil_div(geo.h, ps);
    if (ps > 1 && ceil_div(geo.h, ps - 1) == rows) continue;
    if (images * ps > tiles) break;
    uint32_t win = 0;
    for (uint32_t r0 = 0; r0 < geo.h; r0 += rows) {
      const auto [o0, o1] = dy_rows(geo, r0, std::min(geo.h, r0 + rows));
      win = std::max(win, o1 - o0);
    }
    for (uint32_t pc = 1; pc <= cg; ++pc) {
      const uint32_t cb = ceil_div(cg, pc);
      if (pc > 1 && ceil_div(cg, pc - 1) == cb) continue;
      if (images * ps * pc > tiles) break;
      for (uint32_t pm = 1; pm <= mg; ++pm) {
        const uint32_t mb = ceil_div(mg, pm);
        if (pm > 1 && ceil_div(mg, pm - 1) == mb) continue;
        if (images * ps * pc * pm > tiles) break;
        const double len = double(cb) * rows * geo.w;
        const double words_in = double(mb) * win * geo.ow + double(mb) * cb * kk;
        const double partials = pm > 1 ? double(pm) * len : 0;
        const double bytes = 4 * (words_in + len + partials);
        const double macs = len * mb * kk / (double(geo.sh) * geo.sw);
        const double cost = macs + words_in + 2 * partials;
        if (least_bytes < 0 || bytes < least_bytes) least_bytes = bytes, smallest = {cb, rows, mb};
        if ((budget <= 0 || bytes <= budget) && (best_cost < 0 || cost < best_cost))
          best_cost = cost, best = {cb, rows, mb};
      }
    }
  }
  return best_cost < 0 ? smallest : best;
}

}  // namespace

Tensor conv2d_grad_input(graph::Graph& g, graph::Program& prog, const Tensor& dy, const ConvWeights& wts,
                         const WindowGeometry& geo, uint32_t batch, const std::string& name, double budget) {
  const uint32_t tiles = g.target().tiles, groups = geo.groups;
  const uint32_t cg = geo.c_in / groups, mg = geo.c_out / groups, kk = geo.kh * geo.kw;
  const GradInputSplit split = plan_grad_input(geo, batch, tiles, budget);
  const Tensor dx = g.add_variable(exe::DType::kF32, {batch, geo.c_in, geo.h, geo.w}, name);
  detail::TileCopies tc(g, name);
  graph::Program gathers = graph::Sequence(), sums = graph::Sequence(), scatters = graph::Sequence();
  // (group, channel block, dy channel block) -> its weights [mb, cb, kh, kw] on their first
  // tile (constant weights: on each tile), and (image, group, row block, dy channel block) ->
  // its dy window [mb, rows, ow] on its first tile.
  std::map<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>, Tensor> wblocks;
  std::map<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>, Tensor> windows;
  const uint32_t parts = ceil_div(mg, split.mb);
  const graph::ComputeSet cs = g.add_compute_set(name);
  const graph::ComputeSet rs = parts > 1 ? g.add_compute_set(name + ".reduce") : graph::ComputeSet{};
  const uint64_t in_plane = uint64_t(geo.h) * geo.w, out_plane = uint64_t(geo.oh) * geo.ow;
  uint32_t job = 0;
  for (uint32_t n = 0; n < batch; ++n)
    for (uint32_t gi = 0; gi < groups; ++gi)
      for (uint32_t c0 = 0; c0 < cg; c0 += split.cb)
        for (uint32_t r0 = 0; r0 < geo.h; r0 += split.rows, job += parts) {
          const uint32_t home = job % tiles, c1 = std::min(cg, c0 + split.cb), cb = c1 - c0;
          const uint32_t r1 = std::min(geo.h, r0 + split.rows), len = cb * (r1 - r0) * geo.w;
          // The block of dx: a slice of dx when whole planes, else a tile's temporary copied
          // into dx (mapped there too) channel by channel after the compute set.
          Tensor dxb;
          const uint64_t dx0 = (uint64_t(n) * geo.c_in + gi * cg + c0) * in_plane;
          if (r0 == 0 && r1 == geo.h) {
            dxb = part(dx, dx0, dx0 + uint64_t(cb) * in_plane);
            g.set_tile_mapping(dxb, home);
          } else {
            dxb = g.add_variable(exe::DType::kF32, {len}, name + ".dx" + std::to_string(job) + "@" + std::to_string(home));
            g.set_tile_mapping(dxb, home);
            const uint32_t row_len = (r1 - r0) * geo.w;
            for (uint32_t c = 0; c < cb; ++c) {
              const uint64_t dst = dx0 + c * in_plane + uint64_t(r0) * geo.w;
              g.set_tile_mapping(part(dx, dst, dst + row_len), home);
              scatters.add(graph::Copy(dxb.slice(c * row_len, (c + 1) * row_len), part(dx, dst, dst + row_len)));
            }
          }
          // Split over dy channels: each part's partial dx block, summed into dxb on `home`.
          Tensor partials;
          if (parts > 1) {
            partials = g.add_variable(exe::DType::kF32, {parts, len}, name + ".partials" + std::to_string(job));
            g.set_tile_mapping(partials, home);
            detail::add_reduce_sum(g, rs, home, dxb.flatten(), partials.flatten(), parts);
          }
          const auto [o0, o1] = dy_rows(geo, r0, r1);
          for (uint32_t p = 0; p < parts; ++p) {
            const uint32_t tile = (job + p) % tiles, m0 = p * split.mb, m1 = std::min(mg, m0 + split.mb), mb = m1 - m0;
            const std::string key = std::to_string(gi) + "." + std::to_string(c0) + "." + std::to_string(m0);
            // The block's weights [mb, cb, kh, kw]: rows of w when every input channel.
            Tensor wb;
            auto wit = wblocks.find({gi, c0, m0, wts.w.valid() ? 0 : tile});
            if (wit != wblocks.end()) {
              wb = wit->second;
            } else if (wts.w.valid() && cb == cg) {
              wb = part(wts.w, uint64_t(gi * mg + m0) * cg * kk, uint64_t(gi * mg + m1) * cg * kk);
            } else {
              Tensor t = g.add_variable(exe::DType::kF32, {mb * cb * kk},
                                        name + ".w" + key + (wts.w.valid() ? "" : "@" + std::to_string(tile)));
              g.set_tile_mapping(t, tile);
              std::vector<float> v;
              for (uint32_t m = m0; m < m1; ++m) {
                const uint64_t src = (uint64_t(gi * mg + m) * cg + c0) * kk;
                if (wts.w.valid())
                  gathers.add(graph::Copy(part(wts.w, src, src + uint64_t(cb) * kk),
                                          t.slice((m - m0) * cb * kk, (m - m0 + 1) * cb * kk)));
                else
                  v.insert(v.end(), wts.w_values.begin() + src, wts.w_values.begin() + src + size_t(cb) * kk);
              }
              if (!wts.w.valid()) g.set_initial_value(t, v);
              wb = wblocks.emplace(std::make_tuple(gi, c0, m0, wts.w.valid() ? 0 : tile), t).first->second;
            }
            // The dy rows that reach the block, the part's dy channels.
            const uint64_t dy0 = (uint64_t(n) * geo.c_out + gi * mg + m0) * out_plane;
            Tensor win;
            if (o0 == 0 && o1 == geo.oh) {
              win = part(dy, dy0, dy0 + uint64_t(mb) * out_plane);
            } else {
              auto it = windows.find({n, gi, r0, m0});
              if (it == windows.end()) {
                const uint32_t wrows = (o1 - o0) * geo.ow;
                Tensor t = g.add_variable(exe::DType::kF32, {mb * wrows},
                                          name + ".dy" + std::to_string(n) + "." + std::to_string(gi) + "." +
                                              std::to_string(r0) + "." + std::to_string(m0));
                g.set_tile_mapping(t, tile);
                for (uint32_t m = 0; m < mb; ++m) {
                  const uint64_t src = dy0 + m * out_plane + uint64_t(o0) * geo.ow;
                  gathers.add(graph::Copy(part(dy, src, src + wrows), t.slice(m * wrows, (m + 1) * wrows)));
                }
                it = windows.emplace(std::make_tuple(n, gi, r0, m0), t).first;
              }
              win = it->second;
            }
            // The part's output: dxb itself, else its row of the partials (the first on
            // `home`, the others on their tile, copied there after the compute set).
            Tensor out = dxb;
            if (parts > 1) {
              out = partials.flatten().slice(p * len, (p + 1) * len);
              if (p > 0) {
                const Tensor own = g.add_variable(exe::DType::kF32, {len}, name + ".part" + std::to_string(job) + "." +
                                                                               std::to_string(p) + "@" +
                                                                               std::to_string(tile));
                g.set_tile_mapping(own, tile);
                sums.add(graph::Copy(own, out));
                out = own;
              }
            }
            const graph::Vertex v = g.add_vertex(cs, "conv2d_grad_input", tile);
            g.connect(v, "dx", out);
            g.connect(v, "dy", tc.on(win, tile));
            g.connect(v, "w", wts.w.valid() ? tc.on(wb, tile) : wb);
            g.set_field(v, "cin", cb);
            g.set_field(v, "cout", mb);
            WindowGeometry local = geo;
            local.h = r1 - r0;
            local.oh = o1 - o0;
            local.pt = 0;
            conv_fields(g, v, local);
            g.set_field(v, "ph", as_word(int64_t(geo.pt) + r0 - int64_t(o0) * geo.sh));
          }
        }
  for (graph::Program& c : gathers.body) prog.add(std::move(c));
  tc.finish(prog, graph::Execute(cs));
  if (parts > 1) {
    for (graph::Program& c : sums.body) prog.add(std::move(c));
    prog.add(graph::Execute(rs));
  }
  for (graph::Program& c : scatters.body) prog.add(std::move(c));
  return dx;
}

namespace {

// conv2d_grad_weight's split when one image's x does not fit: blocks of cb input and mb
// output channels, each image's dy rows in parts of `rows`; one vertex per (block, image,
// part), the parts' partial sums reduced on the block's first tile.
struct GradWeightSplit {
  uint32_t cb = 1, mb = 1, rows = 1;
};

// x's rows [x0, x1) that dy rows [o0, o1) read (clipped to x).
std::pair<uint32_t, uint32_t> x_rows(const WindowGeometry& geo, uint32_t o0, uint32_t o1) {
  const int64_t lo = int64_t(o0) * geo.sh - geo.pt;
  const int64_t hi = int64_t(o1 - 1) * geo.sh + int64_t(geo.kh - 1) * geo.dh - geo.pt + 1;
  const int64_t a = std::clamp<int64_t>(lo, 0, geo.h - 1);
  return {uint32_t(a), uint32_t(std::clamp<int64_t>(hi, a + 1, geo.h))};
}

uint32_t x_window(const WindowGeometry& geo, uint32_t rows) {
  uint32_t win = 0;
  for (uint32_t o0 = 0; o0 < geo.oh; o0 += rows) {
    const auto [a, b] = x_rows(geo, o0, std::min(geo.oh, o0 + rows));
    win = std::max(win, b - a);
  }
  return win;
}

// The split with the least estimated work per vertex (multiply-adds, words read, the
// reduction's words) among those within the tiles whose x window and partial sums each
// take at most a quarter of `budget` and a vertex's operands half; else the one whose
// largest of those is least.
GradWeightSplit plan_grad_weight(const WindowGeometry& geo, uint32_t batch, uint32_t tiles, double budget) {
  const uint32_t cg = geo.c_in / geo.groups, mg = geo.c_out / geo.groups, kk = geo.kh * geo.kw;
  GradWeightSplit best, least;
  double best_cost = -1, least_over = -1;
  for (uint32_t q = 1; q <= geo.oh; ++q) {
    const uint32_t rows = ceil_div(geo.oh, q);
    if (q > 1 && ceil_div(geo.oh, q - 1) == rows) continue;
    const uint32_t parts = batch * ceil_div(geo.oh, rows), win = x_window(geo, rows);
    for (uint32_t pc = 1; pc <= cg; ++pc) {
      const uint32_t cb = ceil_div(cg, pc);
      if (pc > 1 && ceil_div(cg, pc - 1) == cb) continue;
      for (uint32_t pm = 1; pm <= mg; ++pm) {
        const uint32_t mb = ceil_div(mg, pm);
        if (pm > 1 && ceil_div(mg, pm - 1) == mb) continue;
        const uint64_t jobs = uint64_t(geo.groups) * ceil_div(cg, cb) * ceil_div(mg, mb) * parts;
        if (jobs > tiles) break;
        const double block = double(mb) * cb * kk;
        const double xb = 4.0 * cb * win * geo.w, pb = 4.0 * (parts + 1) * block;
        const double vb = xb + 4.0 * (double(mb) * rows * geo.ow + block);
        const double over = std::max({xb / (budget / 4), pb / (budget / 4), vb / (budget / 2)});
        const double cost = block * rows * geo.ow + double(cb) * win * geo.w + double(mb) * rows * geo.ow +
                            parts * block;
        if (least_over < 0 || over < least_over) least_over = over, least = {cb, mb, rows};
        if (over <= 1 && (best_cost < 0 || cost < best_cost)) best_cost = cost, best = {cb, mb, rows};
      }
    }
  }
  return best_cost < 0 ? least : best;
}

Tensor conv2d_grad_weight_split(graph::Graph& g, graph::Program& prog, const Tensor& x, const Tensor& dy,
                                const WindowGeometry& geo, uint32_t batch, const std::string& name, double budget) {
  const uint32_t cg = geo.c_in / geo.groups, mg = geo.c_out / geo.groups, kk = geo.kh * geo.kw;
  const uint32_t tiles = g.target().tiles;
  const GradWeightSplit sp = plan_grad_weight(geo, batch, tiles, budget);
  const Tensor dw = g.add_variable(exe::DType::kF32, {geo.c_out, cg, geo.kh, geo.kw}, name);
  const uint64_t in_plane = uint64_t(geo.h) * geo.w, out_plane = uint64_t(geo.oh) * geo.ow;
  detail::TileCopies tc(g, name);
  graph::Program gathers = graph::Sequence(), partial_copies = graph::Sequence(), scatters = graph::Sequence();
  const graph::ComputeSet cs = g.add_compute_set(name);
  const graph::ComputeSet rs = g.add_compute_set(name + ".reduce");
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, Tensor> xwins, dywins;  // (image, channel, row) -> rows
  // The rows [r0, r1) of `channels` channels of image n of t (planes of `plane`, rows of
  // `width`), from channel c0: a tensor on `tile` made once per key.
  auto window = [&](std::map<std::tuple<uint32_t, uint32_t, uint32_t>, Tensor>& made, const Tensor& t,
                    uint32_t cs_total, uint32_t n, uint32_t c0, uint32_t channels, uint32_t r0, uint32_t r1,
                    uint32_t width, uint64_t plane, uint32_t full_rows, uint32_t tile, const char* what) {
    const uint64_t base = (uint64_t(n) * cs_total + c0) * plane;
    if (r0 == 0 && r1 == full_rows) return tc.on(part(t, base, base + uint64_t(channels) * plane), tile);
    auto it = made.find({n, c0, r0});
    if (it == made.end()) {
      const uint32_t len = (r1 - r0) * width;
      Tensor w = g.add_variable(exe::DType::kF32, {channels * len},
                                name + "." + what + std::to_string(n) + "." + std::to_string(c0) + "." +
                                    std::to_string(r0));
      g.set_tile_mapping(w, tile);
      for (uint32_t c = 0; c < channels; ++c) {
        const uint64_t src = base + c * plane + uint64_t(r0) * width;
        gathers.add(graph::Copy(part(t, src, src + len), w.slice(c * len, (c + 1) * len)));
      }
      it = made.emplace(std::make_tuple(n, c0, r0), w).first;
    }
    return tc.on(it->second, tile);
  };
  uint32_t job = 0, block_id = 0;
  bool reduce = false;
  const uint32_t parts = batch * ceil_div(geo.oh, sp.rows);
  for (uint32_t gi = 0; gi < geo.groups; ++gi)
    for (uint32_t c0 = 0; c0 < cg; c0 += sp.cb)
      for (uint32_t m0 = 0; m0 < mg; m0 += sp.mb, ++block_id) {
        const uint32_t cb = std::min(cg, c0 + sp.cb) - c0, mb = std::min(mg, m0 + sp.mb) - m0;
        const uint32_t len = mb * cb * kk, home = job % tiles;
        // The block's sum: dw's slice when whole input channels, else a temporary on home
        // copied into dw (mapped there) channel by channel.
        Tensor sum;
        const uint64_t dw0 = uint64_t(gi * mg + m0) * cg * kk;
        if (cb == cg) {
          sum = part(dw, dw0, dw0 + len);
          g.set_tile_mapping(sum, home);
        } else {
          sum = g.add_variable(exe::DType::kF32, {len}, name + ".block" + std::to_string(block_id));
          g.set_tile_mapping(sum, home);
          for (uint32_t m = 0; m < mb; ++m) {
            const uint64_t dst = dw0 + (uint64_t(m) * cg + c0) * kk;
            g.set_tile_mapping(part(dw, dst, dst + cb * kk), home);
            scatters.add(graph::Copy(sum.slice(m * cb * kk, (m + 1) * cb * kk), part(dw, dst, dst + cb * kk)));
          }
        }
        Tensor partials;
        if (parts > 1) {
          partials = g.add_variable(exe::DType::kF32, {parts, len}, name + ".partials" + std::to_string(block_id));
          g.set_tile_mapping(partials, home);
        }
        uint32_t p = 0;
        for (uint32_t n = 0; n < batch; ++n)
          for (uint32_t o0 = 0; o0 < geo.oh; o0 += sp.rows, ++p, ++job) {
            const uint32_t tile = job % tiles, o1 = std::min(geo.oh, o0 + sp.rows);
            const auto [x0, x1] = x_rows(geo, o0, o1);
            Tensor target = sum;
            if (parts > 1) {
              target = g.add_variable(exe::DType::kF32, {len},
                                      name + ".part" + std::to_string(block_id) + "." + std::to_string(p));
              g.set_tile_mapping(target, tile);
              partial_copies.add(graph::Copy(target, partials.flatten().slice(p * len, (p + 1) * len)));
            }
            const graph::Vertex v = g.add_vertex(cs, "conv2d_grad_weight", tile);
            g.connect(v, "dweight", target);
            g.connect(v, "x", window(xwins, x, geo.c_in, n, gi * cg + c0, cb, x0, x1, geo.w, in_plane, geo.h, tile, "x"));
            g.connect(v, "dy", window(dywins, dy, geo.c_out, n, gi * mg + m0, mb, o0, o1, geo.ow, out_plane, geo.oh,
                                      tile, "dy"));
            g.set_field(v, "cin", cb);
            g.set_field(v, "cout", mb);
            WindowGeometry local = geo;
            local.h = x1 - x0;
            local.oh = o1 - o0;
            conv_fields(g, v, local);
            g.set_field(v, "ph", as_word(int64_t(geo.pt) + x0 - int64_t(o0) * geo.sh));
            g.set_field(v, "accumulate", 0);
          }
        if (parts > 1) {
          detail::add_reduce_sum(g, rs, home, sum, partials.flatten(), parts);
          reduce = true;
        }
      }
  for (graph::Program& c : gathers.body) prog.add(std::move(c));
  tc.finish(prog, graph::Execute(cs));
  if (reduce) {
    for (graph::Program& c : partial_copies.body) prog.add(std::move(c));
    prog.add(graph::Execute(rs));
  }
  for (graph::Program& c : scatters.body) prog.add(std::move(c));
  return dw;
}

}  // namespace

Tensor conv2d_grad_weight(graph::Graph& g, graph::Program& prog, const Tensor& x, const Tensor& dy,
                          const WindowGeometry& geo, uint32_t batch, const std::string& name, double budget) {
  const uint32_t cg = geo.c_in / geo.groups, mg = geo.c_out / geo.groups, per = cg * geo.kh * geo.kw;
  // One image's x (a group's channels) in more than a quarter of the budget: split.
  if (budget > 0 && 4.0 * cg * geo.h * geo.w > budget / 4)
    return conv2d_grad_weight_split(g, prog, x, dy, geo, batch, name, budget);
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
