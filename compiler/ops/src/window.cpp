// The window ops' lowering (window.h): each tile's share of the output, its input windows
// copied onto the tile, one vertex per contiguous block of output.
#include <map>
#include <tuple>

#include "tessera/ops/window.h"

namespace tessera::ops {

using graph::Tensor;

namespace {

uint32_t ceil_div(uint32_t a, uint32_t b) { return (a + b - 1) / b; }
uint32_t as_word(int64_t v) { return static_cast<uint32_t>(static_cast<int32_t>(v)); }

// One vertex's job: image n, output channels [m0, m1), input channels [c0, c1), output rows
// [oy0, oy1) reading input rows [r0, r1).
struct Job {
  uint32_t tile, n, m0, m1, c0, c1, oy0, oy1, r0, r1;
};

// The input rows output rows [oy0, oy1) read, clipped to the image (at least one row).
std::pair<uint32_t, uint32_t> input_rows(const WindowGeometry& geo, uint32_t oy0, uint32_t oy1) {
  const int64_t lo = int64_t(oy0) * geo.sh - geo.pt;
  const int64_t hi = int64_t(oy1 - 1) * geo.sh + int64_t(geo.kh - 1) * geo.dh - geo.pt + 1;
  int64_t r0 = std::max<int64_t>(0, lo), r1 = std::min<int64_t>(geo.h, hi);
  if (r0 >= geo.h) r0 = geo.h - 1;
  if (r1 <= r0) r1 = r0 + 1;
  return {static_cast<uint32_t>(r0), static_cast<uint32_t>(r1)};
}

// Every job of the plan. Conv: per image and group within the tile's channel block (per
// output channel too when the rows are partial, so that each output block is contiguous);
// pools and LRN: per image and channel block (per channel when the rows are partial).
std::vector<Job> jobs(WindowKind kind, const WindowGeometry& geo, uint32_t batch, const WindowPlan& p) {
  const uint32_t in = ceil_div(batch, p.pn), ic = ceil_div(geo.c_out, p.pc), is = ceil_div(geo.oh, p.ps);
  const bool conv = kind == WindowKind::kConv2d;
  const uint32_t mg = conv ? geo.c_out / geo.groups : geo.c_out, cg = conv ? geo.c_in / geo.groups : 0;
  std::vector<Job> out;
  for (uint32_t a = 0; a < p.pn; ++a)
    for (uint32_t b = 0; b < p.pc; ++b)
      for (uint32_t s = 0; s < p.ps; ++s) {
        const uint32_t tile = (a * p.pc + b) * p.ps + s;
        const uint32_t n0 = a * in, m0 = b * ic, oy0 = s * is;
        if (n0 >= batch || m0 >= geo.c_out || oy0 >= geo.oh) continue;
        const uint32_t n1 = std::min(batch, n0 + in), m1 = std::min(geo.c_out, m0 + ic), oy1 = std::min(geo.oh, oy0 + is);
        const bool whole_rows = oy0 == 0 && oy1 == geo.oh;
        // Whole output rows read the whole image (rows no window touches included), so
        // that the window is the image's contiguous block.
        const auto [r0, r1] = whole_rows ? std::pair<uint32_t, uint32_t>{0, geo.h} : input_rows(geo, oy0, oy1);
        for (uint32_t n = n0; n < n1; ++n)
          for (uint32_t ga = m0; ga < m1;) {
            const uint32_t gb = std::min(m1, (ga / mg + 1) * mg);  // the end of this group's part
            const uint32_t c0 = conv ? ga / mg * cg : 0, c1 = conv ? c0 + cg : 0;
            if (whole_rows || kind == WindowKind::kLrn) {
              out.push_back({tile, n, ga, gb, conv ? c0 : ga, conv ? c1 : gb, oy0, oy1, r0, r1});
            } else {
              for (uint32_t m = ga; m < gb; ++m)
                out.push_back({tile, n, m, m + 1, conv ? c0 : m, conv ? c1 : m + 1, oy0, oy1, r0, r1});
            }
            ga = gb;
          }
      }
  return out;
}

// Input windows and weight blocks on tiles, made once each, copied before the compute set.
class Windows {
 public:
  Windows(graph::Graph& g, const Tensor& x, const WindowGeometry& geo, const std::string& name)
      : g_(g), x_(x.flatten()), geo_(geo), name_(name) {}

