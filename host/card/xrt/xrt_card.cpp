// The card I/O layer over XRT's native C++ API (xrt_card.h, docs/alveo.md).
#include <thread>

#include "experimental/xrt_ip.h"
#include "experimental/xrt_xclbin.h"
#include "tessera/card/xrt_card.h"
#include "xrt/xrt_bo.h"
#include "xrt/xrt_device.h"
#include "xrt/xrt_kernel.h"

namespace tessera::card {

using device::DeviceError;

namespace {

class XrtBuffer final : public Buffer {
 public:
  XrtBuffer(xrt::bo bo, size_t bytes) : bo_(std::move(bo)), bytes_(bytes) {}
  size_t size() const override { return bytes_; }
  void write(size_t offset, std::span<const std::byte> src) override {
    if (src.empty()) return;
    bo_.write(src.data(), src.size(), offset);
    bo_.sync(XCL_BO_SYNC_BO_TO_DEVICE, src.size(), offset);
  }
  void read(size_t offset, std::span<std::byte> dst) override {
    if (dst.empty()) return;
    bo_.sync(XCL_BO_SYNC_BO_FROM_DEVICE, dst.size(), offset);
    bo_.read(dst.data(), dst.size(), offset);
  }
  xrt::bo& bo() { return bo_; }

 private:
  xrt::bo bo_;
  size_t bytes_;
};

xrt::bo& bo(Buffer* b) {
  auto* x = dynamic_cast<XrtBuffer*>(b);
  if (!x) throw DeviceError("xrt: a buffer that is not XRT's");
  return x->bo();
}

// tess_h2d's and tess_d2h's argument indices (hls/movers/tess_h2d.h, tess_d2h.h); the
// streams (h2d 2, d2h 0) are connected at link time and set by nobody.
enum H2dArg { kH2dDesc = 0, kH2dData = 1, kH2dNdesc = 3, kH2dDataBytes, kH2dSrcNode, kH2dTiles, kH2dSram, kH2dStatus };
enum D2hArg { kD2hRing = 1, kD2hRecords, kD2hHead, kD2hTail, kD2hCount, kD2hStatus };

class XrtIo final : public CardIo {
 public:
  XrtIo(unsigned index, const std::string& path, unsigned host_nodes) : index_(index) {
    // The card first: without one, nothing else can be checked (an xclbin's kernels could,
    // but the answer a user without a card needs is that there is none).
    try {
      dev_ = xrt::device(index);
    } catch (const std::exception& e) {
      throw DeviceError("no Alveo card at index " + std::to_string(index) + ": XRT cannot open it (" + e.what() +
                        "); `xbutil examine` lists the cards this host has; --device card-sim simulates one");
    }
    xrt::xclbin xb;
    try {
      xb = xrt::xclbin(path);
    } catch (const std::exception& e) {
      throw DeviceError("--xclbin " + path + ": not a readable xclbin (" + e.what() + ")");
    }
    std::vector<std::string> names;
    for (const auto& k : xb.get_kernels()) names.push_back(k.get_name());
    if (std::string m = missing_kernels(names, path); !m.empty()) throw DeviceError(m);
    const xrt::uuid uuid = dev_.load_xclbin(xb);
    ip_ = xrt::ip(dev_, uuid, "tess_card:{tess_card_1}");
    // One mover pair per host node, the compute units scripts/xclbin's link names.
    for (unsigned h = 0; h < host_nodes; ++h) {
      const std::string n = std::to_string(h);
      h2d_.emplace_back(dev_, uuid, "tess_h2d:{tess_h2d_" + n + "}");
      d2h_.emplace_back(dev_, uuid, "tess_d2h:{tess_d2h_" + n + "}");
      h2d_run_.emplace_back(h2d_.back());
      d2h_run_.emplace_back(d2h_.back());
    }
  }

  std::string name() const override { return "xrt:" + std::to_string(index_); }
  unsigned host_nodes() const override { return static_cast<unsigned>(h2d_.size()); }
  uint32_t read_reg(uint32_t offset) override { return ip_.read_register(offset); }
  void write_reg(uint32_t offset, uint32_t value) override { ip_.write_register(offset, value); }
  std::unique_ptr<Buffer> alloc(size_t bytes, Use use, unsigned node) override {
    xrt::kernel& h2d = h2d_.at(node);
    xrt::kernel& d2h = d2h_.at(node);
    int group = 0;
    switch (use) {
      case Use::kH2dDesc: group = h2d.group_id(kH2dDesc); break;
      case Use::kH2dData: group = h2d.group_id(kH2dData); break;
      case Use::kH2dStatus: group = h2d.group_id(kH2dStatus); break;
      case Use::kD2hRing: group = d2h.group_id(kD2hRing); break;
      case Use::kD2hStatus: group = d2h.group_id(kD2hStatus); break;
    }
    return std::make_unique<XrtBuffer>(xrt::bo(dev_, bytes, group), bytes);
  }
  void start_h2d(unsigned node, const H2dArgs& a) override {
    xrt::run& r = h2d_runs(node);
    r.set_arg(kH2dDesc, bo(a.desc));
    r.set_arg(kH2dData, bo(a.data));
    r.set_arg(kH2dNdesc, a.ndesc);
    r.set_arg(kH2dDataBytes, a.data_bytes);
    r.set_arg(kH2dSrcNode, a.src_node);
    r.set_arg(kH2dTiles, a.tiles);
    r.set_arg(kH2dSram, a.sram_bytes);
    r.set_arg(kH2dStatus, bo(a.status));
    r.start();
  }
  void start_d2h(unsigned node, const D2hArgs& a) override {
    xrt::run& r = d2h_runs(node);
    r.set_arg(kD2hRing, bo(a.ring));
    r.set_arg(kD2hRecords, a.ring_records);
    r.set_arg(kD2hHead, a.head);
    r.set_arg(kD2hTail, a.tail);
    r.set_arg(kD2hCount, a.count);
    r.set_arg(kD2hStatus, bo(a.status));
    r.start();
  }
  void wait_h2d(unsigned node, std::chrono::milliseconds timeout) override { wait(h2d_runs(node), "tess_h2d", timeout); }
  void wait_d2h(unsigned node, std::chrono::milliseconds timeout) override { wait(d2h_runs(node), "tess_d2h", timeout); }

 private:
  void wait(xrt::run& r, const char* what, std::chrono::milliseconds timeout) {
    const ert_cmd_state s = r.wait(timeout);
    if (s != ERT_CMD_STATE_COMPLETED)
      throw DeviceError(name() + ": " + what + " did not complete in " + std::to_string(timeout.count()) +
                        " ms (state " + std::to_string(static_cast<int>(s)) + "); the kernel's STATE and ERR_* registers and `xbutil examine` say more");
  }
  xrt::run& h2d_runs(unsigned node) { return h2d_run_.at(node); }
  xrt::run& d2h_runs(unsigned node) { return d2h_run_.at(node); }
  unsigned index_;
  xrt::device dev_;
  xrt::ip ip_;
  std::vector<xrt::kernel> h2d_, d2h_;  // per host node
  std::vector<xrt::run> h2d_run_, d2h_run_;
};

}  // namespace

bool xrt_available() { return true; }

std::unique_ptr<CardIo> make_xrt_io(unsigned index, const std::string& xclbin, unsigned host_nodes) {
  return std::make_unique<XrtIo>(index, xclbin, host_nodes);
}

}  // namespace tessera::card
