// Leases: one holder per device, a queue of waiting sessions; on release the device is
// opened afresh from its URI (a new machine: no state or data of the last client survives)
// and the first live waiter gets it.
#include "server_impl.h"

namespace tessera::devd {

Slot* Server::Impl::find_slot(const std::string& name) {
  if (name.empty()) {  // the first free device, else the one with the shortest queue
    Slot* best = &slots.front();
    for (Slot& s : slots) {
      if (!s.holder && s.queue.empty()) return &s;
      if (s.queue.size() < best->queue.size()) best = &s;
    }
    return best;
  }
  for (Slot& s : slots)
    if (s.served.name == name) return &s;
  return nullptr;
}

void Server::Impl::release(Slot& slot) {
  slot.holder = nullptr;
  ++stats.releases;
  --held;
  try {
    slot.device = registry::open(slot.served.uri, o.device_options);
  } catch (const std::exception& e) {
    slot.device.reset();
    log(slot.served.name, std::string("reopening the device failed: ") + e.what());
  }
  while (!slot.queue.empty()) {
    auto next = slot.queue.front().lock();
    slot.queue.pop_front();
    if (next && next->waiting()) {
      next->grant(slot);
      return;
    }
  }
}

}  // namespace tessera::devd