  // x[n][c0:c1][r0:r1][:] contiguous on the job's tile.
  Tensor input(const Job& j) {
    const auto key = std::make_tuple(j.tile, j.n, j.c0, j.c1, j.r0, j.r1);
    if (auto it = windows_.find(key); it != windows_.end()) return it->second;
    const uint32_t plane = geo_.h * geo_.w, row = geo_.w;
    const uint32_t base = j.n * geo_.c_in * plane;
    const bool contiguous = (j.r0 == 0 && j.r1 == geo_.h) || j.c1 - j.c0 == 1;
    if (contiguous) {
      const Tensor src = x_.slice(base + j.c0 * plane + j.r0 * row, base + (j.c1 - 1) * plane + j.r1 * row);
      const std::vector<graph::Interval> iv = g_.intervals(src);
      if (iv.size() == 1 && iv[0].tile == j.tile) return windows_[key] = src;
    }
    Tensor t = g_.add_variable(exe::DType::kF32, {j.c1 - j.c0, j.r1 - j.r0, geo_.w},
                               name_ + ".window" + std::to_string(windows_.size()) + "@" + std::to_string(j.tile));
    g_.set_tile_mapping(t, j.tile);
    const Tensor flat = t.flatten();
    if (contiguous) {
      copies_.add(graph::Copy(x_.slice(base + j.c0 * plane + j.r0 * row, base + (j.c1 - 1) * plane + j.r1 * row), flat));
    } else {
      const uint32_t len = (j.r1 - j.r0) * row;
      for (uint32_t c = j.c0; c < j.c1; ++c) {
        const uint32_t from = base + c * plane + j.r0 * row, at = (c - j.c0) * len;
        copies_.add(graph::Copy(x_.slice(from, from + len), flat.slice(at, at + len)));
      }
    }
    return windows_[key] = t;
  }

  // Elements [b, e) of a weight (tensor or data) on `tile`.
  Tensor block(const Tensor& t, const std::vector<float>& values, uint32_t b, uint32_t e, uint32_t tile,
               const std::string& what) {
    const auto key = std::make_tuple(what, tile, b, e);
    if (auto it = blocks_.find(key); it != blocks_.end()) return it->second;
    if (t.valid()) {
      const Tensor src = t.flatten().slice(b, e);
      const std::vector<graph::Interval> iv = g_.intervals(src);
      if (iv.size() == 1 && iv[0].tile == tile) return blocks_[key] = src;
    }
    Tensor r = g_.add_variable(exe::DType::kF32, {e - b}, name_ + "." + what + "[" + std::to_string(b) + ":" +
                                                              std::to_string(e) + "]@" + std::to_string(tile));
    g_.set_tile_mapping(r, tile);
    if (t.valid()) copies_.add(graph::Copy(t.flatten().slice(b, e), r));
    else if (values.empty()) g_.set_initial_value(r, std::vector<float>(e - b, 0.0f));
    else g_.set_initial_value(r, std::vector<float>(values.begin() + b, values.begin() + e));
    return blocks_[key] = r;
  }

  // The copies, then the compute set. The copies go in as one nested Sequence (lowering
  // flattens it), so that the program's own list does not grow by every copy of every layer.
  void finish(graph::Program& prog, graph::ComputeSet cs) {
    copies_.body.shrink_to_fit();
    prog.add(std::move(copies_));
    prog.add(graph::Execute(cs));
  }

