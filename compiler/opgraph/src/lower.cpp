#include "tessera/opgraph/lower.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "layers.h"
#include "ops/op_def.h"
#include "tessera/ops/cost_model.h"
#include "tessera/ops/elementwise.h"
#include "tessera/ops/matmul.h"
#include "tessera/ops/softmax.h"
#include "tessera/ops/streaming.h"
#include "tessera/ops/training.h"

namespace tessera::opgraph {

using graph::Tensor;

namespace {

constexpr size_t kNoOp = ~size_t{0};  // above any op index

// A weight in device memory's gradients and update: lowered together at one op.
struct StreamedBackward {
  Value w;
  size_t nt, tn, sgd;  // op indices; nt kNoOp without an input gradient
};

// A layer whose weight can stay in device memory in training (plan_streamed_weights).
struct StreamCandidate {
  detail::Layer layer;
  StreamedBackward ops;
  double bytes;
};

class Lowering : public detail::LowerContext {
 public:
  Lowering(const OpGraph& og, graph::Graph& g, const LowerOptions& o)
      : og_(og), g_(g), cost_(ops::CostModel::for_target(g.target())),
        // An op may use memory_proportion (half by default) of what the firmware leaves;
        // inputs, weights and the other layers need the rest.
        available_(double(g.target().sram_bytes) - o.firmware_bytes), budget_(o.memory_proportion * available_),
        op_proportions_(o.op_proportions), lowered_ops_(o.lowered_ops), first_op_index_(o.first_op_index),
        train_(o.train), force_big_(o.big_model), in_place_(o.in_place), early_updates_(o.early_updates),
        plan_for_(o.plan_for), spread_window_ops_(o.spread_window_ops), recompute_(o.recompute), note_(o.note),
        tensors_(og.values().size()),
        uses_(og.values().size(), 0),
        whole_rows_(og.values().size(), false) {
    if (!(o.memory_proportion > 0 && o.memory_proportion <= 1))
      throw OpGraphError("the memory proportion " + std::to_string(o.memory_proportion) + " is not in (0, 1]");
    for (const Op& op : og.ops()) {
      for (const Value& v : op.operands) ++uses_[v.id];
      convs_ += op.kind == OpKind::kConv2d;
    }
    // Ops sharing a layer name (an importer's several ops for one node): the second and
    // later get "#k" after it, so that their tensors' names stay distinct.
    std::map<std::string, uint32_t> seen;
    for (const Op& op : og.ops())
      if (op.result.valid() && !op.name.empty())
        if (const uint32_t k = seen[op.name]++; k > 0) name_suffix_[op.result.id] = "#" + std::to_string(k);
    // Parameters bound to tensors of the graph (another program's).
    for (const Op& op : og.ops()) {
      if (op.kind != OpKind::kParameter) continue;
      const auto it = o.parameters.find(op.name);
      if (it == o.parameters.end()) continue;
      const ValueInfo& i = og.info(op.result);
      const Tensor& t = it->second;
      if (!t.valid() || t.var >= g.variables().size())
        throw OpGraphError("parameter '" + op.name + "': the bound tensor is not a tensor of this graph");
      const DType dt = g.variables()[t.var].dtype;
      if (dt != i.dtype || t.shape != i.shape)
        throw OpGraphError("parameter '" + op.name + "' " + type_string(i.dtype, i.shape) + ": the bound tensor " +
                           g.describe(t) + " is " + type_string(dt, t.shape));
      tensors_[op.result.id] = t;
    }
    // Rows that reach argmax, softmax or softmax_xent(_grad) through element-wise ops must
    // stay whole on a tile.
    for (auto it = og.ops().rbegin(); it != og.ops().rend(); ++it) {
      if (it->kind == OpKind::kArgmax || it->kind == OpKind::kSoftmax || it->kind == OpKind::kSoftmaxXent ||
          it->kind == OpKind::kSoftmaxXentGrad)
        whole_rows_[it->operands[0].id] = true;
      if ((it->kind == OpKind::kAddBias || it->kind == OpKind::kRelu) && whole_rows_[it->result.id])
        whole_rows_[it->operands[0].id] = true;
    }
    gradient_layout_ = detail::gradient_layouts(og_);
    plan_streamed_weights(o);
    plan_layers();
    plan_weight_regions(o.note);
  }

  // The op graph's parameters' tensors (those made or bound), by name.
  std::map<std::string, Tensor> parameters() const {
    std::map<std::string, Tensor> r;
    for (const Op& op : og_.ops())
      if (op.kind == OpKind::kParameter && tensors_[op.result.id].valid()) r[op.name] = tensors_[op.result.id];
    return r;
  }

  // The optimizer state run()'s updates made.
  const ops::SgdState& sgd() const { return sgd_; }

