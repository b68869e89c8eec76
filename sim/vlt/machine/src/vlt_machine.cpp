// The harness of the verilated machine: see vlt_machine.h, docs/machine-rtl.md and docs/kernel.md.
#include "tessera/vlt/vlt_machine.h"

#include <bit>
#include <cstring>
#include <functional>
#include <type_traits>

#include TESSERA_VLT_MACHINE_HEADER
#include "tessera/arch/device_regs.h"
#include "tessera/arch/flit.h"
#include "tessera/device/error_names.h"
#include "tessera/arch/tile_map.h"
#include TESSERA_VLT_MACHINE_ROOT_HEADER
#include "verilated.h"
#if TESSERA_VLT_MACHINE_TRACE
#include "verilated_fst_c.h"
#endif

namespace tessera::vlt {
inline namespace TESSERA_VLT_MACHINE_NS {

using device::DeviceError;

namespace {

// A flit (arch/flit.toml, 64 bits); one host node's TDATA slice.
constexpr unsigned kFlitBits = arch::kFlitBits, kBeatBits = arch::kFlitBeatBits;
static_assert(kFlitBits == 64 && kBeatBits == 64, "a flit is one 64-bit beat");
constexpr unsigned kHosts = TESSERA_VLT_MACHINE_HOSTS;
constexpr unsigned kStreamWords = (kHosts * kBeatBits + 31) / 32;  // TDATA in 32-bit words

// 32-bit word j of a Verilated signal: an integer up to 64 bits, a VlWide above.
template <class W>
uint32_t word_of(const W& w, unsigned j) {
  if constexpr (std::is_integral_v<W>)
    return j < 2 ? static_cast<uint32_t>(static_cast<uint64_t>(w) >> (32 * j)) : 0;
  else
    return static_cast<uint32_t>(w[j]);
}
template <class W>
void or_word(W& w, unsigned j, uint32_t x) {
  if constexpr (std::is_integral_v<W>)
    w = static_cast<W>(w | static_cast<W>(static_cast<uint64_t>(x) << (32 * j)));
  else
    w[j] |= x;
}
template <class W>
void clear_words(W& w, unsigned words) {
  if constexpr (std::is_integral_v<W>)
    w = 0;
  else
    for (unsigned i = 0; i < words; ++i) w[i] = 0;
}

// The flit at bit lsb (a multiple of 64) of a Verilated signal of `words` 32-bit words.
template <class W>
uint64_t flit_at(const W& w, unsigned words, unsigned lsb) {
  const unsigned j = lsb / 32;
  return uint64_t{j < words ? word_of(w, j) : 0u} | uint64_t{j + 1 < words ? word_of(w, j + 1) : 0u} << 32;
}
template <class W>
void put_flit(W& w, unsigned lsb, uint64_t v) {
  or_word(w, lsb / 32, static_cast<uint32_t>(v));
  or_word(w, lsb / 32 + 1, static_cast<uint32_t>(v >> 32));
}

std::string hex(uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%08x", v);
  return b;
}

// Field offsets of the flit (arch/flit.toml).
constexpr unsigned kAddrLsb = arch::kFlitAddrLsb, kDstLsb = arch::kFlitDstLsb, kKindLsb = arch::kFlitKindLsb;
// The low `bits` bits set (bits < 32).
constexpr uint32_t low_bits(unsigned bits) { return (1u << bits) - 1; }

uint64_t field(uint64_t v, unsigned lsb, unsigned width) { return (v >> lsb) & ((uint64_t{1} << width) - 1); }

// Byte i of a Verilated signal: an integer up to 64 bits, a VlWide above.
template <class V>
int byte_of(const V& v, unsigned i) {
  if constexpr (std::is_integral_v<V>)
    return static_cast<int>((static_cast<uint64_t>(v) >> (8 * i)) & 0xff);
  else
    return static_cast<int>((v[i / 4] >> (8 * (i % 4))) & 0xff);
}


}  // namespace

const arch::Target& VltMachine::target() {
  static const arch::Target& t = *arch::find_target(TESSERA_VLT_MACHINE_TARGET);
  return t;
}

VltMachine::VltMachine(const VltMachineOptions& options) : options_(options) {
  ctx_ = std::make_unique<VerilatedContext>();
  // As many simulation threads as the model was verilated with (the context's default is one
  // per hardware thread, a pool of idle workers for a single-threaded model).
  ctx_->threads(TESSERA_VLT_MACHINE_THREADS);
#if TESSERA_VLT_MACHINE_TRACE
  ctx_->traceEverOn(true);
#endif
  std::vector<const char*> argv{"tessera-vlt-machine"};
  for (const std::string& a : options_.args) argv.push_back(a.c_str());
  ctx_->commandArgs(static_cast<int>(argv.size()), argv.data());
  top_ = std::make_unique<TESSERA_VLT_MACHINE_MODEL>(ctx_.get(), "machine");
  // The kernel (rtl/top/tess_kernel.sv): AXI4-Lite and AXI4-Stream idle, the device-to-host
  // streams always drained; ap_rst_n low for 4 cycles (power-on), then CONTROL reset.
  top_->ap_clk = 0;
  top_->ap_rst_n = 0;
  top_->s_axi_control_awvalid = 0;
  top_->s_axi_control_wvalid = 0;
  top_->s_axi_control_bready = 0;
  top_->s_axi_control_arvalid = 0;
  top_->s_axi_control_rready = 0;
  top_->s_axis_h2d_tvalid = 0;
  top_->m_axis_d2h_tready = (1u << TESSERA_VLT_MACHINE_HOSTS) - 1;
  to_send_.resize(kHosts);
  next_tag_.assign(kHosts, 0);
  d2h_stalled_.assign(kHosts, 0);
  d2h_prev_.assign(kHosts, 0);
  ni_stalled_.assign(target().tiles, 0);
  ni_prev_.assign(target().tiles, 0);
  top_->eval();
  for (int i = 0; i < 4; ++i) tick();
  top_->ap_rst_n = 1;
  for (int i = 0; i < 2; ++i) tick();
  const uint32_t hash = read_reg(arch::kDevRegTargetHash);
  if (hash != target().hash)
    throw DeviceError("the verilated kernel reports TARGET_HASH " + hex(hash) + ", the target '" +
                      std::string(target().name) + "' has " + hex(target().hash));
  hard_reset();
}

struct VltMachine::Trace {
#if TESSERA_VLT_MACHINE_TRACE
  VerilatedFstC fst;
#endif
};

VltMachine::~VltMachine() {
  trace_close();
  if (top_) top_->final();
}

bool VltMachine::trace_available() { return TESSERA_VLT_MACHINE_TRACE != 0; }

void VltMachine::trace_fst(const std::string& path, int depth) {
#if TESSERA_VLT_MACHINE_TRACE
  trace_close();
  trace_ = std::make_unique<Trace>();
  top_->trace(&trace_->fst, depth > 0 ? depth : 99);
  trace_->fst.open(path.c_str());
  if (!trace_->fst.isOpen()) {
    trace_.reset();
    throw DeviceError("trace_fst: cannot open " + path);
  }
#else
  (void)depth;
  throw DeviceError("trace_fst(" + path + "): the model was verilated without tracing; configure with "
                    "-DTESSERA_VLT_MACHINE_TRACE=ON");
#endif
}

void VltMachine::trace_close() {
#if TESSERA_VLT_MACHINE_TRACE
  if (trace_) trace_->fst.close();
#endif
  trace_.reset();
}

// The SRAM arrays of the model (generated per target by CMake: one case per tile).
// An UltraRAM SRAM holds 64-bit rows, word 2i in the low half: read as 32-bit words only
// on a little-endian host.
static_assert(std::endian::native == std::endian::little, "sram_words reads 64-bit SRAM rows as words");

std::span<const uint32_t> VltMachine::sram_words(uint32_t tile) const {
  const TESSERA_VLT_MACHINE_ROOT* r = top_->rootp;
  const uint32_t words = target().sram_bytes / 4;
  switch (tile) {
#include "vlt_machine_sram.inc"
    default: break;
  }
  throw DeviceError("sram_words: no tile " + std::to_string(tile));
}

uint32_t VltMachine::tile_count() const { return target().tiles; }

uint32_t VltMachine::host_nodes() { return kHosts; }

bool VltMachine::sending() const {
  for (const auto& q : to_send_)
    if (!q.empty()) return true;
  return false;
}

void VltMachine::clear_host_queues() {
  for (auto& q : to_send_) q.clear();
  pending_reads_.clear();
  pending_count_ = 0;
}

void VltMachine::set_d2h_ready(uint32_t mask) { top_->m_axis_d2h_tready = mask & ((1u << kHosts) - 1); }

void VltMachine::tick() {
  // Inputs for this edge: host node h's next flit in TDATA bits 64h + 63 .. 64h.
  uint32_t send = 0;
  clear_words(top_->s_axis_h2d_tdata, kStreamWords);
  HostStreams* const ext = options_.streams;
  if (ext) {
    uint32_t ready = 0;
    for (unsigned h = 0; h < kHosts; ++h) {
      Beat b = 0;
      if (ext->h2d_offer(h, b)) {
        send |= 1u << h;
        put_flit(top_->s_axis_h2d_tdata, h * kBeatBits, b);
      }
      if (ext->d2h_ready(h)) ready |= 1u << h;
    }
    top_->m_axis_d2h_tready = ready;
  }
  for (unsigned h = 0; ext == nullptr && h < kHosts; ++h) {
    if (to_send_[h].empty()) continue;
    send |= 1u << h;
    const Flit& f = to_send_[h].front();
    uint64_t v = f.data;
    v |= uint64_t{(f.addr >> 2) & low_bits(arch::kFlitAddrBits)} << kAddrLsb;
    v |= uint64_t{f.dst & low_bits(arch::kFlitDstBits)} << kDstLsb;
    v |= uint64_t{f.kind & low_bits(arch::kFlitKindBits)} << kKindLsb;
    put_flit(top_->s_axis_h2d_tdata, h * kBeatBits, v);
  }
  top_->s_axis_h2d_tvalid = send;
  top_->ap_clk = 0;
  top_->eval();
  const TESSERA_VLT_MACHINE_ROOT* r = top_->rootp;
  // AXI4-Lite handshakes at this edge (axil_write, axil_read drive the valids and readies).
  axil_fire_ = 0;
  if (top_->s_axi_control_awvalid && top_->s_axi_control_awready) axil_fire_ |= kAxilAw;
  if (top_->s_axi_control_wvalid && top_->s_axi_control_wready) axil_fire_ |= kAxilW;
  if (top_->s_axi_control_bvalid && top_->s_axi_control_bready) axil_fire_ |= kAxilB;
  if (top_->s_axi_control_arvalid && top_->s_axi_control_arready) axil_fire_ |= kAxilAr;
  if (top_->s_axi_control_rvalid && top_->s_axi_control_rready) axil_fire_ |= kAxilR;
  axil_bresp_ = top_->s_axi_control_bresp;
  axil_rresp_ = top_->s_axi_control_rresp;
  axil_rdata_ = top_->s_axi_control_rdata;
#if TESSERA_VLT_MACHINE_TRACE
  if (trace_) trace_->fst.dump(2 * cycles_);
#endif
  // The machine's broadcasts (run, release) reach the tiles through its broadcast tree,
  // sync_depth cycles after the root's edge that the harness sees: a phase starts when the
  // tiles see it (docs/machine-rtl.md, calibration).
  const uint64_t bcast = r->tess_kernel__DOT__u_machine__DOT__sync_depth;
  // A run starts (CONTROL start): superstep 0 begins when the tiles see it.
  const bool run = r->tess_kernel__DOT__u_machine__DOT__run_i;
  if (run && !last_run_) phases_.assign(1, new_phase(cycles_ + bcast));
  last_run_ = run;
  // What moves at this edge.
  const uint32_t in_fire = send & top_->s_axis_h2d_tready;
  const uint32_t out_fire = top_->m_axis_d2h_tvalid & top_->m_axis_d2h_tready;
  uint64_t out[kHosts];
  for (unsigned h = 0; h < kHosts; ++h) {
    out[h] = flit_at(top_->m_axis_d2h_tdata, kStreamWords, h * kBeatBits);
    // AXI4-Stream: once TVALID is high it stays, with the same TDATA, until TREADY.
    const bool v = top_->m_axis_d2h_tvalid >> h & 1, rdy = top_->m_axis_d2h_tready >> h & 1;
    if (d2h_stalled_[h] && (!v || out[h] != d2h_prev_[h])) ++checks_.d2h_dropped;
    d2h_stalled_[h] = v && !rdy;
    d2h_prev_[h] = out[h];
  }
  // The mesh's injection ports: a tile NI's offered flit stays until the mesh takes it (not
  // checked while the machine is held in reset, which empties the mesh as well).
  {
    const bool mach_rst = !r->tess_kernel__DOT__u_machine__DOT__rst_ni;
    const uint64_t tv = r->tess_kernel__DOT__u_machine__DOT__tin_valid;
    const uint64_t tr = r->tess_kernel__DOT__u_machine__DOT__tin_ready;
    const auto& tf = r->tess_kernel__DOT__u_machine__DOT__tin_flit;
    constexpr unsigned kTinWords = (TESSERA_VLT_MACHINE_TILES * kFlitBits + 31) / 32;
    for (uint32_t t = 0; t < tile_count(); ++t) {
      const bool v = tv >> t & 1, rdy = tr >> t & 1;
      const uint64_t f = v ? flit_at(tf, kTinWords, t * kFlitBits) : 0;
      if (!mach_rst && ni_stalled_[t] && (!v || f != ni_prev_[t])) ++checks_.ni_inject_unstable;
      // An exchange word: a write flit a tile's NI hands to the mesh for another tile.
      if (!mach_rst && v && rdy && !phases_.empty() && field(f, kKindLsb, arch::kFlitKindBits) == arch::kFlitKindWrite &&
          field(f, kDstLsb, arch::kFlitDstBits) < tile_count())
        ++phases_.back().words;
      ni_stalled_[t] = !mach_rst && v && !rdy;
      ni_prev_[t] = f;
    }
  }
  const uint32_t console_valid = r->tess_kernel__DOT__u_machine__DOT__console_valid_o;
  const auto console_bytes = r->tess_kernel__DOT__u_machine__DOT__console_byte_o;  // an integer up to 64 bits, else VlWide
  top_->ap_clk = 1;
  top_->eval();
#if TESSERA_VLT_MACHINE_TRACE
  if (trace_) trace_->fst.dump(2 * cycles_ + 1);
#endif
  ++cycles_;
  for (unsigned h = 0; ext && h < kHosts; ++h) {
    if (in_fire >> h & 1) ext->h2d_taken(h);
    if (out_fire >> h & 1) ext->d2h_beat(h, out[h]);
  }
  for (unsigned h = 0; ext == nullptr && h < kHosts; ++h) {
    if (in_fire >> h & 1) to_send_[h].pop_front(), ++progress_;
    if (!(out_fire >> h & 1)) continue;
    // A read reply: a write flit to this host node at the request's tag (its reply address).
    const uint32_t tag = static_cast<uint32_t>(field(out[h], kAddrLsb, arch::kFlitAddrBits));
    const uint32_t data = static_cast<uint32_t>(field(out[h], arch::kFlitDataLsb, arch::kFlitDataBits));
    auto it = pending_reads_.find(uint64_t{h} << 32 | tag);
    if (it != pending_reads_.end() && !it->second.empty()) {
      std::memcpy(it->second.front(), &data, 4);
      it->second.pop_front();
      --pending_count_;
      ++progress_;
    }
  }
  // "Network idle" covers a read reply still inside a tile's NI (docs/machine-rtl.md). The
  // count behind net_idle_o is that of sync_depth cycles ago (its adder trees), so it is
  // compared with the NIs of that cycle.
  {
    bool reply = false;
#include "vlt_machine_ni.inc"
    const unsigned lag = r->tess_kernel__DOT__u_machine__DOT__sync_depth;
    reply_hist_ = (reply_hist_ << 1) | (reply ? 1u : 0u);
    if (r->tess_kernel__DOT__u_machine__DOT__net_idle_o && lag < 64 && (reply_hist_ >> lag & 1))
      ++checks_.idle_with_reply;
  }
  if (console_valid && options_.console) {
    for (uint32_t t = 0; t < tile_count(); ++t)
      if (console_valid >> t & 1) std::fputc(byte_of(console_bytes, t), options_.console);
  }
  // Barrier latency: all arrivals seen -> release.
  const uint32_t all = (1u << tile_count()) - 1;
  const uint32_t arrived = r->tess_kernel__DOT__u_machine__DOT__arrived_o;
  const uint32_t halted = r->tess_kernel__DOT__u_machine__DOT__halted_o;
  // Each tile's arrival (its NI's arrived_o rises; it falls the cycle after the tiles see
  // the release pulse, so the cycles until then still belong to the phase it ends: arrivals
  // count from the cycle after the phase's start).
  const bool started = !phases_.empty() && cycles_ > phases_.back().start;
  if (started && !phases_.back().release) {
    Phase& p = phases_.back();
    for (uint32_t t = 0; t < tile_count(); ++t)
      if ((arrived >> t & 1) && !(halted >> t & 1) && !p.arrived[t]) p.arrived[t] = cycles_;
    if (state() == device::kStateHostSync) p.kind = 1;
  }
  if (!all_arrived_ && (phases_.empty() || started) && (arrived & all) == all && !(halted & all)) {
    all_arrived_ = true;
    all_arrived_at_ = cycles_;
    if (!phases_.empty() && !phases_.back().all_arrived) phases_.back().all_arrived = cycles_;
  }
  // The barrier's release pulse; the tiles see it bcast cycles later, where the phase ends.
  if (r->tess_kernel__DOT__u_machine__DOT__release_o) {
    if (!phases_.empty()) phases_.back().release = cycles_ + bcast;
    phases_.push_back(new_phase(cycles_ + bcast));
    if (all_arrived_) barrier_cycles_.push_back(cycles_ + bcast - all_arrived_at_);
    all_arrived_ = false;
  }
}

VltMachine::Phase VltMachine::new_phase(uint64_t start) const {
  Phase p;
  p.start = start;
  p.arrived.assign(tile_count(), 0);
  return p;
}

std::vector<runtime::SuperstepCycles> VltMachine::superstep_cycles() const {
  std::vector<runtime::SuperstepCycles> out;
  for (size_t k = 0; k < phases_.size(); ++k) {
    const Phase& p = phases_[k];
    if (!p.release || !p.all_arrived) break;  // the phase in progress, or one that ended in a halt
    runtime::SuperstepCycles s;
    s.superstep = static_cast<uint32_t>(k);
    s.kind = p.kind;
    s.compute_cycles = p.all_arrived - p.start;
    s.exchange_cycles = p.release - p.all_arrived;
    s.exchange_words = p.words;
    for (uint64_t a : p.arrived) s.tile_cycles.push_back(static_cast<uint32_t>(a >= p.start ? a - p.start : 0));
    out.push_back(std::move(s));
  }
  return out;
}

// CONTROL reset through the register block: the machine's reset for 4 cycles, cores held
// (SRAM kept); the write completes when the sequence is over. Host-side queues are dropped.
void VltMachine::hard_reset() {
  clear_host_queues();
  all_arrived_ = false;
  axil_write(arch::kDevRegControl, device::kControlReset);
}

// STATE as the register block has it this cycle (no bus cycles: the harness's own checks).
uint32_t VltMachine::state() const { return top_->rootp->tess_kernel__DOT__u_regs__DOT__state; }

bool VltMachine::interrupt() const { return top_->__SYM__interrupt; }

VltMachine::AxilWrite VltMachine::axil_write(uint32_t offset, uint32_t value, uint32_t strb, AxilTiming t) {
  AxilWrite w;
  const uint64_t t0 = cycles_, limit = cycles_ + 100000;
  bool aw = false, wd = false, b = false;
  top_->s_axi_control_awaddr = offset & 0xfff;
  top_->s_axi_control_wdata = value;
  top_->s_axi_control_wstrb = strb & 0xf;
  while (!b) {
    const uint64_t n = cycles_ - t0;
    top_->s_axi_control_awvalid = !aw && n >= t.aw_delay;
    top_->s_axi_control_wvalid = !wd && n >= t.w_delay;
    top_->s_axi_control_bready = n >= t.resp_delay;
    tick();
    if (axil_fire_ & kAxilAw) aw = true, w.aw_at = cycles_ - t0;
    if (axil_fire_ & kAxilW) wd = true, w.w_at = cycles_ - t0;
    if (axil_fire_ & kAxilB) b = true, w.b_at = cycles_ - t0, w.resp = axil_bresp_;
    if (cycles_ > limit) {
      top_->s_axi_control_awvalid = top_->s_axi_control_wvalid = top_->s_axi_control_bready = 0;
      throw DeviceError("AXI4-Lite write of " + hex(offset) + ": no response");
    }
  }
  top_->s_axi_control_awvalid = top_->s_axi_control_wvalid = top_->s_axi_control_bready = 0;
  return w;
}

void VltMachine::axil_drive(bool awvalid, uint32_t awaddr, bool wvalid, bool bready, unsigned cycles) {
  top_->s_axi_control_awvalid = awvalid;
  top_->s_axi_control_awaddr = awaddr & 0xfff;
  top_->s_axi_control_wvalid = wvalid;
  top_->s_axi_control_wdata = 0;
  top_->s_axi_control_wstrb = 0xf;
  top_->s_axi_control_bready = bready;
  step(cycles);
  top_->s_axi_control_awvalid = top_->s_axi_control_wvalid = top_->s_axi_control_bready = 0;
}

std::vector<VltMachine::AxilRead> VltMachine::axil_read(std::span<const uint32_t> offsets, unsigned r_delay) {
  std::vector<AxilRead> rs(offsets.size());
  const uint64_t t0 = cycles_, limit = cycles_ + 100000 + 16 * offsets.size();
  size_t next = 0, got = 0;
  while (got < offsets.size()) {
    top_->s_axi_control_arvalid = next < offsets.size();
    if (next < offsets.size()) top_->s_axi_control_araddr = offsets[next] & 0xfff;
    top_->s_axi_control_rready = cycles_ - t0 >= r_delay;
    tick();
    if (axil_fire_ & kAxilAr) rs[next++].ar_at = cycles_ - t0;
    if (axil_fire_ & kAxilR) {
      rs[got].data = axil_rdata_;
      rs[got].resp = axil_rresp_;
      rs[got++].r_at = cycles_ - t0;
    }
    if (cycles_ > limit) {
      top_->s_axi_control_arvalid = top_->s_axi_control_rready = 0;
      throw DeviceError("AXI4-Lite read: no response");
    }
  }
  top_->s_axi_control_arvalid = top_->s_axi_control_rready = 0;
  return rs;
}

// The registers are the kernel's (rtl/host/tess_axil_regs.sv): one AXI4-Lite transaction each.
uint32_t VltMachine::read_reg(uint32_t offset) {
  const uint32_t o[1] = {offset};
  const AxilRead r = axil_read(o).front();
  if (r.resp != 0) throw DeviceError("read_reg(" + hex(offset) + "): AXI4-Lite response " + std::to_string(r.resp));
  return r.data;
}

void VltMachine::write_reg(uint32_t offset, uint32_t value) {
  if (offset == arch::kDevRegControl) {
    if ((value & device::kControlStart) && !firmware_loaded_) {
      // As the emulator: reset and abort happen, a start without firmware is refused.
      if (value & ~device::kControlStart) write_reg(offset, value & ~device::kControlStart);
      if (state() == device::kStateReset) throw DeviceError("start: no firmware loaded");
      return;
    }
    if (value & device::kControlReset) {
      clear_host_queues();
      all_arrived_ = false;
    }
  }
  if (offset == arch::kDevRegDoorbell) drain("doorbell");  // every host flit injected first
  const AxilWrite w = axil_write(offset, value);
  if (w.resp != 0) throw DeviceError("write_reg(" + hex(offset) + "): AXI4-Lite response " + std::to_string(w.resp));
}

void VltMachine::load_firmware(const exe::ElfImage& firmware) {
  if (state() != device::kStateReset) throw DeviceError("load_firmware: the cores must be held in reset");
  const exe::FirmwareLayout l = exe::firmware_layout(firmware);
  if (l.entry != arch::kSramBase)
    throw DeviceError("load_firmware: the kernel boots at " + hex(arch::kSramBase) + " (BOOT_PC); the firmware's entry is " +
                      hex(l.entry));
  std::vector<std::byte> bytes;
  std::vector<device::DmaSegment> segs;
  for (const exe::ElfSegment& s : firmware.segments) {
    const uint32_t n = (s.mem_bytes + 3) & ~3u;
    if (n == 0) continue;
    const uint64_t at = bytes.size();
    bytes.resize(at + n);
    std::memcpy(bytes.data() + at, s.data.data(), std::min<size_t>(s.data.size(), n));
    for (uint32_t t = 0; t < tile_count(); ++t) segs.push_back({t, s.addr, n, at});
  }
  dma_write(segs, bytes);
  layout_ = l;
  firmware_loaded_ = true;
}

void VltMachine::check_segment(const device::DmaSegment& s, size_t host_bytes, const char* source) const {
  auto bad = [&](const std::string& why) {
    throw DeviceError("DMA segment (tile " + std::to_string(s.tile) + ", " + hex(s.addr) + ", " +
                      std::to_string(s.bytes) + " bytes): " + why);
  };
  if (s.tile >= tile_count()) bad("no such tile");
  if ((s.addr | s.bytes) & 3) bad("not word aligned");
  const uint64_t off = uint64_t{s.addr} - arch::kSramBase;
  if (s.addr < arch::kSramBase || off + s.bytes > target().sram_bytes) bad("outside tile SRAM");
  if (s.host_offset + s.bytes > host_bytes) bad(std::string("runs past the end of ") + source);
  if (state() == device::kStateHostSync && s.addr < layout_.firmware_end) bad("writes firmware memory during a host sync");
}

void VltMachine::drain(const char* what) {
  // Generous: every flit needs a few cycles at most once injected. Also gives up when
  // nothing has moved (no beat taken, no reply back) for 20,000 cycles: a deadlock.
  size_t queued = 0;
  for (const auto& q : to_send_) queued += q.size();
  const uint64_t limit = cycles_ + 1000 + 64 * (queued + pending_count_);
  uint64_t last_progress = progress_, last_move = cycles_;
  while (sending() || pending_count_) {
    if (progress_ != last_progress) last_progress = progress_, last_move = cycles_;
    if (cycles_ > limit || cycles_ - last_move > 20000) {
      queued = 0;
      for (const auto& q : to_send_) queued += q.size();
      throw DeviceError(std::string(what) + ": the network did not deliver the host's flits (" + std::to_string(queued) +
                        " not injected, " + std::to_string(pending_count_) + " replies missing" +
                        (cycles_ - last_move > 20000 ? ", nothing moved for 20000 cycles)" : ")"));
    }
    tick();
  }
}

void VltMachine::dma_write(std::span<const device::DmaSegment> segments, std::span<const std::byte> host) {
  if (options_.streams) throw DeviceError("the host streams belong to the card's data movers (VltMachineOptions::streams)");
  const uint32_t s0 = state();
  if (s0 != device::kStateReset && s0 != device::kStateHostSync)
    throw DeviceError("dma_write: only while the cores are held in reset or wait in a host sync");
  for (const auto& s : segments) check_segment(s, host.size());  // all or nothing
  write_words(segments, host, arch::kFlitKindWrite, false, "dma_write");
}

void VltMachine::write_words(std::span<const device::DmaSegment> segments, std::span<const std::byte> src,
                             uint32_t kind, bool spread, const char* what) {
  auto node_of = [&](uint32_t tile) { return spread ? tile % kHosts : 0u; };
  std::unordered_map<uint32_t, uint32_t> last;  // tile -> the last address written
  for (const auto& s : segments) {
    const uint32_t node = node_of(s.tile);
    for (uint32_t i = 0; i < s.bytes; i += 4) {
      uint32_t w;
      std::memcpy(&w, src.data() + s.host_offset + i, 4);
      to_send_[node].push_back({kind, s.tile, s.addr + i, w});
    }
    if (s.bytes) last[s.tile] = s.addr + s.bytes - 4;
  }
  // Delivered when a read of each tile's last word, sent behind the writes from the same node,
  // is answered: the mesh keeps the order of flits from one node to another (docs/kernel.md).
  for (const auto& [tile, addr] : last) queue_read(node_of(tile), tile, addr, &fence_word_);
  try {
    drain(what);
  } catch (...) {
    clear_host_queues();
    throw;
  }
  pending_reads_.clear();
}

void VltMachine::dram_write(uint64_t offset, std::span<const std::byte> data) {
  if (options_.streams) throw DeviceError("dram_write: the card's device memory belongs to its data movers");
  if (state() != device::kStateReset) throw DeviceError("dram_write: only while the cores are held in reset");
  device::check_device_memory_range(target().device_memory_mib, offset, data.size(), "dram_write");
  if (dram_.size() < offset + data.size()) dram_.resize(offset + data.size());
  std::memcpy(dram_.data() + offset, data.data(), data.size());
}

void VltMachine::dram_to_tiles(std::span<const device::DmaSegment> segments) {
  if (options_.streams) throw DeviceError("dram_to_tiles: the card's device memory belongs to its data movers");
  if (state() != device::kStateHostSync) throw DeviceError("dram_to_tiles: only while the tiles wait in a host sync");
  for (const auto& s : segments) check_segment(s, dram_.size(), "the device memory written");  // all or nothing
  write_words(segments, dram_, arch::kFlitKindDebugWrite, true, "dram_to_tiles");
}

void VltMachine::tiles_to_dram(std::span<const device::DmaSegment> segments) {
  if (state() != device::kStateHostSync) throw DeviceError("tiles_to_dram: only while the tiles wait in a host sync");
  uint64_t end = dram_.size();
  for (const auto& s : segments) {
    device::check_device_memory_range(target().device_memory_mib, s.host_offset, s.bytes, "tiles_to_dram");
    end = std::max<uint64_t>(end, s.host_offset + s.bytes);
  }
  if (dram_.size() < end) dram_.resize(end);
  std::vector<uint32_t> nodes;
  for (const auto& s : segments) nodes.push_back(s.tile % kHosts);
  dma_read_nodes(segments, nodes, dram_);
}

void VltMachine::dram_read(uint64_t offset, std::span<std::byte> out) {
  if (options_.streams) throw DeviceError("dram_read: the card's device memory belongs to its data movers");
  device::read_device_memory(dram_, target().device_memory_mib, state(), offset, out);
}

void VltMachine::dma_read(std::span<const device::DmaSegment> segments, std::span<std::byte> host) {
  const std::vector<uint32_t> nodes(segments.size(), 0);
  dma_read_nodes(segments, nodes, host);
}

// A read request's data (arch/flit.toml): the reply goes to host node `node` at the next tag
// of that node, its address; the reply's word is written to *dst.
uint32_t VltMachine::expect_reply(uint32_t node, std::byte* dst) {
  const uint32_t tag = next_tag_[node];
  next_tag_[node] = (tag + 1) & low_bits(arch::kFlitReplyAddrBits);
  pending_reads_[uint64_t{node} << 32 | tag].push_back(dst);
  ++pending_count_;
  return (tile_count() + node) << arch::kFlitReplyNodeLsb | tag << arch::kFlitReplyAddrLsb;
}

void VltMachine::queue_read(uint32_t node, uint32_t tile, uint32_t addr, uint32_t* dst) {
  if (options_.streams) throw DeviceError("the host streams belong to the card's data movers (VltMachineOptions::streams)");
  if (node >= kHosts) throw DeviceError("queue_read: no host node " + std::to_string(node));
  to_send_[node].push_back({arch::kFlitKindRead, tile, addr, expect_reply(node, reinterpret_cast<std::byte*>(dst))});
}

void VltMachine::dma_read_nodes(std::span<const device::DmaSegment> segments, std::span<const uint32_t> nodes,
                                std::span<std::byte> host) {
  if (options_.streams) throw DeviceError("the host streams belong to the card's data movers (VltMachineOptions::streams)");
  if (state() == device::kStateRunning) throw DeviceError("dma_read: the tiles are running");
  if (nodes.size() != segments.size()) throw DeviceError("dma_read: one host node per segment");
  for (uint32_t n : nodes)
    if (n >= kHosts) throw DeviceError("dma_read: no host node " + std::to_string(n));
  for (const auto& s : segments) {
    if (s.tile >= tile_count() || ((s.addr | s.bytes) & 3) || s.addr < arch::kSramBase ||
        uint64_t{s.addr} - arch::kSramBase + s.bytes > target().sram_bytes || s.host_offset + s.bytes > host.size())
      throw DeviceError("dma_read: segment (tile " + std::to_string(s.tile) + ", " + hex(s.addr) + ", " +
                        std::to_string(s.bytes) + " bytes) is out of range");
  }
  for (size_t k = 0; k < segments.size(); ++k) {
    const device::DmaSegment& s = segments[k];
    const uint32_t node = nodes[k];
    for (uint32_t i = 0; i < s.bytes; i += 4) {
      to_send_[node].push_back(
          {arch::kFlitKindRead, s.tile, s.addr + i, expect_reply(node, host.data() + s.host_offset + i)});
    }
  }
  try {
    drain("dma_read");
  } catch (...) {
    clear_host_queues();
    throw;
  }
  pending_reads_.clear();
}

void VltMachine::poke_word(uint32_t tile, uint32_t addr, uint32_t value) {
  if (options_.streams) throw DeviceError("the host streams belong to the card's data movers (VltMachineOptions::streams)");
  if (tile >= tile_count() || (addr & 3) || addr < arch::kSramBase || addr - arch::kSramBase >= target().sram_bytes)
    throw DeviceError("poke_word: tile " + std::to_string(tile) + " address " + hex(addr) + " is out of range");
  to_send_[0].push_back({arch::kFlitKindDebugWrite, tile, addr, value});
  while (sending()) tick();
}

// Watches the register block's EVENTS of this cycle in the model (as an interrupt handler
// sees the line, without the cycles of a register read), so that it stops at the cycle of
// the event: co-simulation compares memory right at a BREAK_SUPERSTEP release.
uint32_t VltMachine::wait_event(uint32_t mask, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  const TESSERA_VLT_MACHINE_ROOT* r = top_->rootp;
  auto events = [&] { return r->tess_kernel__DOT__u_regs__DOT__events_now & mask; };
  for (;;) {
    if (events()) return events();
    if (state() != device::kStateRunning) return 0;  // nothing changes until the host acts
    for (int i = 0; i < 4096 && !events() && state() == device::kStateRunning; ++i) tick();
    if (!events() && std::chrono::steady_clock::now() >= deadline) return 0;
  }
}

std::string VltMachine::error_detail() const {
  if (state() != device::kStateError) return {};
  // From the ERR_* registers (bus reads move the clock a few cycles; in the error state
  // nothing the registers hold changes).
  return device::describe_error_registers(const_cast<VltMachine&>(*this), "RTL");
}

namespace {
// The kernel with its host streams given to `streams` (kernel_sim.h): card-sim's movers.
class Kernel final : public KernelSim {
 public:
  Kernel(HostStreams& streams, std::FILE* console) {
    VltMachineOptions o;
    o.console = console;
    o.streams = &streams;
    m_ = std::make_unique<VltMachine>(o);
  }
  uint32_t read_reg(uint32_t offset) override { return m_->read_reg(offset); }
  void write_reg(uint32_t offset, uint32_t value) override {
    const AxilWrite w = m_->axil_write(offset, value);
    if (w.resp != 0) throw DeviceError("write_reg(" + hex(offset) + "): AXI4-Lite response " + std::to_string(w.resp));
  }
  uint32_t wait_event(uint32_t mask, std::chrono::milliseconds timeout) override { return m_->wait_event(mask, timeout); }
  void step(unsigned cycles) override { m_->step(cycles); }
  uint64_t cycles() const override { return m_->cycles(); }
  uint32_t host_nodes() const override { return VltMachine::host_nodes(); }
  uint32_t tiles() const override { return m_->tile_count(); }
  std::string error_detail() const override { return m_->error_detail(); }

 private:
  std::unique_ptr<VltMachine> m_;
};
}  // namespace

}  // namespace TESSERA_VLT_MACHINE_NS

// The kernel alone, its host streams served by `streams` (sim/vlt/devices: make_kernel).
std::unique_ptr<KernelSim> TESSERA_VLT_KERNEL_FACTORY(HostStreams& streams, std::FILE* console) {
  return std::make_unique<Kernel>(streams, console);
}

// The factory sim/vlt/devices lists this model under (make_machine_<target>).
std::unique_ptr<device::Device> TESSERA_VLT_MACHINE_FACTORY(const exe::ElfImage& firmware, std::FILE* console) {
  VltMachineOptions o;
  o.console = console;
  auto m = std::make_unique<VltMachine>(o);
  m->load_firmware(firmware);
  return m;
}

// The profile source sim/vlt/devices lists this model under (profile_source_<target>): the
// RTL's superstep cycles when `device` is this model's machine, unset otherwise.
std::function<std::vector<runtime::SuperstepCycles>()> TESSERA_VLT_PROFILE_FACTORY(device::Device& device) {
  auto* m = dynamic_cast<VltMachine*>(&device);
  if (!m) return {};
  return [m] { return m->superstep_cycles(); };
}

}  // namespace tessera::vlt
