// ONNX import (import.h): the model checked, its initializers decoded, its inputs made
// streams, its nodes converted one by one in graph order (import_*.cpp), its outputs made
// output streams. Every check names the file and the node.
#include "tessera/onnx/import.h"

#include <climits>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>

#include "importer.h"

namespace tessera::onnx_import {

namespace detail {

namespace {

constexpr uint64_t kMaxElements = uint64_t{1} << 31;

using Converter = void (*)(Importer&);

const std::map<std::string, Converter>& converters() {
  static const std::map<std::string, Converter> m = {
      {"Conv", [](Importer& i) { i.conv(); }},
      {"MaxPool", [](Importer& i) { i.pool(true); }},
      {"AveragePool", [](Importer& i) { i.pool(false); }},
      {"GlobalAveragePool", [](Importer& i) { i.global_average_pool(); }},
      {"LRN", [](Importer& i) { i.lrn(); }},
      {"BatchNormalization", [](Importer& i) { i.batch_norm(); }},
      {"Gemm", [](Importer& i) { i.gemm(); }},
      {"MatMul", [](Importer& i) { i.matmul(); }},
      {"Add", [](Importer& i) { i.binary(opgraph::BinaryOp::kAdd); }},
      {"Sub", [](Importer& i) { i.binary(opgraph::BinaryOp::kSub); }},
      {"Mul", [](Importer& i) { i.binary(opgraph::BinaryOp::kMul); }},
      {"Div", [](Importer& i) { i.binary(opgraph::BinaryOp::kDiv); }},
      {"Relu", [](Importer& i) { i.unary("Relu"); }},
      {"LeakyRelu", [](Importer& i) { i.unary("LeakyRelu"); }},
      {"Sigmoid", [](Importer& i) { i.unary("Sigmoid"); }},
      {"Tanh", [](Importer& i) { i.unary("Tanh"); }},
      {"Clip", [](Importer& i) { i.unary("Clip"); }},
      {"Softmax", [](Importer& i) { i.softmax(); }},
      {"Flatten", [](Importer& i) { i.flatten(); }},
      {"Reshape", [](Importer& i) { i.reshape(); }},
      {"Transpose", [](Importer& i) { i.transpose(); }},
      {"Concat", [](Importer& i) { i.concat(); }},
      {"Squeeze", [](Importer& i) { i.squeeze(false); }},
      {"Unsqueeze", [](Importer& i) { i.squeeze(true); }},
      {"Dropout", [](Importer& i) { i.pass_through(); }},
      {"Identity", [](Importer& i) { i.pass_through(); }},
      {"Pad", [](Importer& i) { i.pass_through(); }},  // all-zero pads only (PyTorch's AvgPool export)
      {"Constant", [](Importer& i) { i.constant_node(); }},
      // Shape arithmetic, folded at import (what exporters emit around a dynamic batch).
      {"Shape", [](Importer& i) { i.shape_node(); }},
      {"Gather", [](Importer& i) { i.gather(); }},
      {"Cast", [](Importer& i) { i.cast(); }},
  };
  return m;
}

std::string dims_text(const std::vector<int64_t>& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
  return s + "]";
}

const char* attr_type_name(int t) {
  switch (t) {
    case onnx::AttributeProto::FLOAT: return "FLOAT";
    case onnx::AttributeProto::INT: return "INT";
    case onnx::AttributeProto::STRING: return "STRING";
    case onnx::AttributeProto::TENSOR: return "TENSOR";
    case onnx::AttributeProto::FLOATS: return "FLOATS";
    case onnx::AttributeProto::INTS: return "INTS";
    default: return "another type";
  }
}

}  // namespace

uint64_t element_count(const std::vector<int64_t>& dims) {
  uint64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) return UINT64_MAX;
    if (d != 0 && n > kMaxElements / static_cast<uint64_t>(d)) return UINT64_MAX;
    n *= static_cast<uint64_t>(d);
  }
  return n;
}

std::vector<int64_t> to_dims(const std::vector<uint32_t>& shape) { return {shape.begin(), shape.end()}; }

// ---- the node being imported

void Importer::fail(const std::string& why) const {
  std::string where = what_ + ": ";
  if (node_) {
    where += "node " + std::to_string(index_);
    if (!node_->name().empty()) where += " '" + node_->name() + "'";
    where += " (" + node_->op_type() + "): ";
  }
  throw ImportError(where + why);
}

