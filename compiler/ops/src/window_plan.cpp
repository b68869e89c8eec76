// The window ops' planner (window.h): images x channel blocks x row blocks over the tiles.
#include <algorithm>
#include <limits>

#include "tessera/arch/control.h"
#include "tessera/ops/window.h"

#include "host_cost.h"

namespace tessera::ops {

namespace {

uint32_t ceil_div(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

struct Share {
  uint64_t bytes = 0;
  double cycles = 0;
  double send_bytes = 0;  // the send-list entries it adds to a tile, estimated
  double host_ns = 0;     // the whole plan's time in native mode, estimated (PlanFor::kHost)
};

constexpr double kSendEntryBytes = sizeof(arch::SendEntry);

// The busiest tile's share of a plan: bytes it holds and cycles it spends.
Share share_of(WindowKind kind, const WindowGeometry& geo, uint32_t batch, uint32_t tiles, const CostModel& cost,
               uint32_t pn, uint32_t pc, uint32_t ps, uint32_t pk) {
  const uint32_t imgs = ceil_div(batch, pn), ch = ceil_div(geo.c_out, pc), rows = ceil_div(geo.oh, ps);
  const bool conv = kind == WindowKind::kConv2d;
  // Input channels per vertex: a group's, or an input channel block's (one group only).
  const uint32_t cg = conv ? (pk > 1 ? ceil_div(geo.c_in, pk) : geo.c_in / geo.groups) : 1;
  const uint32_t mg = conv ? geo.c_out / geo.groups : 1;
  // Input channels a block of `ch` output channels reads (a block may straddle groups).
  const uint64_t cin = conv ? (geo.groups == 1 ? cg : std::min<uint64_t>(geo.c_in, (ceil_div(ch, mg) + 1) * uint64_t(cg)))
                            : ch;
  const bool whole = rows == geo.oh;  // whole output rows read the whole image
  const uint64_t win =
      whole ? geo.h : std::min<uint64_t>(geo.h, uint64_t(rows - 1) * geo.sh + uint64_t(geo.kh - 1) * geo.dh + 1);
  const uint64_t x_words = imgs * cin * win * geo.w;
  const uint64_t y_words = uint64_t(imgs) * ch * rows * geo.ow;
  const uint64_t w_words = conv ? uint64_t(ch) * cg * geo.kh * geo.kw + ch : 0;
  Share s;
  s.bytes = 4 * (x_words + y_words + w_words);
  // Vertices: one per image and group (or channel block) with whole rows or input channel
  // blocks, else one per image and output channel.
  const bool blocks = whole || pk > 1;
  const uint64_t groups_spanned = conv ? std::min<uint64_t>(geo.groups, ceil_div(ch, mg) + 1) : 1;
  const uint64_t vertices = blocks ? imgs * groups_spanned : uint64_t(imgs) * ch;
  // One vertex of the busiest tile (the calibrated costs of cost_model.h), times its vertices.
  const uint32_t vrows = static_cast<uint32_t>(win);
  double per_vertex = 0;
  switch (kind) {
    case WindowKind::kConv2d:
      per_vertex = cost.conv2d(conv2d_work({cg, vrows, geo.w, blocks ? std::min(ch, mg) : 1, rows, geo.ow, geo.kh, geo.kw,
                                            geo.sh, geo.sw, int32_t(geo.pt), int32_t(geo.pl), geo.dh, geo.dw}));
      break;
    case WindowKind::kMaxPool:
    case WindowKind::kAvgPool: {
      const Work4 w = pool_work(whole ? ch : 1, vrows, geo.w, rows, geo.ow, geo.kh, geo.kw, geo.sh, geo.sw,
                                int32_t(geo.pt), int32_t(geo.pl));
      per_vertex = kind == WindowKind::kMaxPool ? cost.maxpool2d(w) : cost.avgpool2d(w);
      break;
    }
    case WindowKind::kLrn:
      per_vertex = cost.elementwise(double(y_words) / double(std::max<uint64_t>(vertices, 1)) * 8);  // a power each
      break;
  }
  s.cycles = double(vertices) * per_vertex + cost.exchange(double(x_words)) + cost.superstep;
  // Every tile's job like the busiest's (a little more than the whole): its window's words,
  // its vertices, its multiply-adds (a conv's, else one per window element), shared by up to
  // kHostJobs host threads.
  const double jobs = double(pn) * pc * ps * pk;
  const double macs = double(y_words) * geo.kh * geo.kw * (conv ? cg : 1);
  double host_words = double(x_words), host_vertices = double(vertices);
  // The window's copies: one per source tile's run it spans (the input spread evenly over
  // the tiles: on average length / run + 1 of them), for each channel when the rows are
  // partial. Every tile receives about as many as it sends, so this is also what it sends.
  const double per_source = std::max(1.0, double(batch) * geo.c_in * geo.h * geo.w / tiles);
  const double spans = double(whole ? cin * win * geo.w : win * geo.w) / per_source + 1;
  s.send_bytes = kSendEntryBytes * imgs * (whole ? spans : cin * spans);
  if (pk > 1) {
    // The partial block stays; the tile gathers the pk partials of its 1/pk of the block
    // (y_words in all) and sums them into its part of the output.
    s.bytes += 4 * (y_words + ceil_div(static_cast<uint32_t>(y_words), pk));
    s.cycles += cost.exchange(double(y_words)) + cost.reduce_sum(double(y_words)) + cost.superstep;
    s.send_bytes += kSendEntryBytes * (pk + double(vertices));  // its partial, to pk tiles by job
    host_words += double(y_words), host_vertices += double(pk);
  }
  s.host_ns =
      detail::host_jobs_ns(jobs, host_words * detail::kHostNsPerWord + host_vertices * detail::kHostNsPerVertex +
                                     macs * detail::kHostNsPerMac);
  return s;
}

}  // namespace

namespace {

// The fastest plan of one pass over `geo` for `goal` (within the send-list budget if any is,
// else the fastest), or none (cycles infinite); `smallest` lowered to the smallest share seen.
WindowPlan best_pass(WindowKind kind, const WindowGeometry& geo, uint32_t batch, uint32_t tiles, const CostModel& cost,
                     double budget, bool by_inputs, double send_budget, PlanFor goal, uint64_t& smallest) {
  constexpr double kNone = std::numeric_limits<double>::infinity();
  WindowPlan best, fastest;
  best.cycles = fastest.cycles = kNone;
  double best_time = kNone, fastest_time = kNone;
  const bool whole_images = kind == WindowKind::kLrn;
  for (uint32_t pn = 1; pn <= std::min(batch, tiles); ++pn) {
    if (pn > 1 && ceil_div(batch, pn) == ceil_div(batch, pn - 1)) continue;  // the same busiest share
    for (uint32_t pc = 1; pc <= (whole_images ? 1 : std::min(geo.c_out, tiles / pn)); ++pc) {
      if (pc > 1 && ceil_div(geo.c_out, pc) == ceil_div(geo.c_out, pc - 1)) continue;
      for (uint32_t ps = 1; ps <= (whole_images ? 1 : std::min(geo.oh, tiles / (pn * pc))); ++ps) {
        if (ps > 1 && ceil_div(geo.oh, ps) == ceil_div(geo.oh, ps - 1)) continue;
        const uint32_t max_pk = by_inputs ? std::min(geo.c_in, tiles / (pn * pc * ps)) : 1;
        for (uint32_t pk = 1; pk <= max_pk; ++pk) {
          if (pk > 1 && ceil_div(geo.c_in, pk) == ceil_div(geo.c_in, pk - 1)) continue;
          const Share s = share_of(kind, geo, batch, tiles, cost, pn, pc, ps, pk);
          smallest = std::min(smallest, s.bytes);
          if (double(s.bytes) > budget) continue;
          const WindowPlan p{pn, pc, ps, s.cycles, s.bytes, pk};
          const double time = goal == PlanFor::kHost ? s.host_ns : s.cycles;
          if (s.send_bytes <= send_budget && time < best_time) best = p, best_time = time;
          if (time < fastest_time) fastest = p, fastest_time = time;
        }
      }
    }
  }
  return best_time < kNone ? best : fastest;
}

}  // namespace

WindowPlan plan_window(WindowKind kind, const WindowGeometry& geo, uint32_t batch, uint32_t tiles,
                       const CostModel& cost, double budget, const std::string& name, bool split_inputs,
                       double send_budget, PlanFor goal) {
  const bool conv1 = kind == WindowKind::kConv2d && geo.groups == 1;
  const bool by_inputs = split_inputs && conv1;
  uint64_t smallest = std::numeric_limits<uint64_t>::max();
  // One pass; a conv with one group whose share does not fit, in the fewest passes that do.
  const uint32_t max_passes = conv1 ? std::min(geo.c_out, kMaxConvPasses) : 1;
  for (uint32_t passes = 1; passes <= max_passes; ++passes) {
    if (passes > 1 && ceil_div(geo.c_out, passes) == ceil_div(geo.c_out, passes - 1)) continue;
    WindowGeometry pass = geo;
    pass.c_out = ceil_div(geo.c_out, passes);
    WindowPlan p = best_pass(kind, pass, batch, tiles, cost, budget, by_inputs, send_budget / passes, goal, smallest);
    if (p.cycles == std::numeric_limits<double>::infinity()) continue;
    p.passes = passes;
    p.cycles *= passes;
    return p;
  }
  throw graph::GraphError("'" + name + "': no split over " + std::to_string(tiles) + " tiles fits" +
                          (max_passes > 1 ? " in up to " + std::to_string(max_passes) + " passes" : std::string()) +
                          ": the smallest share needs " + std::to_string(smallest) + " bytes on a tile, the budget is " +
                          std::to_string(static_cast<uint64_t>(budget)) +
                          " (a target with more SRAM or tiles, or a smaller batch)");
}

}  // namespace tessera::ops