  graph::Program run() {
    graph::Program body = graph::Sequence();
    std::vector<const Op*> outputs, updates;
    // A big model's updates (plan_layers) run as soon as their gradient is made and nothing
    // else reads the parameter, so that each gradient is released right after its update:
    // ready[i], the updates to run after op i.
    std::map<size_t, std::vector<const Op*>> ready;
    const bool early = big_ && early_updates_;
    if (early) {
      std::vector<size_t> last(og_.values().size(), 0);
      for (size_t i = 0; i < og_.ops().size(); ++i) {
        const Op& op = og_.ops()[i];
        if (op.kind == OpKind::kSgdMomentum) continue;
        for (const Value v : op.operands) last[v.id] = i;
        if (op.result.valid()) last[op.result.id] = std::max(last[op.result.id], i);
      }
      for (size_t i = 0; i < og_.ops().size(); ++i) {
        const Op& op = og_.ops()[i];
        if (op.kind == OpKind::kSgdMomentum && !skip_.count(i))
          ready[std::max(last[op.operands[0].id], last[op.operands[1].id])].push_back(&op);
      }
    }
    uint32_t made = 0;
    const size_t backward = first_gradient_op();
    for (size_t i = 0; i < og_.ops().size(); ++i) {
      const Op& op = og_.ops()[i];
      if (skip_.count(i)) continue;  // lowered with a streamed weight's backward
      if (op.kind == OpKind::kOutput) {
        outputs.push_back(&op);
        continue;
      }
      if (op.kind == OpKind::kSgdMomentum) {
        if (!train_) throw OpGraphError(what(op) + ": updates parameters: lower it with LowerOptions::train");
        if (!early) updates.push_back(&op);
        continue;
      }
      try {
        if (i >= backward)
          for (const Value v : op.operands) recompute(v, backward, body);
        lower_op(op, body);
      } catch (const graph::GraphError& e) {
        throw OpGraphError(what(op) + ": " + e.what());
      }
      if (const auto it = ready.find(i); it != ready.end()) {
        update(it->second, body, made == 0 ? "sgd" : "sgd" + std::to_string(made));
        ++made;
      }
    }
    for (const Op* op : outputs) {
      const ValueInfo& v = og_.info(op->operands[0]);
      try {
        body.add(graph::HostRead(g_.add_stream(op->name, v.dtype, v.shape), mapped(op->operands[0])));
      } catch (const graph::GraphError& e) {
        throw OpGraphError(what(*op) + ": " + e.what());
      }
    }
    // The updates last: every op of the step has read the parameters by then.
    if (!updates.empty()) update(updates, body, "sgd");
    return body;
  }

 private:
  // The index of the first gradient op (autodiff's), or the number of ops.
  size_t first_gradient_op() const {
    static const std::set<OpKind> grads = {
        OpKind::kSoftmaxXentGrad, OpKind::kMatMulTN,      OpKind::kMatMulNT,       OpKind::kBiasGrad,
        OpKind::kReluGrad,        OpKind::kConv2dGradInput, OpKind::kConv2dGradWeight, OpKind::kChannelSum,
        OpKind::kMaxPool2dGrad,   OpKind::kAvgPool2dGrad, OpKind::kUnaryGrad};
    for (size_t i = 0; i < og_.ops().size(); ++i)
      if (grads.count(og_.ops()[i].kind)) return i;
    return og_.ops().size();
  }

  // Recomputation (LowerOptions::recompute): a forward value of a chosen kind (or a reshape
  // of one) that a gradient op reads is made again right before its first such read, so that
  // the forward copy is released after its last forward use.
  void recompute(Value v, size_t backward, graph::Program& body) {
    if (!v.valid() || recomputed_.count(v.id)) return;
    const Op& p = og_.producer(v);
    if (og_.info(v).op >= backward) return;
    if (!recompute_.count(p.kind)) {  // else only a reshape of a value recomputed itself
      if (recompute_.empty() || p.kind != OpKind::kReshape) return;
      recompute(p.operands[0], backward, body);
      if (!recomputed_.count(p.operands[0].id)) return;
    }
    recomputed_.insert(v.id);
    name_suffix_[v.id] += ".recompute";
    lower_op(p, body);
  }

  // sgd_momentum of `updates` into `body`, its state added to sgd_.
  void update(const std::vector<const Op*>& updates, graph::Program& body, const std::string& name) {
    std::vector<ops::SgdParam> params;
    for (const Op* op : updates) {
      try {
        params.push_back({mapped(op->operands[0]), mapped(op->operands[1]), op->momentum, op->lr0,
                          op->total_steps, og_.producer(op->operands[0]).name});
      } catch (const graph::GraphError& e) {
        throw OpGraphError(what(*op) + ": " + e.what());
      }
    }
    try {
      const ops::SgdState s = ops::sgd_momentum(g_, body, params, name);
      sgd_.velocities.insert(sgd_.velocities.end(), s.velocities.begin(), s.velocities.end());
      sgd_.lrs.insert(sgd_.lrs.end(), s.lrs.begin(), s.lrs.end());
      sgd_.steps.insert(sgd_.steps.end(), s.steps.begin(), s.steps.end());
    } catch (const graph::GraphError& e) {
      throw OpGraphError(std::string("sgd_momentum: ") + e.what());
    }
  }