 private:
  graph::Graph& g_;
  const Tensor x_;
  const WindowGeometry geo_;
  const std::string name_;
  graph::Program copies_ = graph::Sequence();
  std::map<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t>, Tensor> windows_;
  std::map<std::tuple<std::string, uint32_t, uint32_t, uint32_t>, Tensor> blocks_;
};

// The output block of a job, mapped to its tile: y[n][m0:m1][oy0:oy1][:].
Tensor output_block(graph::Graph& g, const Tensor& y, const WindowGeometry& geo, const Job& j) {
  const uint32_t plane = geo.oh * geo.ow;
  const uint32_t b = (j.n * geo.c_out + j.m0) * plane + j.oy0 * geo.ow;
  const uint32_t e = (j.n * geo.c_out + j.m1 - 1) * plane + j.oy1 * geo.ow;
  const Tensor r = y.flatten().slice(b, e);
  g.set_tile_mapping(r, j.tile);
  return r;
}

// The codelets' geometry fields: conv2d has ph, pw, dh, dw; maxpool2d ph, pw; avgpool2d
// pt, pl, pb, pr.
enum class Fields { kConv, kMax, kAvg };

void set_window_fields(graph::Graph& g, graph::Vertex v, const WindowGeometry& geo, const Job& j, Fields f) {
  g.set_field(v, "h", j.r1 - j.r0);
  g.set_field(v, "wd", geo.w);
  g.set_field(v, "oh", j.oy1 - j.oy0);
  g.set_field(v, "ow", geo.ow);
  g.set_field(v, "kh", geo.kh);
  g.set_field(v, "kw", geo.kw);
  g.set_field(v, "sh", geo.sh);
  g.set_field(v, "sw", geo.sw);
  // The window's top row is input row r0; output row oy0 is the job's first.
  const int64_t top = int64_t(geo.pt) + j.r0 - int64_t(j.oy0) * geo.sh;
  if (f != Fields::kAvg) {
    g.set_field(v, "ph", as_word(top));
    g.set_field(v, "pw", geo.pl);
    if (f == Fields::kConv) {
      g.set_field(v, "dh", geo.dh);
      g.set_field(v, "dw", geo.dw);
    }
  } else {
    g.set_field(v, "pt", as_word(top));
    g.set_field(v, "pl", geo.pl);
    // The padded extent below the window: the image's bottom padding, seen from the window.
    g.set_field(v, "pb", as_word(int64_t(geo.pb) + geo.h - j.r1));
    g.set_field(v, "pr", geo.pr);
  }
}

Tensor output(graph::Graph& g, const WindowGeometry& geo, uint32_t batch, const std::string& name) {
  return g.add_variable(exe::DType::kF32, {batch, geo.c_out, geo.oh, geo.ow}, name);
}

uint32_t batch_of(const Tensor& x, const WindowGeometry& geo, const std::string& name) {
  const uint64_t per = uint64_t(geo.c_in) * geo.h * geo.w;
  if (per == 0 || x.size() % per) throw graph::GraphError("'" + name + "': " + std::to_string(x.size()) +
                                                          " input elements are no whole number of images");
  return static_cast<uint32_t>(x.size() / per);
}

Tensor pool(graph::Graph& g, graph::Program& prog, const Tensor& x, const WindowGeometry& geo, bool max,
            bool count_include_pad, const WindowPlan& plan, const std::string& name) {
  const uint32_t batch = batch_of(x, geo, name);
  const Tensor y = output(g, geo, batch, name);
  Windows win(g, x, geo, name);
  const graph::ComputeSet cs = g.add_compute_set(name);
  for (const Job& j : jobs(max ? WindowKind::kMaxPool : WindowKind::kAvgPool, geo, batch, plan)) {
    const graph::Vertex v = g.add_vertex(cs, max ? "maxpool2d" : "avgpool2d", j.tile);
    g.connect(v, "y", output_block(g, y, geo, j));
    g.connect(v, "x", win.input(j));
    g.set_field(v, "c", j.m1 - j.m0);
    set_window_fields(g, v, geo, j, max ? Fields::kMax : Fields::kAvg);
    if (!max) g.set_field(v, "count_include_pad", count_include_pad ? 1 : 0);
  }
  win.finish(prog, cs);
  return y;
}

}  // namespace

uint64_t conv_weight_bytes_per_tile(const WindowGeometry& geo, const WindowPlan& plan) {
  return uint64_t(4) * ceil_div(geo.c_out, plan.pc) * (geo.c_in / geo.groups) * geo.kh * geo.kw;
}

Tensor spread_conv_weights(graph::Graph& g, const std::vector<float>& values, const WindowGeometry& geo,
                           uint32_t batch, const WindowPlan& plan, const std::string& name) {
  const uint32_t per = geo.c_in / geo.groups * geo.kh * geo.kw;
  if (values.size() != uint64_t(geo.c_out) * per)
    throw graph::GraphError("'" + name + "': " + std::to_string(values.size()) + " weights, expected " +
                            std::to_string(uint64_t(geo.c_out) * per));
  const Tensor w = g.add_variable(exe::DType::kF32, {geo.c_out, per}, name + ".w");
  const Tensor flat = w.flatten();
  // The tiles of each of the plan's output channel blocks, in order, from its jobs. Keyed by
  // the block, not by a job's channels: with partial rows a job has one channel, and a
  // channel's weights spread over all the block's tiles would reach each of them from all
  // of them (a send-list entry per channel, source and destination).
  const uint32_t ic = ceil_div(geo.c_out, plan.pc);
  std::map<uint32_t, std::vector<uint32_t>> users;
  for (const Job& j : jobs(WindowKind::kConv2d, geo, batch, plan)) {
    std::vector<uint32_t>& u = users[j.m0 / ic];
    if (u.empty() || u.back() != j.tile) u.push_back(j.tile);
  }
  for (const auto& [block, tiles] : users) {
    const uint32_t b = block * ic * per, e = std::min(geo.c_out, (block + 1) * ic) * per;
    const uint32_t parts = static_cast<uint32_t>(tiles.size());
    for (uint32_t i = 0; i < parts; ++i) {
      const uint32_t pb = b + static_cast<uint32_t>(uint64_t(e - b) * i / parts);
      const uint32_t pe = b + static_cast<uint32_t>(uint64_t(e - b) * (i + 1) / parts);
      if (pb < pe) g.set_tile_mapping(flat.slice(pb, pe), tiles[i]);
    }
  }
  g.set_initial_value(w, values);
  return w;
}

Tensor conv2d(graph::Graph& g, graph::Program& prog, const Tensor& x, const ConvWeights& wts,
              const WindowGeometry& geo, const WindowPlan& plan, const std::string& name) {
  const uint32_t batch = batch_of(x, geo, name);
  const uint32_t cg = geo.c_in / geo.groups, per = cg * geo.kh * geo.kw;
  const Tensor y = output(g, geo, batch, name);
  Windows win(g, x, geo, name);
  const graph::ComputeSet cs = g.add_compute_set(name);
  for (const Job& j : jobs(WindowKind::kConv2d, geo, batch, plan)) {
    const graph::Vertex v = g.add_vertex(cs, "conv2d", j.tile);
    g.connect(v, "y", output_block(g, y, geo, j));
    g.connect(v, "x", win.input(j));
    g.connect(v, "w", win.block(wts.w, wts.w_values, j.m0 * per, j.m1 * per, j.tile, "w"));
    g.connect(v, "b", win.block(wts.b, wts.b_values, j.m0, j.m1, j.tile, "b"));
    g.set_field(v, "cin", cg);
    g.set_field(v, "cout", j.m1 - j.m0);
    set_window_fields(g, v, geo, j, Fields::kConv);
  }
  win.finish(prog, cs);
  return y;
}

Tensor max_pool2d(graph::Graph& g, graph::Program& prog, const Tensor& x, const WindowGeometry& geo,
                  const WindowPlan& plan, const std::string& name) {
  return pool(g, prog, x, geo, true, false, plan, name);
}

Tensor avg_pool2d(graph::Graph& g, graph::Program& prog, const Tensor& x, const WindowGeometry& geo,
                  bool count_include_pad, const WindowPlan& plan, const std::string& name) {
  return pool(g, prog, x, geo, false, count_include_pad, plan, name);
}

Tensor lrn(graph::Graph& g, graph::Program& prog, const Tensor& x, const WindowGeometry& geo, uint32_t size,
           float alpha, float beta, float bias, const WindowPlan& plan, const std::string& name) {
  if (plan.pc != 1 || plan.ps != 1) throw graph::GraphError("lrn '" + name + "': needs whole images per tile");
  const uint32_t batch = batch_of(x, geo, name);
  const Tensor y = output(g, geo, batch, name);
  Windows win(g, x, geo, name);
  const graph::ComputeSet cs = g.add_compute_set(name);
  for (const Job& j : jobs(WindowKind::kLrn, geo, batch, plan)) {
    const graph::Vertex v = g.add_vertex(cs, "lrn", j.tile);
    g.connect(v, "y", output_block(g, y, geo, j));
    g.connect(v, "x", win.input(j));
    g.set_field(v, "c", geo.c_in);
    g.set_field(v, "hw", geo.h * geo.w);
    g.set_field(v, "size", size);
    g.set_field_f32(v, "alpha", alpha);
    g.set_field_f32(v, "beta", beta);
    g.set_field_f32(v, "bias", bias);
  }
  win.finish(prog, cs);
  return y;
}

}  // namespace tessera::ops
