// The window ops' lowering (window.h): each tile's share of the output, its input windows
// copied onto the tile, one vertex per contiguous block of output.
#include <map>
#include <tuple>

#include "tessera/ops/window.h"
#include "reduce_vertex.h"

namespace tessera::ops {

using graph::Tensor;

namespace {

uint32_t ceil_div(uint32_t a, uint32_t b) { return (a + b - 1) / b; }
uint32_t as_word(int64_t v) { return static_cast<uint32_t>(static_cast<int32_t>(v)); }

// One vertex's job: image n, output channels [m0, m1), input channels [c0, c1) (input
// channel block k of the plan's pk), output rows [oy0, oy1) reading input rows [r0, r1).
struct Job {
  uint32_t tile, n, m0, m1, c0, c1, oy0, oy1, r0, r1, k;
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
// output channel too when the rows are partial and the output is y itself, so that each
// output block is contiguous; with input channel blocks the output is a partial of the
// job's own, [channels][rows][ow], that reduce_partials adds into y channel by channel), for
// each input channel block; pools and LRN: per image and channel block (per channel when
// the rows are partial). The tiles of one output block's pk input blocks are consecutive,
// k = 0 first.
std::vector<Job> jobs(WindowKind kind, const WindowGeometry& geo, uint32_t batch, const WindowPlan& p) {
  const uint32_t in = ceil_div(batch, p.pn), ic = ceil_div(geo.c_out, p.pc), is = ceil_div(geo.oh, p.ps);
  const bool conv = kind == WindowKind::kConv2d;
  if (p.pk > 1 && (!conv || geo.groups != 1))
    throw graph::GraphError("an input channel split (pk " + std::to_string(p.pk) + ") needs a conv2d with one group");
  const uint32_t ik = ceil_div(geo.c_in, p.pk);
  const uint32_t mg = conv ? geo.c_out / geo.groups : geo.c_out, cg = conv ? geo.c_in / geo.groups : 0;
  std::vector<Job> out;
  for (uint32_t a = 0; a < p.pn; ++a)
    for (uint32_t b = 0; b < p.pc; ++b)
      for (uint32_t s = 0; s < p.ps; ++s)
        for (uint32_t k = 0; k < p.pk; ++k) {
          const uint32_t tile = p.first + ((a * p.pc + b) * p.ps + s) * p.pk + k;
          const uint32_t n0 = a * in, m0 = b * ic, oy0 = s * is;
          if (n0 >= batch || m0 >= geo.c_out || oy0 >= geo.oh || k * ik >= geo.c_in) continue;
          const uint32_t n1 = std::min(batch, n0 + in), m1 = std::min(geo.c_out, m0 + ic), oy1 = std::min(geo.oh, oy0 + is);
          const bool whole_rows = oy0 == 0 && oy1 == geo.oh;
          // Whole output rows read the whole image (rows no window touches included), so
          // that the window is the image's contiguous block.
          const auto [r0, r1] = whole_rows ? std::pair<uint32_t, uint32_t>{0, geo.h} : input_rows(geo, oy0, oy1);
          for (uint32_t n = n0; n < n1; ++n)
            for (uint32_t ga = m0; ga < m1;) {
              const uint32_t gb = std::min(m1, (ga / mg + 1) * mg);  // the end of this group's part
              uint32_t c0 = conv ? ga / mg * cg : ga, c1 = conv ? c0 + cg : gb;
              if (p.pk > 1) c0 = k * ik, c1 = std::min(geo.c_in, c0 + ik);
              if (whole_rows || kind == WindowKind::kLrn || p.pk > 1) {
                out.push_back({tile, n, ga, gb, c0, c1, oy0, oy1, r0, r1, k});
              } else {
                for (uint32_t m = ga; m < gb; ++m)
                  out.push_back({tile, n, m, m + 1, conv ? c0 : m, conv ? c1 : m + 1, oy0, oy1, r0, r1, k});
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
    // A window gathered channel by channel that another tile already gathers is forwarded
    // from there whole: each piece of x then leaves its tile once per window rather than
    // once per tile reading the window (their send lists stay for the whole run).
    if (!contiguous) {
      const auto home = std::make_tuple(j.n, j.c0, j.c1, j.r0, j.r1);
      if (auto it = homes_.find(home); it != homes_.end()) {
        forwards_.add(graph::Copy(it->second, flat));
        return windows_[key] = t;
      }
      homes_.emplace(home, flat);
    }
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
    // A block of a weight tensor is copied from the tensor to its first tile, and forwarded
    // from there to the others (as windows are).
    if (t.valid()) {
      const auto home = std::make_tuple(what, b, e);
      if (auto it = block_homes_.find(home); it != block_homes_.end()) {
        forwards_.add(graph::Copy(it->second, r));
        return blocks_[key] = r;
      }
      block_homes_.emplace(home, r);
      copies_.add(graph::Copy(t.flatten().slice(b, e), r));
    } else if (values.empty()) g_.set_initial_zeros(r);
    else g_.set_initial_value(r, std::vector<float>(values.begin() + b, values.begin() + e));
    return blocks_[key] = r;
  }

  // The copies, the forwards, then the compute set. Each goes in as one nested Sequence
  // (lowering flattens it), so that the program's own list does not grow by every copy of
  // every layer.
  void finish(graph::Program& prog, graph::ComputeSet cs) {
    for (graph::Program* p : {&copies_, &forwards_})
      if (!p->body.empty()) {
        p->body.shrink_to_fit();
        prog.add(std::move(*p));
      }
    prog.add(graph::Execute(cs));
  }

 private:
  graph::Graph& g_;
  const Tensor x_;
  const WindowGeometry geo_;
  const std::string name_;
  graph::Program copies_ = graph::Sequence(), forwards_ = graph::Sequence();
  std::map<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t>, Tensor> windows_;
  std::map<std::tuple<std::string, uint32_t, uint32_t, uint32_t>, Tensor> blocks_;
  // The first tile's copy of each window gathered channel by channel, and of each block.
  std::map<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t, uint32_t>, Tensor> homes_;
  std::map<std::tuple<std::string, uint32_t, uint32_t>, Tensor> block_homes_;
};

// Where output element (n, m, oy, 0) of a job lies in y: y's channels, and the first of them
// the op writes.
struct OutputPlace {
  uint32_t channels, c0;
  uint64_t at(const WindowGeometry& geo, uint32_t n, uint32_t m, uint32_t oy) const {
    return (uint64_t(n) * channels + c0 + m) * geo.oh * geo.ow + uint64_t(oy) * geo.ow;
  }
};

// The output block of a job, mapped to its tile: y[n][m0:m1][oy0:oy1][:].
Tensor output_block(graph::Graph& g, const Tensor& y, const WindowGeometry& geo, const Job& j,
                    OutputPlace place = {0, 0}) {
  if (place.channels == 0) place.channels = geo.c_out;
  const uint32_t b = static_cast<uint32_t>(place.at(geo, j.n, j.m0, j.oy0));
  const uint32_t e = static_cast<uint32_t>(place.at(geo, j.n, j.m1 - 1, j.oy1));
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
  const uint32_t cin = plan.pk > 1 ? ceil_div(geo.c_in, plan.pk) : geo.c_in / geo.groups;
  return uint64_t(4) * ceil_div(geo.c_out, plan.pc) * cin * geo.kh * geo.kw;
}

namespace {

// The weights' layout by the plan's blocks (ConvWeights::w_blocked): block (output channel
// block b, input channel block k) is [its channels, its input channels, kh, kw], the blocks
// in (b, k) order. With pk = 1 it is [M, C/g, kh, kw].
struct BlockedLayout {
  uint32_t ic, ik, cg, taps;
  BlockedLayout(const WindowGeometry& geo, const WindowPlan& plan)
      : ic(ceil_div(geo.c_out, plan.pc)), ik(ceil_div(geo.c_in, plan.pk)), cg(geo.c_in / geo.groups),
        taps(geo.kh * geo.kw), c_out_(geo.c_out), c_in_(geo.c_in), pk_(plan.pk) {}
  // Where output channel m's weights for input block k begin, and how many there are.
  uint64_t offset(uint32_t m, uint32_t k) const {
    if (pk_ == 1) return uint64_t(m) * cg * taps;
    const uint32_t mb0 = m / ic * ic, ch = std::min(c_out_, mb0 + ic) - mb0, c0 = k * ik;
    return (uint64_t(mb0) * cg + uint64_t(ch) * c0 + uint64_t(m - mb0) * inputs(k)) * taps;
  }
  // Input block k's channels (none past the last: a forced plan may have more blocks).
  uint32_t inputs(uint32_t k) const {
    return pk_ == 1 ? cg : k * ik >= c_in_ ? 0 : std::min(c_in_, (k + 1) * ik) - k * ik;
  }
  // [M, C/g, kh, kw] values in this layout.
  std::vector<float> arrange(const std::vector<float>& values) const {
    if (pk_ == 1) return values;
    std::vector<float> r(values.size());
    for (uint32_t m = 0; m < c_out_; ++m)
      for (uint32_t k = 0; k < pk_; ++k) {
        const uint64_t from = (uint64_t(m) * cg + k * ik) * taps, n = uint64_t(inputs(k)) * taps;
        std::copy(values.begin() + from, values.begin() + from + n, r.begin() + offset(m, k));
      }
    return r;
  }

 private:
  uint32_t c_out_, c_in_, pk_;
};

// Tensors of the given lengths on the given tiles, carved from one variable per tile: a
// graph's variables become tables of the executable, and a big conv has a partial per job.
std::vector<Tensor> carve(graph::Graph& g, const std::vector<std::pair<uint32_t, uint32_t>>& tile_len,
                          const std::string& name) {
  std::map<uint32_t, uint32_t> used;
  for (const auto& [tile, len] : tile_len) used[tile] += len;
  std::map<uint32_t, Tensor> var;
  for (auto& [tile, total] : used) {
    var[tile] = g.add_variable(exe::DType::kF32, {total}, name + "@" + std::to_string(tile));
    g.set_tile_mapping(var[tile], tile);
    total = 0;
  }
  std::vector<Tensor> r;
  r.reserve(tile_len.size());
  for (const auto& [tile, len] : tile_len) {
    r.push_back(var[tile].slice(used[tile], used[tile] + len));
    used[tile] += len;
  }
  return r;
}

// conv2d's partial sums (pk > 1) added: each output block's elements (its jobs' outputs in
// job order) shared out evenly among the block's pk tiles, each gathering the pk partials
// of its part (one Copy per partial and job) and adding them with reduce_sum into y.
void reduce_partials(graph::Graph& g, graph::Program& prog, const Tensor& y, OutputPlace place,
                     const WindowGeometry& geo, const std::vector<Job>& js, const std::vector<Tensor>& partial,
                     uint32_t pk, const std::string& name) {
  // A piece: elements [q0, q1) of job i's output, reduced on `tile` from `parts` partials
  // (job i + r * per for r < parts) into y from element `at` on.
  struct Piece {
    size_t i, per;
    uint32_t q0, q1, tile, parts;
    uint64_t at;
  };
  // A job's output is [channels][rows][ow]: one run of y with whole rows, else one per
  // channel. A piece lies within one run.
  const auto runs = [&](const Job& j) {
    const bool whole = j.oy0 == 0 && j.oy1 == geo.oh;
    const uint64_t len = uint64_t(whole ? j.m1 - j.m0 : 1) * (j.oy1 - j.oy0) * geo.ow;
    return std::pair<uint32_t, uint64_t>{whole ? 1 : j.m1 - j.m0, len};
  };
  std::vector<Piece> pieces;
  // The jobs of one output block: pk runs of the same outputs, k = 0 first (jobs()).
  // The block of a job: its tile's grid index / pk (the first job is on the plan's first tile).
  const auto block = [&](size_t i) { return (js[i].tile - js.front().tile) / pk; };
  for (size_t first = 0; first < js.size();) {
    size_t end = first;
    while (end < js.size() && block(end) == block(first) && js[end].k == 0) ++end;
    const size_t per = end - first;  // jobs of k = 0; each k has as many, in the same order
    uint64_t total = 0;
    for (size_t i = first; i < end; ++i) total += uint64_t(js[i].m1 - js[i].m0) * (js[i].oy1 - js[i].oy0) * geo.ow;
    // Part q of the block's elements goes to the tile of input block q.
    std::vector<uint32_t> tiles;
    for (size_t i = first; i < js.size() && block(i) == block(first); i += per) tiles.push_back(js[i].tile);
    const uint32_t parts = static_cast<uint32_t>(tiles.size());
    uint64_t pos = 0;  // the run's first element in the block
    for (size_t i = first; i < end; ++i) {
      const Job& j = js[i];
      const uint64_t job_pos = pos;
      const auto [count, len] = runs(j);
      for (uint32_t c = 0; c < count; ++c, pos += len) {
        const uint64_t at = place.at(geo, j.n, j.m0 + c, j.oy0);
        for (uint32_t q = 0; q < parts; ++q) {
          const uint64_t q0 = std::max(pos, total * q / parts), q1 = std::min(pos + len, total * (q + 1) / parts);
          if (q0 < q1)
            pieces.push_back({i, per, static_cast<uint32_t>(q0 - job_pos), static_cast<uint32_t>(q1 - job_pos),
                              tiles[q], parts, at + (q0 - pos)});
        }
      }
    }
    first += per * parts;
  }
  std::vector<std::pair<uint32_t, uint32_t>> sizes;
  for (const Piece& p : pieces) sizes.push_back({p.tile, p.parts * (p.q1 - p.q0)});
  const std::vector<Tensor> gathers = carve(g, sizes, name + ".gather");
  const graph::ComputeSet cs = g.add_compute_set(name + ".reduce");
  graph::Program copies = graph::Sequence();
  const Tensor flat = y.flatten();
  for (size_t k = 0; k < pieces.size(); ++k) {
    const Piece& p = pieces[k];
    const uint32_t n = p.q1 - p.q0;
    const Tensor out = flat.slice(static_cast<uint32_t>(p.at), static_cast<uint32_t>(p.at + n));
    g.set_tile_mapping(out, p.tile);
    for (uint32_t r = 0; r < p.parts; ++r)
      copies.add(graph::Copy(partial[p.i + r * p.per].slice(p.q0, p.q1), gathers[k].slice(r * n, (r + 1) * n)));
    detail::add_reduce_sum(g, cs, p.tile, out, gathers[k], p.parts);
  }
  prog.add(std::move(copies));
  prog.add(graph::Execute(cs));
}

}  // namespace

Tensor spread_conv_weights(graph::Graph& g, const std::vector<float>& values, const WindowGeometry& geo,
                           uint32_t batch, const WindowPlan& plan, const std::string& name) {
  const uint32_t per = geo.c_in / geo.groups * geo.kh * geo.kw;
  if (values.size() != uint64_t(geo.c_out) * per)
    throw graph::GraphError("'" + name + "': " + std::to_string(values.size()) + " weights, expected " +
                            std::to_string(uint64_t(geo.c_out) * per));
  const Tensor w = g.add_variable(exe::DType::kF32, {geo.c_out, per}, name + ".w");
  const Tensor flat = w.flatten();
  const BlockedLayout layout(geo, plan);
  // The tiles of each of the plan's blocks (output channel block x input channel block), in
  // order, from its jobs. Keyed by the block, not by a job's channels: with partial rows a
  // job has one channel, and a channel's weights spread over all the block's tiles would
  // reach each of them from all of them (a send-list entry per channel, source and
  // destination).
  std::map<std::pair<uint32_t, uint32_t>, std::vector<uint32_t>> users;
  for (const Job& j : jobs(WindowKind::kConv2d, geo, batch, plan)) {
    std::vector<uint32_t>& u = users[{j.m0 / layout.ic, j.k}];
    if (u.empty() || u.back() != j.tile) u.push_back(j.tile);
  }
  for (const auto& [block, tiles] : users) {
    const uint32_t m0 = block.first * layout.ic, m1 = std::min(geo.c_out, m0 + layout.ic);
    const uint64_t b = layout.offset(m0, block.second);
    const uint64_t e = b + uint64_t(m1 - m0) * layout.inputs(block.second) * layout.taps;
    const uint32_t parts = static_cast<uint32_t>(tiles.size());
    for (uint32_t i = 0; i < parts; ++i) {
      const uint64_t pb = b + (e - b) * i / parts, pe = b + (e - b) * (i + 1) / parts;
      if (pb < pe) g.set_tile_mapping(flat.slice(static_cast<uint32_t>(pb), static_cast<uint32_t>(pe)), tiles[i]);
    }
  }
  g.set_initial_value(w, layout.arrange(values));
  return w;
}

Tensor conv2d(graph::Graph& g, graph::Program& prog, const Tensor& x, const ConvWeights& wts,
              const WindowGeometry& geo, const WindowPlan& plan, const std::string& name, const ConvOutput* into) {
  const uint32_t batch = batch_of(x, geo, name);
  if (into && (into->c0 + uint64_t(geo.c_out) > into->channels ||
               into->y.size() != uint64_t(batch) * into->channels * geo.oh * geo.ow))
    throw graph::GraphError("conv2d '" + name + "': " + std::to_string(geo.c_out) + " channels from " +
                            std::to_string(into->c0) + " do not fit " + g.describe(into->y));
  const OutputPlace place = into ? OutputPlace{into->channels, into->c0} : OutputPlace{geo.c_out, 0};
  if (plan.pk > 1 && wts.w.valid() && !wts.w_blocked)
    throw graph::GraphError("conv2d '" + name + "': an input channel split needs constant or spread weights");
  const BlockedLayout layout(geo, plan);
  std::vector<float> arranged;
  if (plan.pk > 1 && !wts.w.valid()) arranged = layout.arrange(wts.w_values);
  const std::vector<float>& w_values = plan.pk > 1 ? arranged : wts.w_values;
  const Tensor y = into ? into->y : output(g, geo, batch, name);
  Windows win(g, x, geo, name);
  const graph::ComputeSet cs = g.add_compute_set(name);
  const std::vector<Job> js = jobs(WindowKind::kConv2d, geo, batch, plan);
  std::vector<Tensor> partial;  // pk > 1: each job's partial sum
  if (plan.pk > 1) {
    std::vector<std::pair<uint32_t, uint32_t>> sizes;
    for (const Job& j : js) sizes.push_back({j.tile, (j.m1 - j.m0) * (j.oy1 - j.oy0) * geo.ow});
    partial = carve(g, sizes, name + ".partial");
  }
  // A tile's run of jobs over consecutive output channels (one channel each when the rows
  // are partial and pk is 1) takes its weights and bias as one block each, sliced per job:
  // one copy per tile and weight rather than one per channel.
  auto w_begin = [&](const Job& j) { return layout.offset(j.m0, j.k); };
  auto w_end = [&](const Job& j) { return w_begin(j) + uint64_t(j.m1 - j.m0) * (j.c1 - j.c0) * layout.taps; };
  size_t run_end = 0;
  uint64_t run_w0 = 0;
  uint32_t run_m0 = 0;
  Tensor w_run, b_run;
  for (size_t i = 0; i < js.size(); ++i) {
    const Job& j = js[i];
    if (i == run_end) {
      for (run_end = i + 1; run_end < js.size(); ++run_end) {
        const Job &q = js[run_end], &prev = js[run_end - 1];
        if (q.tile != j.tile || q.k != j.k || q.m0 != prev.m1 || w_begin(q) != w_end(prev)) break;
      }
      const Job& last = js[run_end - 1];
      run_w0 = w_begin(j), run_m0 = j.m0;
      w_run = win.block(wts.w, w_values, static_cast<uint32_t>(run_w0), static_cast<uint32_t>(w_end(last)), j.tile, "w");
      // The bias goes into input block 0's partial only.
      b_run = j.k == 0 ? win.block(wts.b, wts.b_values, j.m0, last.m1, j.tile, "b")
                       : win.block(Tensor(), {}, j.m0, last.m1, j.tile, "b0");
    }
    const uint32_t cin = j.c1 - j.c0;
    const graph::Vertex v = g.add_vertex(cs, "conv2d", j.tile);
    g.connect(v, "y", plan.pk == 1 ? output_block(g, y, geo, j, place) : partial[i]);
    g.connect(v, "x", win.input(j));
    g.connect(v, "w", w_run.slice(static_cast<uint32_t>(w_begin(j) - run_w0), static_cast<uint32_t>(w_end(j) - run_w0)));
    g.connect(v, "b", b_run.slice(j.m0 - run_m0, j.m1 - run_m0));
    g.set_field(v, "cin", cin);
    g.set_field(v, "cout", j.m1 - j.m0);
    set_window_fields(g, v, geo, j, Fields::kConv);
  }
  win.finish(prog, cs);
  if (plan.pk > 1) reduce_partials(g, prog, y, place, geo, js, partial, plan.pk, name);
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