  static std::string what(const Op& op) {
    if (!op.result.valid() && op.name.empty())  // sgd_momentum
      return std::string(op_kind_name(op.kind)) + " of %" + std::to_string(op.operands[0].id);
    return op.name.empty() ? std::string(op_kind_name(op.kind)) + " %" + std::to_string(op.result.id)
                           : std::string(op_kind_name(op.kind)) + " '" + op.name + "'";
  }
  // The prefix of the op's compute sets: its layer name, or "op<result id>".
  std::string base(const Op& op) override {
    if (op.name.empty()) return "op" + std::to_string(op.result.id);
    const auto it = op.result.valid() ? name_suffix_.find(op.result.id) : name_suffix_.end();
    return it == name_suffix_.end() ? op.name : op.name + it->second;
  }
  static uint32_t grain(const std::vector<uint32_t>& shape) { return shape.size() >= 2 ? shape.back() : 1; }
  // Each weight placed here with its forward, input-gradient and weight-gradient matmuls:
  // planned together (ops::plan_layer), so that W keeps one layout and its gradient (and a
  // bias's) is made where the parameter lies.
  void plan_layers() {
    std::vector<detail::Layer> layers = detail::find_layers(og_, gradient_layout_);
    std::erase_if(layers, [&](const detail::Layer& l) { return streamed_w_.count(l.weight.id) > 0; });
    // A model whose layers' weights (training: with their velocities and gradients) would
    // take more than the tiles' budgets: each layer's blocks limited to its share of a tile's
    // budget (by its weight's size), so that the layers spread over the tiles rather than
    // pile on the first ones, and outputs not held to whole rows (the ops that need them
    // gather the rows).
    const uint32_t tiles = g_.target().tiles;
    double total = 0;
    for (const detail::Layer& l : layers) total += 4.0 * og_.info(l.weight).shape[0] * og_.info(l.weight).shape[1];
    const bool big = force_big_ || (train_ ? 3 : 1) * total > budget_ * tiles;
    big_ = big;
    for (detail::Layer& l : layers) {
      if (tensors_[l.weight.id].valid()) continue;  // bound: placed by another program
      const std::vector<uint32_t>& shape = og_.info(l.weight).shape;
      for (size_t i = 0; i < l.ops.size(); ++i) {
        const Op& op = og_.ops()[l.ops[i]];
        l.products[i].batch = og_.info(op.operands[0]).shape[0];  // X or dY: [batch, ...]
        l.products[i].whole_rows = whole_rows_[op.result.id] && !big;
      }
      const double share = big ? 4.0 * shape[0] * shape[1] / total : 1.0;
      double layer_budget = budget_;
      for (size_t i : l.ops) layer_budget = std::min(layer_budget, op_budget(i));
      const ops::LayerPlan plan =
          ops::plan_layer(shape[0], shape[1], l.products, tiles, cost_, layer_budget * share, plan_for_);
      for (size_t i = 0; i < l.ops.size(); ++i)
        layer_op_[l.ops[i]] = {plan.plans[i], ops::layer_options(plan, l.products, i)};
    }
    // A big model's gradient ops share what its weights and velocities (spread evenly)
    // leave on a tile.
    if (big) grad_budget_ = std::max(0.25 * budget_, budget_ - total / tiles);
  }

  // Training weights in device memory (docs/weight-streaming.md, "Training"). When the
  // parameters with their velocities and gradients would take more than kStreamAbove of what
  // the firmware leaves on all tiles and the target has device memory, the biggest matmul
  // weights whose layer is one forward product, at most one input gradient and one weight
  // gradient that only their update reads stay there (ops::StreamedWeight), until the rest
  // take at most kStreamDownTo (lower.h). Each is lowered at its forward product and, for its gradients
  // and update together, at the first of its gradient products; the other and the update
  // are then skipped. A later lowering given the same LowerOptions::streamed (the inference
  // program) streams those weights in its matmuls.
  void plan_streamed_weights(const LowerOptions& o) {
    const std::vector<Op>& ops = og_.ops();
    if (!train_) {
      if (o.streamed)
        for (const Op& op : ops)
          if (const auto it = o.streamed->find(op.name);
              op.kind == OpKind::kParameter && it != o.streamed->end() && !tensors_[op.result.id].valid())
            streamed_w_[op.result.id] = it->second;
      return;
    }
    // Only where the caller takes the streamed weights on to its other programs (they must
    // not make tensors of their own from the initial values), and the target has device memory.
    if (!o.streamed || g_.target().device_memory_mib == 0) return;
    constexpr double kChunk = 0.05;
    const double chip = available_ * g_.target().tiles;
    double total = 0;
    for (const Op& op : ops)
      if (op.kind == OpKind::kParameter && !tensors_[op.result.id].valid())
        total += 4.0 * detail::elements(og_.info(op.result).shape);
    if (3 * total <= kStreamAbove * chip) return;
    std::vector<StreamCandidate> candidates = streamable_layers();
    std::sort(candidates.begin(), candidates.end(), [](const auto& a, const auto& b) { return a.bytes > b.bytes; });
    std::string line;
    double streamed = 0;
    for (const StreamCandidate& c : candidates) {
      if (3 * total <= kStreamDownTo * chip) break;
      const Value w = c.layer.weight;
      const std::vector<uint32_t>& shape = og_.info(w).shape;
      const std::string& name = og_.producer(w).name;
      const uint32_t batch = og_.info(ops[c.layer.ops[0]].operands[0]).shape[0];
      auto sw = std::make_shared<const ops::StreamedWeight>(g_, batch, shape[0], og_.constant_data(w), cost_,
                                                            kChunk * available_, budget_, name);
      streamed_w_[w.id] = sw;
      (*o.streamed)[name] = sw;
      backward_at_[std::min(c.ops.nt, c.ops.tn)] = c.ops;
      if (c.ops.nt != kNoOp) skip_.insert(std::max(c.ops.nt, c.ops.tn));
      skip_.insert(c.ops.sgd);
      total -= c.bytes;
      streamed += c.bytes;
      line += " " + name + " (" + std::to_string(static_cast<int>(c.bytes / 1e6 + 0.5)) + " MB, " +
              std::to_string(sw->chunks()) + " chunks)";
    }
    if (o.note && streamed > 0)
      o.note("weight streaming (training): " + std::to_string(static_cast<int>(streamed / 1e6 + 0.5)) +
             " MB of weights and as much of velocities stay in device memory; each step streams them through the "
             "tiles for the forward products and again for the gradients and the update, written back:" + line);
  }

