// One device request, run on the pool thread: the device's answer or its refusal.
#include "server_impl.h"

namespace tessera::devd {

Reply run_device_request(device::Device* dev, Request& r, const ServerOptions& o) {
  if (!dev)
    return Error{ErrorCode::kDevice,
                 "the device failed to reopen after the last lease (see the server's log)"};
  try {
    if (auto* c = std::get_if<Configure>(&r)) {
      dev->configure(c->target, c->firmware);
      return Done{Type::kConfigure};
    }
    if (auto* g = std::get_if<Regs>(&r)) {
      dev->reg_batch(g->ops);
      RegValues v;
      for (const auto& op : g->ops) v.values.push_back(op.value);
      return v;
    }
    if (auto* w = std::get_if<DmaWrite>(&r)) {
      dev->dma_write(w->segments, w->data);
      return Done{Type::kDmaWrite};
    }
    if (auto* d = std::get_if<DmaRead>(&r)) {
      DmaData out;
      out.data.resize(segment_bytes(d->segments, o.max_frame - 1));
      dev->dma_read(d->segments, out.data);
      return out;
    }
    if (auto* w = std::get_if<Wait>(&r)) {
      const auto t = std::min(std::chrono::milliseconds(w->timeout_ms), o.max_wait_slice);
      return Events{dev->wait_event(w->mask, t)};
    }
    if (auto* w = std::get_if<DramWrite>(&r)) {
      dev->dram_write(w->offset, w->data);
      return Done{Type::kDramWrite};
    }
    if (auto* d = std::get_if<DramToTiles>(&r)) {
      dev->dram_to_tiles(d->segments);
      return Done{Type::kDramToTiles};
    }
    if (auto* d = std::get_if<TilesToDram>(&r)) {
      dev->tiles_to_dram(d->segments);
      return Done{Type::kTilesToDram};
    }
    if (auto* d = std::get_if<DramRead>(&r)) {
      if (d->bytes > o.max_frame - 1)
        return Error{ErrorCode::kDevice, "DRAM_READ: " + std::to_string(d->bytes) + " bytes, more than a reply frame holds (" +
                                               std::to_string(o.max_frame - 1) + ")"};
      DmaData out;
      out.data.resize(d->bytes);
      dev->dram_read(d->offset, out.data);
      return out;
    }
    if (std::holds_alternative<ErrorDetail>(r)) return Detail{dev->error_detail()};
    return Error{ErrorCode::kState, "not a device request"};
  } catch (const std::exception& e) {
    return Error{ErrorCode::kDevice, e.what()};
  }
}

}  // namespace tessera::devd
