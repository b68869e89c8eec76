// See noc_mesh.h.
#include "tessera/vlt/noc_mesh.h"

#include <cstdio>
#include <stdexcept>
#include <type_traits>

#include "Vtess_units.h"
#include "tessera/arch/flit.h"
#include "verilated.h"

namespace tessera::vlt {
namespace {

// Field offsets of the flit (arch/flit.toml).
constexpr int kDataLsb = arch::kFlitDataLsb, kAddrLsb = arch::kFlitAddrLsb, kDstLsb = arch::kFlitDstLsb,
              kKindLsb = arch::kFlitKindLsb;
constexpr int kFlitW = arch::kFlitBits;

// Bits [lsb, lsb + width) of a Verilator wide vector (array of 32-bit words), width <= 32.
uint32_t get_bits(const uint32_t* w, int lsb, int width) {
  uint64_t v = w[lsb / 32];
  if (lsb % 32 + width > 32) v |= static_cast<uint64_t>(w[lsb / 32 + 1]) << 32;
  v >>= lsb % 32;
  return static_cast<uint32_t>(v & ((uint64_t{1} << width) - 1));
}

void set_bits(uint32_t* w, int lsb, int width, uint32_t value) {
  const uint64_t mask = ((uint64_t{1} << width) - 1) << (lsb % 32);
  const uint64_t v = (static_cast<uint64_t>(value) << (lsb % 32)) & mask;
  const int i = lsb / 32;
  w[i] = static_cast<uint32_t>((w[i] & ~mask) | v);
  if (mask >> 32) w[i + 1] = static_cast<uint32_t>((w[i + 1] & ~(mask >> 32)) | (v >> 32));
}

void pack(uint32_t* w, int index, const NocFlit& f) {
  const int base = index * kFlitW;
  set_bits(w, base + kDataLsb, arch::kFlitDataBits, f.data);
  set_bits(w, base + kAddrLsb, arch::kFlitAddrBits, f.addr);
  set_bits(w, base + kDstLsb, arch::kFlitDstBits, f.dst);
  set_bits(w, base + kKindLsb, arch::kFlitKindBits, f.kind);
}

NocFlit unpack(const uint32_t* w, int index) {
  const int base = index * kFlitW;
  NocFlit f;
  f.data = get_bits(w, base + kDataLsb, arch::kFlitDataBits);
  f.addr = get_bits(w, base + kAddrLsb, arch::kFlitAddrBits);
  f.dst = static_cast<uint16_t>(get_bits(w, base + kDstLsb, arch::kFlitDstBits));
  f.kind = static_cast<uint8_t>(get_bits(w, base + kKindLsb, arch::kFlitKindBits));
  return f;
}

template <typename V>
void set_bit(V& v, int i, bool b) {
  static_assert(std::is_integral_v<V>, "valid/ready vectors up to 64 bits");
  if (b) v = static_cast<V>(v | (V{1} << i));
  else v = static_cast<V>(v & ~(V{1} << i));
}

template <typename V>
bool get_bit(const V& v, int i) {
  static_assert(std::is_integral_v<V>, "valid/ready vectors up to 64 bits");
  return (v >> i) & 1;
}

}  // namespace

std::string to_string(const NocFlit& f) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "{kind %u, dst %u, addr 0x%05x, data 0x%08x}", f.kind, f.dst, f.addr, f.data);
  return buf;
}

NocShape NocMesh::shape() {
  return {TESS_NOC_X, TESS_NOC_Y, TESS_NOC_HOSTS, TESS_NOC_LINK_LATENCY, TESS_NOC_FIFO_DEPTH};
}

NocMesh::NocMesh() : ctx_(std::make_unique<VerilatedContext>()) {
  top_ = std::make_unique<Vtess_units>(ctx_.get(), "tess_units");
  // The model's other benches (the tile, the FPU: sim/vlt/units) are held in reset and never
  // clocked.
  top_->clk_i = 0;
  top_->rst_ni = 0;
  top_->fpu_clk_i = 0;
  top_->fpu_rst_ni = 0;
  top_->fpu_eval_i = 0;
  top_->noc_clk_i = 0;
  top_->noc_rst_ni = 1;
  top_->noc_eval_i = 0;
  top_->eval();
}

NocMesh::~NocMesh() { top_->final(); }

void NocMesh::reset() {
  const NocShape s = shape();
  for (int n = 0; n < s.nodes(); ++n) {
    set_inject(n, false, NocFlit{});
    set_eject_ready(n, false);
  }
  top_->noc_rst_ni = 0;
  for (int i = 0; i < 2; ++i) {
    top_->noc_clk_i = 0;
    top_->noc_eval_i = 1;  // the model takes the data inputs at this edge (sim/vlt/units)
    top_->eval();
    top_->noc_eval_i = 0;
    top_->noc_clk_i = 1;
    top_->eval();
  }
  top_->noc_clk_i = 0;
  top_->eval();
  top_->noc_rst_ni = 1;
  top_->eval();
  cycle_ = 0;
}

void NocMesh::set_inject(int node, bool valid, const NocFlit& flit) {
  const int t = shape().tiles();
  if (node < t) {
    set_bit(top_->noc_tile_in_valid_i, node, valid);
    if (valid) pack(&top_->noc_tile_in_flit_i[0], node, flit);  // the flit matters only while valid
  } else {
    set_bit(top_->noc_host_in_valid_i, node - t, valid);
    if (valid) pack(&top_->noc_host_in_flit_i[0], node - t, flit);
  }
}

void NocMesh::set_eject_ready(int node, bool ready) {
  const int t = shape().tiles();
  if (node < t) set_bit(top_->noc_tile_out_ready_i, node, ready);
  else set_bit(top_->noc_host_out_ready_i, node - t, ready);
}

void NocMesh::eval() {
  top_->noc_clk_i = 0;
  top_->noc_eval_i = 1;  // the model takes the data inputs at this edge (sim/vlt/units)
  top_->eval();
  top_->noc_eval_i = 0;
}

bool NocMesh::inject_ready(int node) const {
  const int t = shape().tiles();
  return node < t ? get_bit(top_->noc_tile_in_ready_o, node) : get_bit(top_->noc_host_in_ready_o, node - t);
}

bool NocMesh::eject_valid(int node) const {
  const int t = shape().tiles();
  return node < t ? get_bit(top_->noc_tile_out_valid_o, node) : get_bit(top_->noc_host_out_valid_o, node - t);
}

NocFlit NocMesh::eject_flit(int node) const {
  const int t = shape().tiles();
  return node < t ? unpack(&top_->noc_tile_out_flit_o[0], node) : unpack(&top_->noc_host_out_flit_o[0], node - t);
}

void NocMesh::clock() {
  top_->noc_clk_i = 1;
  top_->eval();
  top_->noc_clk_i = 0;
  ++cycle_;
  if (ctx_->gotFinish()) throw std::runtime_error("the model stopped ($error or $finish in the RTL)");
}

}  // namespace tessera::vlt