  // The layers (layers.h) not bound to another program's tensors whose weight has one
  // forward product, at most one input gradient and one weight gradient that only the
  // weight's update reads.
  std::vector<StreamCandidate> streamable_layers() const {
    const std::vector<Op>& ops = og_.ops();
    std::vector<StreamCandidate> out;
    for (detail::Layer& l : detail::find_layers(og_, gradient_layout_)) {
      if (tensors_[l.weight.id].valid()) continue;
      StreamedBackward b{l.weight, kNoOp, kNoOp, kNoOp};
      uint32_t forwards = 0, nts = 0, tns = 0;
      for (size_t k = 0; k < l.ops.size(); ++k) {
        const ops::LayerProduct::Kind kind = l.products[k].kind;
        forwards += kind == ops::LayerProduct::kForward;
        if (kind == ops::LayerProduct::kInputGrad) ++nts, b.nt = l.ops[k];
        if (kind == ops::LayerProduct::kWeightGrad) ++tns, b.tn = l.ops[k];
      }
      for (size_t i = 0; i < ops.size(); ++i)
        if (ops[i].kind == OpKind::kSgdMomentum && ops[i].operands[0] == l.weight) b.sgd = i;
      if (forwards != 1 || nts > 1 || tns != 1 || b.sgd == kNoOp || ops[b.sgd].operands[1] != ops[b.tn].result ||
          uses_[ops[b.tn].result.id] != 1)
        continue;
      const double bytes = 4.0 * detail::elements(og_.info(l.weight).shape);
      out.push_back({std::move(l), b, bytes});
    }
    return out;
  }

  // Whether a matmul's B is a constant used only there, baked block by block where the plan
  // needs it.
  bool baked_b(const Op& op) const {
    if (op.kind != OpKind::kMatMul) return false;
    const Value b = op.operands[1];
    return og_.producer(b).kind == OpKind::kConstant && uses_[b.id] == 1 &&
           !tensors_[b.id].valid();
  }

  // Weight regions. An inference model whose baked matmul weights fill most of the chip (more
  // than half of what the firmware leaves on all tiles: AlexNet's classifier on ipu-gc2, 234
  // of 289 MB) would pile each layer's blocks and the convs' windows and weights on the same
  // tiles, since every op's grid starts at tile 0. Instead each such matmul gets a run of
  // tiles of its own, in order, sized so that its blocks fill a tile up to what the tile's
  // vertex state, send lists and the product's temporaries leave (kWeightFill of it, for
  // the grid's rounding), and the window ops (convs, pools, LRN) get the tiles left over.
  // So does a plan for the host (PlanFor::kHost) of a batch of one, whatever their size.
  void plan_weight_regions(const std::function<void(const std::string&)>& note) {
    if (train_) return;
    std::vector<std::pair<size_t, double>> baked;  // (op index, B's bytes)
    double total = 0;
    for (size_t i = 0; i < og_.ops().size(); ++i) {
      const Op& op = og_.ops()[i];
      if (!baked_b(op)) continue;
      const std::vector<uint32_t>& shape = og_.info(op.operands[1]).shape;
      baked.emplace_back(i, 4.0 * shape[0] * shape[1]);
      total += baked.back().second;
    }
    const uint32_t tiles = g_.target().tiles;
    // A plan for the host packs a classifier of few rows (up to kHostRegionRows: one image)
    // into few tiles, blocks as big as a tile holds: wider vertices (simd::matmul runs a row
    // of 64 columns as 8 chains, where 14 columns were 2, bound by the FMA's latency) and
    // its input sent to fewer tiles. AlexNet at batch 1 on ipu-mk2: the classifier's 3 layers
    // on 398 tiles, not 1,465 each, and 19 MB exchanged, not 44.
    constexpr uint32_t kHostRegionRows = 16;
    bool few_rows = true;
    for (const auto& [i, bytes] : baked)
      few_rows = few_rows && og_.info(og_.ops()[i].operands[0]).shape[0] <= kHostRegionRows;
    const bool host_regions = plan_for_ == ops::PlanFor::kHost && few_rows;
    if (total <= 0.5 * available_ * tiles && !host_regions) return;
    constexpr double kReserve = 12288, kWeightFill = 0.98;
    const double per_tile = available_ - kReserve;
    uint32_t first = 0;
    std::map<size_t, Region> regions;
    for (const auto& [i, bytes] : baked) {
      const auto n = static_cast<uint32_t>(std::ceil(bytes / (kWeightFill * per_tile)));
      regions[i] = {first, n, per_tile};
      first += n;
    }
    if (first >= tiles) {  // no room left: stream the biggest from device memory, if there is some
      plan_streaming(std::move(baked), total, note);
      return;
    }
    regions_ = std::move(regions);
    window_tiles_ = {first, tiles - first};
    if (!note) return;
    const auto range = [](uint32_t a, uint32_t n) {
      return "tiles " + std::to_string(a) + "-" + std::to_string(a + n - 1) + " (" + std::to_string(n) + ")";
    };
    std::string line = "weight regions (the constant matmuls' weights fill " +
                       std::to_string(static_cast<int>(100 * total / (available_ * tiles))) + "% of the tiles):";
    for (const auto& [i, r] : regions_) line += " " + og_.ops()[i].name + " " + range(r.first, r.count) + ";";
    note(line + " the convs, pools and LRNs " + range(first, tiles - first));
  }
  // Weight streaming (docs/weight-streaming.md): when the baked matmul weights cannot have
  // regions of their own, the biggest stay in the device's DRAM and stream to the tiles in
  // chunks, until the rest take at most kResident of what the firmware leaves on all tiles.
  // A chunk takes at most kChunk of a tile, and two are in flight. Every conv with constant
  // weights then loads them from device memory right before it, too.
  void plan_streaming(std::vector<std::pair<size_t, double>> baked, double total,
                      const std::function<void(const std::string&)>& note) {
    if (g_.target().device_memory_mib == 0) return;  // the memory planner will say what does not fit
    constexpr double kResident = 0.25, kChunk = 0.15;
    std::sort(baked.begin(), baked.end(), [](const auto& x, const auto& y) { return x.second > y.second; });
    std::string line;
    double streamed = 0;
    uint32_t convs = 0;
    for (const auto& [i, bytes] : baked) {
      if (total <= kResident * available_ * g_.target().tiles) break;
      streamed_.insert(i);
      total -= bytes;
      streamed += bytes;
      line += " " + og_.ops()[i].name + " (" + std::to_string(static_cast<int>(bytes / 1e6 + 0.5)) + " MB)";
    }
    chunk_bytes_ = kChunk * available_;
    // The convs' weights too, each loaded right before its conv.
    for (size_t i = 0; i < og_.ops().size(); ++i)
      if (og_.ops()[i].kind == OpKind::kConv2d && og_.producer(og_.ops()[i].operands[1]).kind == OpKind::kConstant) {
        streamed_.insert(i);
        ++convs;
      }
    if (note)
      note("weight streaming: " + std::to_string(static_cast<int>(streamed / 1e6 + 0.5)) +
           " MB of weights stay in device memory and stream to the tiles, double-buffered in chunks of at most " +
           std::to_string(static_cast<int>(chunk_bytes_)) + " bytes per tile:" + line + "; and the weights of " +
           std::to_string(convs) + " convs, each right before it");
  }
  bool streams_weights(const Op& op) override {
    return streamed_.count(static_cast<size_t>(&op - og_.ops().data())) > 0;
  }

