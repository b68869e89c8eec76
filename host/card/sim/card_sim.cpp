// card-sim: the Verilated kernel, the movers' C++ on its streams, card memory as host
// memory (card_sim.h).
#include "tessera/card/card_sim.h"

#include <cstring>
#include <vector>

#include "tess_d2h.h"
#include "tess_h2d.h"
#include "tess_movers.h"
#include "tessera/arch/targets.h"
#include "tessera/vlt/devices.h"

namespace tessera::card {

using device::DeviceError;

namespace {

static_assert(sizeof(ap_uint<128>) == 16 && sizeof(ap_uint<512>) == 64, "the stand-in types' layout (hls/csim)");

// Card memory: 512-bit lines, as the movers' widest port reads them.
class SimBuffer final : public Buffer {
 public:
  explicit SimBuffer(size_t bytes) : bytes_(bytes), lines_((bytes + 63) / 64) {}
  size_t size() const override { return bytes_; }
  void write(size_t offset, std::span<const std::byte> src) override {
    check(offset, src.size());
    std::memcpy(raw() + offset, src.data(), src.size());
  }
  void read(size_t offset, std::span<std::byte> dst) override {
    check(offset, dst.size());
    std::memcpy(dst.data(), raw() + offset, dst.size());
  }
  template <class T>
  T* as() {
    return reinterpret_cast<T*>(lines_.data());
  }

 private:
  std::byte* raw() { return reinterpret_cast<std::byte*>(lines_.data()); }
  void check(size_t offset, size_t n) const {
    if (offset > bytes_ || n > bytes_ - offset)
      throw DeviceError("card-sim: buffer access [" + std::to_string(offset) + ", +" + std::to_string(n) +
                        ") outside its " + std::to_string(bytes_) + " bytes");
  }
  size_t bytes_;
  std::vector<ap_uint<512>> lines_;
};

SimBuffer& sim(Buffer* b) {
  auto* s = dynamic_cast<SimBuffer*>(b);
  if (!s) throw DeviceError("card-sim: a buffer that is not card-sim's");
  return *s;
}

ap_uint<64> to_ap(vlt::Beat b) { return ap_uint<64>(b); }
vlt::Beat from_ap(ap_uint<64> a) { return vlt::Beat{a.get(63, 0)}; }

class CardSimIo final : public CardIo, public vlt::HostStreams {
 public:
  CardSimIo(const std::string& target, std::FILE* console) : target_(target) {
    const arch::Target* t = arch::find_target(target);
    nodes_ = std::vector<Node>(t ? t->host_nodes : 1);
    kernel_ = vlt::make_kernel(target, *this, console);
    if (kernel_->host_nodes() != nodes_.size()) throw DeviceError("card-sim: host nodes disagree with arch/");
  }

  std::string name() const override { return "card-sim (" + target_ + ")"; }
  unsigned host_nodes() const override { return static_cast<unsigned>(nodes_.size()); }
  uint32_t read_reg(uint32_t offset) override { return kernel_->read_reg(offset); }
  void write_reg(uint32_t offset, uint32_t value) override { kernel_->write_reg(offset, value); }
  std::unique_ptr<Buffer> alloc(size_t bytes, Use, unsigned) override { return std::make_unique<SimBuffer>(bytes); }
  uint32_t wait_event(uint32_t mask, std::chrono::milliseconds timeout) override {
    return kernel_->wait_event(mask, timeout);
  }
  uint64_t cycles() const override { return kernel_->cycles(); }