const onnx::AttributeProto* Importer::attr(const char* name) const {
  for (const onnx::AttributeProto& a : node_->attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

bool Importer::has_attr(const char* name) const { return attr(name) != nullptr; }

int64_t Importer::attr_int(const char* name, int64_t dflt) const {
  const onnx::AttributeProto* a = attr(name);
  if (!a) return dflt;
  if (a->type() != onnx::AttributeProto::INT)
    fail(std::string("attribute ") + name + " is " + attr_type_name(a->type()) + ", expected INT");
  return a->i();
}

float Importer::attr_float(const char* name, float dflt) const {
  const onnx::AttributeProto* a = attr(name);
  if (!a) return dflt;
  if (a->type() != onnx::AttributeProto::FLOAT)
    fail(std::string("attribute ") + name + " is " + attr_type_name(a->type()) + ", expected FLOAT");
  return a->f();
}

std::string Importer::attr_string(const char* name, const std::string& dflt) const {
  const onnx::AttributeProto* a = attr(name);
  if (!a) return dflt;
  if (a->type() != onnx::AttributeProto::STRING)
    fail(std::string("attribute ") + name + " is " + attr_type_name(a->type()) + ", expected STRING");
  return a->s();
}

std::vector<int64_t> Importer::attr_ints(const char* name, std::vector<int64_t> dflt) const {
  const onnx::AttributeProto* a = attr(name);
  if (!a) return dflt;
  if (a->type() != onnx::AttributeProto::INTS)
    fail(std::string("attribute ") + name + " is " + attr_type_name(a->type()) + ", expected INTS");
  return {a->ints().begin(), a->ints().end()};
}

void Importer::known_attrs(std::initializer_list<const char*> known) const {
  for (const onnx::AttributeProto& a : node_->attribute()) {
    bool ok = false;
    for (const char* k : known) ok = ok || a.name() == k;
    if (!ok) fail("attribute " + a.name() + " is not supported");
  }
}

void Importer::input_count(int min, int max) const {
  int n = node_->input_size();
  while (n > 0 && node_->input(n - 1).empty()) --n;  // trailing optional inputs left out
  if (n < min || n > max)
    fail("has " + std::to_string(n) + " inputs, expected " +
         (min == max ? std::to_string(min) : std::to_string(min) + " to " + std::to_string(max)));
  for (int i = 0; i < min; ++i)
    if (node_->input(i).empty()) fail("input " + std::to_string(i) + " is required but empty");
}

bool Importer::has_input(int i) const { return i < node_->input_size() && !node_->input(i).empty(); }

const Tensor& Importer::in(int i) const {
  if (!has_input(i)) fail("input " + std::to_string(i) + " is missing");
  const auto it = env_.find(node_->input(i));
  if (it == env_.end())
    fail("input " + std::to_string(i) + " '" + node_->input(i) +
         "' is no graph input, initializer or output of an earlier node");
  return it->second;
}

const Const& Importer::constant(int i, const char* role) const {
  const Tensor& t = in(i);
  if (!t.c)
    fail(std::string(role) + " (input " + std::to_string(i) + " '" + node_->input(i) +
         "') must be a constant (an initializer or a Constant's output), not computed at run time");
  return *t.c;
}

opgraph::Value Importer::make_constant(const std::string& name, const Const& c) {
  if (!c.is_float)
    fail("the integer tensor '" + name + "' is used as data: integer tensors are supported only as shapes, axes "
         "and indices");
  std::vector<uint32_t> shape;
  for (int64_t d : c.dims) shape.push_back(static_cast<uint32_t>(d));
  if (shape.empty()) shape = {1};  // a scalar: broadcasts as [1]
  if (element_count(c.dims) == 0) fail("the constant '" + name + "' has no elements");
  // Derived constants (a transposed weight, a folded bias) of one initializer may be made
  // more than once, for several nodes: each gets a name of its own.
  const int n = constant_names_[name]++;
  return og_.constant(n ? name + "." + std::to_string(n) : name, shape, c.f);
}

opgraph::Value Importer::value(int i) {
  const Tensor& t = in(i);
  if (t.v.valid()) return t.v;
  const opgraph::Value v = make_constant(node_->input(i), *t.c);
  env_[node_->input(i)].v = v;
  return v;
}

std::vector<uint32_t> Importer::shape(int i) const {
  const Tensor& t = in(i);
  if (t.v.valid()) return og_.info(t.v).shape;
  std::vector<uint32_t> s;
  for (int64_t d : t.c->dims) s.push_back(static_cast<uint32_t>(d));
  return s;
}

std::vector<int64_t> Importer::ints(int i, const char* role) const {
  const Const& c = constant(i, role);
  if (c.is_float) fail(std::string(role) + " (input " + std::to_string(i) + ") must be an integer tensor");
  if (c.dims.size() > 1) fail(std::string(role) + " (input " + std::to_string(i) + ") must be 1-D");
  return c.i;
}

void Importer::only_outputs(int used) const {
  for (int o = used; o < node_->output_size(); ++o) {
    const std::string& n = node_->output(o);
    if (!n.empty() && (consumers_.count(n) || graph_outputs_.count(n)))
      fail("output " + std::to_string(o) + " ('" + n + "') is used: only the first " + std::to_string(used) +
           (used == 1 ? " output is" : " outputs are") + " supported");
  }
}

void Importer::set(int out, opgraph::Value v) {
  if (out >= node_->output_size() || node_->output(out).empty()) fail("output " + std::to_string(out) + " is missing");
  env_[node_->output(out)] = Tensor{std::nullopt, v};
}

void Importer::set(int out, Const c) {
  if (out >= node_->output_size() || node_->output(out).empty()) fail("output " + std::to_string(out) + " is missing");
  env_[node_->output(out)] = Tensor{std::move(c), {}};
}

void Importer::set(int out, const Tensor& t) {
  if (out >= node_->output_size() || node_->output(out).empty()) fail("output " + std::to_string(out) + " is missing");
  env_[node_->output(out)] = t;
}

std::string Importer::layer() const {
  return node_->name().empty() ? node_->op_type() + "_" + std::to_string(index_) : node_->name();
}

uint32_t Importer::axis(int64_t a, size_t rank, const char* what, bool inclusive) const {
  const int64_t r = static_cast<int64_t>(rank) + (inclusive ? 1 : 0);
  if (a < -r || a >= r)
    fail(std::string(what) + " " + std::to_string(a) + " is out of range for rank " + std::to_string(rank));
  return static_cast<uint32_t>(a < 0 ? a + r : a);
}

// ---- the model

Const Importer::decode(const onnx::TensorProto& t, const std::string& what) const {
  Const c;
  for (int64_t d : t.dims()) {
    if (d < 0) fail(what + ": dimension " + std::to_string(d) + " is negative");
    c.dims.push_back(d);
  }
  const uint64_t n = element_count(c.dims);
  if (n > kMaxElements) fail(what + ": " + dims_text(c.dims) + " has more than 2^31 elements");
  if (t.data_location() == onnx::TensorProto::EXTERNAL)
    fail(what + ": data stored outside the model file (external data) is not supported");
  if (t.has_segment()) fail(what + ": segmented tensors are not supported");
  const std::string& raw = t.raw_data();
  auto sized = [&](size_t have, size_t elem_bytes) {
    if (have != n)
      fail(what + ": " + dims_text(c.dims) + " needs " + std::to_string(n) + " elements, the tensor holds " +
           std::to_string(have) + (elem_bytes ? " (" + std::to_string(raw.size()) + " raw bytes)" : ""));
  };
  switch (t.data_type()) {
    case onnx::TensorProto::FLOAT:
      c.is_float = true;
      if (t.has_raw_data()) {
        if (raw.size() % 4) sized(raw.size() / 4 + 1, 4);
        sized(raw.size() / 4, 4);
        c.f.resize(n);
        if (n) std::memcpy(c.f.data(), raw.data(), n * 4);
      } else {
        sized(static_cast<size_t>(t.float_data_size()), 0);
        c.f.assign(t.float_data().begin(), t.float_data().end());
      }
      return c;
    case onnx::TensorProto::INT64:
      c.is_float = false;
      if (t.has_raw_data()) {
        if (raw.size() % 8) sized(raw.size() / 8 + 1, 8);
        sized(raw.size() / 8, 8);
        c.i.resize(n);
        if (n) std::memcpy(c.i.data(), raw.data(), n * 8);
      } else {
        sized(static_cast<size_t>(t.int64_data_size()), 0);
        c.i.assign(t.int64_data().begin(), t.int64_data().end());
      }
      return c;
    case onnx::TensorProto::INT32:
      c.is_float = false;
      if (t.has_raw_data()) {
        if (raw.size() % 4) sized(raw.size() / 4 + 1, 4);
        sized(raw.size() / 4, 4);
        std::vector<int32_t> v(n);
        if (n) std::memcpy(v.data(), raw.data(), n * 4);
        c.i.assign(v.begin(), v.end());
      } else {
        sized(static_cast<size_t>(t.int32_data_size()), 0);
        c.i.assign(t.int32_data().begin(), t.int32_data().end());
      }
      return c;
    default:
      fail(what + ": element type " + std::to_string(t.data_type()) +
           " is not supported (float; int64 and int32 only as shapes)");
  }
}

void Importer::read_initializers() {
  for (const onnx::TensorProto& t : m_.graph().initializer()) {
    if (t.name().empty()) fail("an initializer has no name");
    if (env_.count(t.name())) fail("initializer '" + t.name() + "' is defined twice");
    env_[t.name()] = Tensor{decode(t, "initializer '" + t.name() + "'"), {}};
  }
}

void Importer::read_inputs() {
  for (const onnx::ValueInfoProto& vi : m_.graph().input()) {
    if (env_.count(vi.name()) && env_[vi.name()].c) continue;  // an initializer (older exporters list them)
    const std::string who = "graph input '" + vi.name() + "'";
    if (vi.name().empty()) fail("a graph input has no name");
    if (env_.count(vi.name())) fail(who + " is defined twice");
    if (!vi.type().has_tensor_type()) fail(who + " is not a tensor");
    const onnx::TypeProto::Tensor& tt = vi.type().tensor_type();
    if (tt.elem_type() != onnx::TensorProto::FLOAT)
      fail(who + ": element type " + std::to_string(tt.elem_type()) + " is not supported (float only)");
    if (!tt.has_shape()) fail(who + " has no shape (a dynamic rank is not supported)");
    std::vector<uint32_t> shape;
    for (int d = 0; d < tt.shape().dim_size(); ++d) {
      const onnx::TensorShapeProto::Dimension& dim = tt.shape().dim(d);
      if (dim.has_dim_value()) {
        if (dim.dim_value() <= 0 || dim.dim_value() > INT32_MAX)
          fail(who + ": dimension " + std::to_string(d) + " is " + std::to_string(dim.dim_value()));
        if (d == 0 && o_.batch && static_cast<uint64_t>(dim.dim_value()) != o_.batch)
          fail(who + " fixes its batch dimension at " + std::to_string(dim.dim_value()) + ", not the batch " +
               std::to_string(o_.batch) + " asked for");
        shape.push_back(static_cast<uint32_t>(dim.dim_value()));
        continue;
      }
      const std::string sym = dim.has_dim_param() ? " ('" + dim.dim_param() + "')" : "";
      if (d != 0)
        fail(who + ": dimension " + std::to_string(d) + sym +
             " is dynamic: only the batch dimension (0) may be, with --batch");
      if (!o_.batch) fail(who + ": the batch dimension" + sym + " is dynamic: give the batch size (--batch N)");
      shape.push_back(o_.batch);
    }
    if (shape.empty()) fail(who + " is a scalar: inputs need at least one dimension");
    if (element_count(to_dims(shape)) > kMaxElements) fail(who + " has more than 2^31 elements");
    env_[vi.name()] = Tensor{std::nullopt, og_.input(vi.name(), opgraph::DType::kF32, shape)};
    inputs_.push_back(vi.name());
  }
  if (inputs_.empty()) fail("the graph has no inputs (other than initializers)");
}

void Importer::count_uses() {
  const onnx::GraphProto& g = m_.graph();
  for (int n = 0; n < g.node_size(); ++n)
    for (const std::string& i : g.node(n).input())
      if (!i.empty()) consumers_[i].push_back(n);
  for (const onnx::ValueInfoProto& o : g.output()) graph_outputs_[o.name()] = true;
}

// Scopes the node being imported, for error messages.
struct NodeScope {
  Importer& im;
  NodeScope(Importer& i, const onnx::NodeProto* n, int index) : im(i) {
    im.node_ = n;
    im.index_ = index;
  }
  ~NodeScope() {
    im.node_ = nullptr;
    im.index_ = -1;
  }
};

void Importer::import_node(int index) {
  const onnx::NodeProto& n = m_.graph().node(index);
  NodeScope scope(*this, &n, index);
  if (folded_.count(index)) return;
  if (!n.domain().empty() && n.domain() != "ai.onnx")
    fail("domain '" + n.domain() + "' is not supported (only the default ONNX domain)");
  const auto it = converters().find(n.op_type());
  if (it == converters().end()) fail("op " + n.op_type() + " is not supported (supported: " + supported_ops() + ")");
  if (n.output_size() == 0 || n.output(0).empty()) fail("has no output");
  for (const std::string& o : n.output())
    if (!o.empty() && env_.count(o)) fail("output '" + o + "' is defined twice");
  try {
    it->second(*this);
  } catch (const opgraph::OpGraphError& e) {
    fail(e.what());
  }
}

void Importer::write_outputs(Model& model) {
  const onnx::GraphProto& g = m_.graph();
  if (g.output_size() == 0) fail("the graph has no outputs");
  for (const onnx::ValueInfoProto& o : g.output()) {
    const auto it = env_.find(o.name());
    const std::string who = "graph output '" + o.name() + "'";
    if (it == env_.end()) fail(who + " is made by no node");
    opgraph::Value v = it->second.v;
    if (!v.valid()) {
      if (!it->second.c->is_float) fail(who + " is an integer tensor: not supported");
      v = make_constant(o.name() + ".value", *it->second.c);
    }
    // The model's own shape for it, where it gives one, must be what the import computed.
    const std::vector<uint32_t>& got = og_.info(v).shape;
    if (o.type().has_tensor_type() && o.type().tensor_type().has_shape()) {
      const onnx::TensorShapeProto& s = o.type().tensor_type().shape();
      bool same = s.dim_size() == static_cast<int>(got.size());
      for (int d = 0; same && d < s.dim_size(); ++d)
        same = !s.dim(d).has_dim_value() || s.dim(d).dim_value() == got[d];
      if (!same && !(s.dim_size() == 0 && got == std::vector<uint32_t>{1}))
        fail(who + ": the model declares " + std::to_string(s.dim_size()) + " dims that differ from the imported " +
             opgraph::type_string(opgraph::DType::kF32, got));
    }
    try {
      og_.output(o.name(), v);
    } catch (const opgraph::OpGraphError& e) {
      fail(who + ": " + e.what());
    }
    model.outputs.push_back(o.name());
  }
}

Model Importer::run() {
  if (!m_.has_graph()) fail("no graph (not an ONNX model, or an empty one)");
  for (const onnx::OperatorSetIdProto& os : m_.opset_import())
    if (os.domain().empty() || os.domain() == "ai.onnx") opset_ = os.version();
  if (opset_ == 0) fail("imports no opset of the default ONNX domain");
  if (opset_ < 11 || opset_ > 17)
    fail("opset " + std::to_string(opset_) + " is not supported (11 to 17; re-export, e.g. torch.onnx.export(..., "
         "opset_version=13))");
  read_initializers();
  read_inputs();
  count_uses();
  for (int n = 0; n < m_.graph().node_size(); ++n) import_node(n);
  Model model;
  write_outputs(model);
  model.opset = opset_;
  model.producer = m_.producer_name() + (m_.producer_version().empty() ? "" : " " + m_.producer_version());
  model.inputs = inputs_;
  model.folded_batch_norms = folded_count_;
  model.graph = std::move(og_);
  return model;
}

}  // namespace detail

std::string supported_ops() {
  std::string s;
  for (const auto& [name, conv] : detail::converters()) s += (s.empty() ? "" : ", ") + name;
  return s;
}

Model import_model(std::span<const std::byte> bytes, const std::string& what, const ImportOptions& o) {
  if (bytes.size() > static_cast<size_t>(INT_MAX))
    throw ImportError(what + ": " + std::to_string(bytes.size()) + " bytes: models of 2 GiB or more are not supported");
  onnx::ModelProto m;
  if (bytes.empty() || !m.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    throw ImportError(what + ": not an ONNX model (the protobuf does not parse: a truncated or damaged file, or "
                             "another format)");
  return detail::Importer(m, what, o).run();
}

Model import_file(const std::string& path, const ImportOptions& o) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw ImportError(path + ": cannot open for reading");
  // Read whole, in one call (a byte-wise iterator over AlexNet's 244 MB took a second).
  f.seekg(0, std::ios::end);
  const std::streamoff size = f.tellg();
  f.seekg(0, std::ios::beg);
  if (size < 0 || !f) throw ImportError(path + ": cannot tell its size (not a regular file?)");
  std::vector<char> c(static_cast<size_t>(size));
  if (!f.read(c.data(), size)) throw ImportError(path + ": read error");
  return import_model(std::as_bytes(std::span(c)), path, o);
}

}  // namespace tessera::onnx_import