  std::pair<uint32_t, uint32_t> window_tiles() override {
    return window_tiles_.second ? window_tiles_ : std::pair<uint32_t, uint32_t>{0, g_.target().tiles};
  }

  // The plan of a matmul: its region's, its layer's, else its own (plan_matmul on (m, k, n)).
  std::pair<ops::MatMulPlan, ops::MatMulOptions> matmul_plan(const Op& op, uint32_t m, uint32_t k, uint32_t n) const {
    const size_t index = static_cast<size_t>(&op - og_.ops().data());
    if (const auto r = regions_.find(index); r != regions_.end()) {
      const ops::MatMulPlan p =
          ops::plan_matmul(m, k, n, r->second.count, cost_, whole_rows_[op.result.id] ? 1 : 0xFFFFFFFFu, r->second.bytes,
                           plan_for_);
      ops::MatMulOptions o;
      o.tile = [first = r->second.first, p](uint32_t im, uint32_t ik, uint32_t in) {
        return first + (im * p.pk + ik) * p.pn + in;
      };
      return {p, o};
    }
    const auto it = layer_op_.find(index);
    if (it != layer_op_.end()) return it->second;
    // A weight another program stored block by block (graph/blocking.h): its grid, so that
    // the first row block's partials read the blocks in place.
    if (op.kind == OpKind::kMatMul && tensors_[op.operands[1].id].valid()) {
      const graph::Blocking& bl = g_.variables()[tensors_[op.operands[1].id].var].blocking;
      if (bl.blocked() && bl.rows == k && bl.cols == n) {
        ops::MatMulPlan best;
        for (uint32_t pm = 1; pm <= std::min(m, g_.target().tiles / (bl.pr * bl.pc)); ++pm)
          if (const ops::MatMulPlan p = ops::estimate_matmul(m, k, n, pm, bl.pr, bl.pc, cost_);
              pm == 1 || (p.bytes <= op_budget(index) && p.time(plan_for_) < best.time(plan_for_)))
            best = p;
        return {best, {}};
      }
    }
    return {ops::plan_matmul(m, k, n, g_.target().tiles, cost_, whole_rows_[op.result.id] ? 1 : 0xFFFFFFFFu,
                             op_budget(index), plan_for_),
            {}};
  }

  // A new tensor laid out like the parameter whose gradient `v` is, if that parameter is
  // placed; else invalid (the op makes its own).
  Tensor gradient_destination(Value v, const std::string& name) {
    const Value p = gradient_layout_[v.id];
    if (!p.valid() || !tensors_[p.id].valid()) return {};
    const Tensor& t = tensors_[p.id];
    if (!g_.variables()[t.var].mapping.all_mapped(t.begin, t.end)) return {};
    return ops::variable_like(g_, exe::DType::kF32, tensors_[p.id], name);
  }

  // Constants and parameters: tensors with an initial value, loaded before the program runs.
  bool is_weight(Value v) override {
    const OpKind k = og_.producer(v).kind;
    return k == OpKind::kConstant || k == OpKind::kParameter;
  }

  // The constant's variable, made on first use (unmapped: a matmul places its weights).
  Tensor constant(Value v) {
    Tensor& t = tensors_[v.id];
    if (!t.valid()) {
      const ValueInfo& i = og_.info(v);
      t = g_.add_variable(i.dtype, i.shape, og_.producer(v).name);
      g_.set_initial_value(t, og_.constant_data(v));
    }
    return t;
  }