  void start_h2d(unsigned node, const H2dArgs& a) override {
    Node& n = at(node);
    tess_h2d(sim(a.desc).as<ap_uint<128>>(), sim(a.data).as<ap_uint<512>>(), n.h2d, a.ndesc, a.data_bytes, a.src_node,
             a.tiles, a.sram_bytes, sim(a.status).as<uint32_t>());
  }
  void wait_h2d(unsigned node, std::chrono::milliseconds timeout) override {
    Node& n = at(node);
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    uint64_t last = kernel_->cycles(), taken = n.taken;
    while (n.staged || !n.h2d.empty()) {
      kernel_->step(1);
      if (n.taken != taken) taken = n.taken, last = kernel_->cycles();
      if (kernel_->cycles() - last > 100000 || std::chrono::steady_clock::now() > deadline)
        throw DeviceError(name() + ": tess_h2d's stream stalled: the kernel took no beat for " +
                          std::to_string(kernel_->cycles() - last) + " cycles (" +
                          std::to_string(n.h2d.size() + n.staged) + " beats left)");
    }
  }
  void start_d2h(unsigned node, const D2hArgs& a) override {
    Node& n = at(node);
    n.d2h_args = a;
    n.d2h_running = true;
  }
  void wait_d2h(unsigned node, std::chrono::milliseconds timeout) override {
    Node& n = at(node);
    if (!n.d2h_running) return;
    const D2hArgs& a = n.d2h_args;
    // The records it will write: as many as asked and the ring has room for (none if its
    // arguments are bad: it reports that at once).
    uint32_t will = 0;
    if (a.ring_records >= 2 && a.head < a.ring_records && a.tail < a.ring_records) {
      const uint32_t held = a.head >= a.tail ? a.head - a.tail : a.head + a.ring_records - a.tail;
      will = std::min(a.count, a.ring_records - 1 - held);
    }
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    uint64_t last = kernel_->cycles();
    size_t have = n.d2h.size();
    while (n.d2h.size() < will) {
      kernel_->step(1);
      if (n.d2h.size() != have) have = n.d2h.size(), last = kernel_->cycles();
      if (kernel_->cycles() - last > 100000 || std::chrono::steady_clock::now() > deadline)
        throw DeviceError(name() + ": tess_d2h waited for " + std::to_string(will) + " records, " +
                          std::to_string(n.d2h.size()) + " came (nothing for " + std::to_string(kernel_->cycles() - last) +
                          " cycles)");
    }
    tess_d2h(n.d2h, sim(a.ring).as<ap_uint<128>>(), a.ring_records, a.head, a.tail, a.count,
             sim(a.status).as<uint32_t>());
    n.d2h_running = false;
  }

  // vlt::HostStreams: called at every clock edge of the kernel.
  bool h2d_offer(unsigned node, vlt::Beat& beat) override {
    Node& n = nodes_[node];
    if (!n.staged && !n.h2d.empty()) n.front = n.h2d.read(), n.staged = true;
    if (n.staged) beat = from_ap(n.front);
    return n.staged;
  }
  void h2d_taken(unsigned node) override {
    nodes_[node].staged = false;
    ++nodes_[node].taken;
  }
  bool d2h_ready(unsigned node) override {
    const Node& n = nodes_[node];
    return n.d2h_running || n.d2h.size() < kD2hFifoDepth;
  }
  void d2h_beat(unsigned node, vlt::Beat beat) override { nodes_[node].d2h.write(to_ap(beat)); }

 private:
  struct Node {
    hls::stream<ap_uint<64>> h2d, d2h;  // tess_h2d -> s_axis_h2d; m_axis_d2h -> tess_d2h
    ap_uint<64> front;                  // the beat offered on s_axis_h2d
    bool staged = false, d2h_running = false;
    uint64_t taken = 0;
    D2hArgs d2h_args;
  };
  Node& at(unsigned node) {
    if (node >= nodes_.size()) throw DeviceError(name() + ": no host node " + std::to_string(node));
    return nodes_[node];
  }
  std::string target_;
  std::vector<Node> nodes_;
  std::unique_ptr<vlt::KernelSim> kernel_;
};

}  // namespace

std::unique_ptr<CardIo> make_card_sim_io(const std::string& target, std::FILE* console) {
  return std::make_unique<CardSimIo>(target, console);
}

std::unique_ptr<CardDevice> make_card_sim(const std::string& target, const exe::ElfImage& firmware, std::FILE* console,
                                          const CardOptions& options) {
  const arch::Target* t = arch::find_target(target);
  if (!t) throw DeviceError("card-sim: unknown target '" + target + "'");
  return std::make_unique<CardDevice>(make_card_sim_io(target, console), *t, firmware, options);
}

}  // namespace tessera::card