  // The value's tensor, mapped (constants in whole rows per tile if nothing placed them).
  Tensor mapped(Value v) override {
    if (!is_weight(v)) return tensors_[v.id];
    const Tensor t = constant(v);
    if (g_.variables()[t.var].mapping.tile_at(0) < 0) {
      if (og_.producer(v).kind == OpKind::kParameter && t.shape.size() == 1 && t.size() <= kWholeBias) {
        // A parameter vector (a bias) whole on one tile, tiles taken in turn: its update
        // and the copies to the tiles using it come from there. A longer one in runs of 64
        // over the tiles: its gradient gathers the partial sums of each run where the run
        // lies (whole, AlexNet's 4096 would gather 64 KB on one tile).
        g_.set_tile_mapping(t, next_vector_tile_++ % g_.target().tiles);
      } else if (og_.producer(v).kind == OpKind::kParameter && t.shape.size() == 1) {
        g_.map_linearly(t, 64);
      } else {
        g_.map_linearly(t, grain(t.shape));
      }
    }
    return t;
  }

  // A tensor holding v that an in-place op may overwrite: v's own if this is its only use
  // and it is not a constant (constants are loaded once, before the program repeats), else
  // a copy with the same tile mapping.
  Tensor writable(Value v, graph::Program& body, const std::string& name) override {
    const Tensor src = mapped(v);
    if (in_place_ && uses_[v.id] == 1 && !is_weight(v)) return src;
    const ValueInfo& i = og_.info(v);
    Tensor dst = g_.add_variable(i.dtype, i.shape, name);
    const Tensor flat = dst.flatten();
    for (const graph::Interval& in : g_.intervals(src))
      g_.set_tile_mapping(flat.slice(in.begin - src.begin, in.end - src.begin), in.tile);
    body.add(graph::Copy(src, dst));
    return dst;
  }

  // ---- detail::LowerContext, for the registered ops (ops/op_def.h)
  graph::Graph& graph() override { return g_; }
  const OpGraph& op_graph() override { return og_; }
  const ops::CostModel& cost() override { return cost_; }
  double budget() override { return op_budget(current_); }
  double grad_budget() override {
    return grad_budget_ > 0 ? grad_budget_ * op_budget(current_) / budget_ : op_budget(current_);
  }
  // The budget of op `i`: memory_proportion's, or its own proportion's where that is smaller.
  double op_budget(size_t i) const {
    const auto it = op_proportions_.find(first_op_index_ + i);
    return it == op_proportions_.end() ? budget_ : std::min(budget_, it->second * available_);
  }
  // Replicated constants may take a quarter of what the firmware leaves on a tile, the
  // op's temporaries (budget_) half, and the model's other weights the rest. Counted per
  // tile: the window ops of a plan for the host each take tiles of their own
  // (spread_window_ops), so one op's weights do not crowd out another's; where every op
  // starts at the same tile, that tile holds them all, as a count over the model would.
  bool reserve_constant_bytes(uint32_t first, uint32_t count, double bytes) override {
    const size_t end = size_t{first} + count;
    if (replicated_bytes_.size() < end) replicated_bytes_.resize(end, 0.0);
    const auto b = replicated_bytes_.begin() + first, e = b + count;
    if (b == e || *std::max_element(b, e) + bytes > 0.5 * budget_) return false;
    for (auto t = b; t != e; ++t) *t += bytes;
    return true;
  }
  // The convs' input windows' send lists may take a quarter of what the firmware leaves,
  // shared equally.
  double send_budget() override { return 0.5 * budget_ / std::max<uint32_t>(1, convs_); }
  ops::PlanFor plan_for() override { return plan_for_; }
  bool spread_window_ops() override { return spread_window_ops_; }
  void set_result(const Op& op, const graph::Tensor& t) override { tensors_[op.result.id] = t; }
  void note(const std::string& line) override {
    if (note_) note_(line);
  }

  // lower_op_as_planned, recorded in lowered_ops_ with the vertices it made.
  void lower_op(const Op& op, graph::Program& body) {
    current_ = static_cast<size_t>(&op - og_.ops().data());
    if (!lowered_ops_) return lower_op_as_planned(op, body);
    const size_t at = lowered_ops_->size(), vertices = g_.vertices().size();
    lowered_ops_->push_back({static_cast<uint32_t>(g_.variables().size()), first_op_index_ + current_, base(op)});
    lower_op_as_planned(op, body);
    (*lowered_ops_)[at].vertices = g_.vertices().size() - vertices;
  }

  void lower_op_as_planned(const Op& op, graph::Program& body) {
    if (const auto it = backward_at_.find(static_cast<size_t>(&op - og_.ops().data())); it != backward_at_.end()) {
      streamed_backward(it->second, body);
      return;
    }
    if (const detail::OpDef* def = detail::find_op_def(op.kind)) {
      def->lower(*this, op, body);
      return;
    }
    const ValueInfo& r = og_.info(op.result);
    switch (op.kind) {
      case OpKind::kInput: {
        Tensor t = g_.add_variable(r.dtype, r.shape, op.name);
        g_.map_linearly(t, grain(r.shape));  // whole rows per tile
        body.add(graph::HostWrite(g_.add_stream(op.name, r.dtype, r.shape), t));
        tensors_[op.result.id] = t;
        break;
      }
      case OpKind::kConstant:
      case OpKind::kParameter:
        break;  // made where it is first used
      case OpKind::kMatMul: {
        const Value a = op.operands[0], b = op.operands[1];
        const Tensor ta = mapped(a);
        const ValueInfo& ia = og_.info(a);
        if (const auto it = streamed_w_.find(b.id); it != streamed_w_.end()) {
          tensors_[op.result.id] = it->second->forward(g_, body, ta, whole_rows_[op.result.id], base(op) + ".matmul");
          break;
        }
        if (streamed_.count(static_cast<size_t>(&op - og_.ops().data()))) {
          ops::StreamedMatMulOptions so;
          so.chunk_bytes_per_tile = chunk_bytes_;
          so.max_bytes = op_budget(current_);
          so.whole_rows = whole_rows_[op.result.id];
          tensors_[op.result.id] = ops::streamed_matmul(g_, body, ta, og_.constant_data(b), cost_, base(op) + ".matmul", so);
          break;
        }
        auto [plan, opts] = matmul_plan(op, ia.shape[0], ia.shape[1], r.shape[1]);
        // A constant used only here is baked block by block where the plan needs it.
        const bool bake = baked_b(op);
        if (bake) {
          opts.b_values = &og_.constant_data(b);
          opts.b_name = og_.producer(b).name;
        }
        const Tensor tb = bake ? Tensor{} : is_weight(b) ? constant(b) : mapped(b);
        tensors_[op.result.id] = ops::matmul(g_, body, ta, tb, plan, base(op) + ".matmul", opts);
        break;
      }
      case OpKind::kAddBias: {
        const Tensor x = writable(op.operands[0], body, base(op) + ".bias.in");
        if (og_.producer(op.operands[1]).kind == OpKind::kParameter)  // read where it lies, each time
          ops::add_bias(g_, body, x, mapped(op.operands[1]), base(op) + ".bias");
        else
          ops::add_bias(g_, body, x, og_.constant_data(op.operands[1]), base(op) + ".bias");
        tensors_[op.result.id] = x;
        break;
      }
      case OpKind::kRelu: {
        const Tensor x = writable(op.operands[0], body, base(op) + ".relu.in");
        ops::relu(g_, body, x, base(op) + ".relu");
        tensors_[op.result.id] = x;
        break;
      }
      case OpKind::kSoftmax: {
        // In place, on rows whole on a tile: a transposed or reshaped operand's rows may
        // run across tiles, and are then copied into whole rows first.
        Tensor x = writable(op.operands[0], body, base(op) + ".softmax.in");
        x = ops::whole_rows(g_, body, x, base(op) + ".softmax.rows");
        ops::softmax(g_, body, x, base(op) + ".softmax");
        tensors_[op.result.id] = x;
        break;
      }
      case OpKind::kArgmax:
        tensors_[op.result.id] = ops::argmax(g_, body, mapped(op.operands[0]), base(op) + ".argmax");
        break;
      case OpKind::kOutput:
      case OpKind::kSgdMomentum:
        break;  // run() places them
      case OpKind::kMatMulTN: {
        // a [k,m]^T b [k,n]: planned on (m, k, n) of the product.
        const Value a = op.operands[0], b = op.operands[1];
        const ValueInfo& ia = og_.info(a);
        auto [plan, opts] = matmul_plan(op, r.shape[0], ia.shape[0], r.shape[1]);
        if (opts.tile) opts.c = gradient_destination(op.result, base(op) + ".matmul_tn");  // where W lies
        tensors_[op.result.id] = ops::matmul_tn(g_, body, mapped(a), mapped(b), plan, base(op) + ".matmul_tn", opts);
        break;
      }
      case OpKind::kMatMulNT: {
        // a [m,k] b [n,k]^T.
        const Value a = op.operands[0], b = op.operands[1];
        const ValueInfo& ia = og_.info(a);
        const auto [plan, opts] = matmul_plan(op, r.shape[0], ia.shape[1], r.shape[1]);
        tensors_[op.result.id] = ops::matmul_nt(g_, body, mapped(a), mapped(b), plan, base(op) + ".matmul_nt", opts);
        break;
      }
      case OpKind::kAdd: {
        const Tensor dst = writable(op.operands[0], body, base(op) + ".add.in");
        ops::add(g_, body, dst, dst, mapped(op.operands[1]), base(op) + ".add");
        tensors_[op.result.id] = dst;
        break;
      }
      case OpKind::kReluGrad: {
        const Tensor dx = writable(op.operands[0], body, base(op) + ".relu_grad.in");
        ops::relu_grad(g_, body, dx, dx, mapped(op.operands[1]), base(op) + ".relu_grad");
        tensors_[op.result.id] = dx;
        break;
      }
      case OpKind::kBiasGrad:
        // Reduced onto the bias's own tile(s) when it is a parameter's gradient.
        tensors_[op.result.id] = ops::bias_grad(g_, body, mapped(op.operands[0]), base(op) + ".bias_grad",
                                                gradient_destination(op.result, base(op) + ".bias_grad"));
        break;
      case OpKind::kSoftmaxXent:
      case OpKind::kSoftmaxXentGrad:
        softmax_xent(op, body);
        break;
      default:
        throw OpGraphError(what(op) + ": cannot be lowered");
    }
  }

  // softmax_xent and softmax_xent_grad of the same logits and labels are one vertex per
  // row block (the codelet writes both): lowered at the first of the two, the second then
  // finds its result made. Alone, either gets the other's result in a scratch tensor.
  // A streamed weight's gradients and update (plan_streamed_weights): dX (if wanted) for the
  // input gradient's result; the weight gradient never made whole.
  void streamed_backward(const StreamedBackward& b, graph::Program& body) {
    const std::vector<Op>& ops = og_.ops();
    const Op& tn = ops[b.tn];
    const Op& sgd = ops[b.sgd];
    const bool want_dx = b.nt != kNoOp;
    const ops::SgdSchedule s{sgd.momentum, sgd.lr0, sgd.total_steps};
    const Tensor dx = streamed_w_.at(b.w.id)->backward(g_, body, mapped(tn.operands[0]), mapped(tn.operands[1]), want_dx,
                                                       s, base(tn) + ".streamed");
    if (want_dx) tensors_[ops[b.nt].result.id] = dx;
  }

  void softmax_xent(const Op& op, graph::Program& body) {
    if (tensors_[op.result.id].valid()) return;  // made with its partner
    const OpKind other = op.kind == OpKind::kSoftmaxXent ? OpKind::kSoftmaxXentGrad : OpKind::kSoftmaxXent;
    const Op* partner = nullptr;
    for (const Op& o : og_.ops())
      if (o.kind == other && o.operands == op.operands) {
        partner = &o;
        break;
      }
    const Op* grad = op.kind == OpKind::kSoftmaxXentGrad ? &op : partner;
    const Op* loss = op.kind == OpKind::kSoftmaxXent ? &op : partner;
    const Tensor logits = ops::whole_rows(g_, body, mapped(op.operands[0]), base(op) + ".xent.rows");
    const ops::SoftmaxXent r =
        ops::softmax_xent(g_, body, logits, mapped(op.operands[1]), grad ? grad->scale : 1.0f, base(op) + ".xent");
    if (loss) tensors_[loss->result.id] = r.loss;
    if (grad) tensors_[grad->result.id] = r.dlogits;
  }

  // A baked matmul's tiles: [first, first + count), within `bytes` per tile.
  struct Region {
    uint32_t first = 0, count = 0;
    double bytes = 0;
  };

  const OpGraph& og_;
  graph::Graph& g_;
  const ops::CostModel cost_;
  const double available_;  // bytes of a tile's SRAM above the firmware
  const double budget_;
  const std::map<size_t, double> op_proportions_;  // LowerOptions::op_proportions
  std::vector<LoweredOp>* const lowered_ops_;      // LowerOptions::lowered_ops
  const size_t first_op_index_;                    // LowerOptions::first_op_index
  size_t current_ = 0;                             // the op being lowered
  uint32_t convs_ = 0;
  double grad_budget_ = 0;  // a big model's gradient ops' budget (plan_layers); 0: budget_
  const bool train_;
  const bool force_big_;  // LowerOptions::big_model
  const bool in_place_, early_updates_;  // LowerOptions::in_place, early_updates
  const ops::PlanFor plan_for_;          // LowerOptions::plan_for
  const bool spread_window_ops_;         // LowerOptions::spread_window_ops
  const std::set<OpKind> recompute_;     // LowerOptions::recompute
  const std::function<void(const std::string&)> note_;  // LowerOptions::note
  uint32_t next_vector_tile_ = 0;
  static constexpr uint32_t kWholeBias = 1024;  // longer parameter vectors are spread (mapped())
  std::vector<double> replicated_bytes_;  // per tile: constants baked on every tile that reads them
  ops::SgdState sgd_;  // what run()'s updates made
  std::vector<Tensor> tensors_;
  std::vector<uint32_t> uses_;
  std::map<uint32_t, std::string> name_suffix_;  // by result id: "#k" for the k-th op of a shared name
  std::set<uint32_t> recomputed_;                // values made again for the gradient ops
  std::vector<bool> whole_rows_;
  bool big_ = false;  // a model whose weights fill the tiles (plan_layers)
  std::vector<Value> gradient_layout_;  // per value: the parameter it is the gradient of
  std::map<size_t, std::pair<ops::MatMulPlan, ops::MatMulOptions>> layer_op_;  // by op index
  std::map<size_t, Region> regions_;                // weight regions, by op index
  std::set<size_t> streamed_;                       // ops whose constant weights stream from device memory
  // Training weights in device memory (plan_streamed_weights): by the weight's value id; the
  // op where each one's gradients and update are lowered, by op index; the ops skipped.
  std::map<uint32_t, std::shared_ptr<const ops::StreamedWeight>> streamed_w_;
  std::map<size_t, StreamedBackward> backward_at_;
  std::set<size_t> skip_;
  double chunk_bytes_ = 0;                          // a streamed chunk's bytes per tile
  std::pair<uint32_t, uint32_t> window_tiles_{0, 0};  // the window ops' tiles with regions
};

}  // namespace

std::map<std::string, Tensor> lower(const OpGraph& og, graph::Graph& g, const LowerOptions& o, ops::SgdState* sgd) {
  if (o.batches == 0) throw OpGraphError("lower: batches must be at least 1");
  Lowering l(og, g, o);
  graph::Program body = l.run();
  const std::string name = !o.program.empty() ? o.program : o.train ? "train" : "infer";
  try {
    g.add_program(name, o.batches > 1 ? graph::Repeat(o.batches, std::move(body)) : std::move(body));
  } catch (const graph::GraphError& e) {
    throw OpGraphError(std::string("lower: ") + e.what());
  }
  if (sgd) *sgd = l.sgd();
  return l.parameters();
}

}  // namespace tessera::opgraph
