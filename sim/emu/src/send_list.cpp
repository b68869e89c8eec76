// One send-list entry, plain or strided, read and checked on its own (send_list.h).
#include "tessera/emu/send_list.h"

#include <cstring>

#include "hex.h"
#include "tessera/arch/device_regs.h"
#include "tessera/arch/tile_map.h"

namespace tessera::emu {

std::optional<SendListError> read_send_entry(std::span<const arch::SendEntry> list, uint32_t list_addr, uint32_t tile,
                                             uint32_t& e, const SendListBounds& b, SendRuns& r) {
  const uint32_t first = e;
  r = decode_send_entry(list, e);
  if (send_entry_ok(list, first, e, r, b)) return std::nullopt;
  e = first;
  const auto entry = [&] { return "tile " + std::to_string(tile) + " send entry " + std::to_string(first); };
  const auto error = [&](uint32_t on, uint32_t code, uint32_t detail, std::string what) {
    return SendListError{on, code, detail, std::move(what)};
  };
  const arch::SendEntry& x = list[e];
  if ((x.dst_node & arch::kSendRepeat) && e + 1 == list.size())
    return error(tile, arch::kDevErrXchgBadSource, list_addr + e * uint32_t{sizeof(arch::SendEntry)},
                 entry() + " is strided (bit 31 of its destination node) but is the list's last slot: its repeat slot is missing");
  r = decode_send_entry(list, e);
  if (r.strided) {
    arch::SendRepeat rep;
    std::memcpy(&rep, &list[e], sizeof rep);
    const char* why = rep.count == 0                             ? "a count of 0"
                      : rep.reserved != 0                        ? "a reserved word that is not 0"
                      : ((rep.src_stride | rep.dst_stride) & 3) ? "a stride that is not a multiple of 4"
                                                                 : nullptr;
    if (why)
      return error(tile, arch::kDevErrXchgBadSource, list_addr + e * uint32_t{sizeof(arch::SendEntry)},
                   entry() + "'s repeat slot (count " + std::to_string(rep.count) + ", source stride " +
                       std::to_string(rep.src_stride) + ", destination stride " + std::to_string(rep.dst_stride) +
                       ", reserved " + hex(rep.reserved) + ") has " + why);
  }
  // The runs climb (strides are unsigned), so the first starts lowest and the last ends
  // highest; `outside` names the first run that ends past SRAM.
  const uint64_t last = r.count - 1;
  const auto outside = [&](uint32_t base, uint32_t stride) {
    uint64_t k = 0;
    if (uint64_t{base} + r.bytes <= b.sram_end && stride != 0) k = (b.sram_end - r.bytes - base) / stride + 1;
    return "run " + std::to_string(k) + " of " + std::to_string(r.count) + " at " +
           hex(static_cast<uint32_t>(base + k * stride)) + ", stride " + std::to_string(stride);
  };
  if (((r.src | r.bytes) & 3) || r.src < arch::kSramBase || r.src + last * r.src_stride + r.bytes > b.sram_end)
    return error(tile, arch::kDevErrXchgBadSource, r.src,
                 entry() + ": source " + hex(r.src) + " (" + std::to_string(r.bytes) + " bytes" +
                     (r.strided ? ", " + outside(r.src, r.src_stride) : "") + ") is misaligned or outside SRAM");
  if (r.node >= b.tiles)
    return error(tile, arch::kDevErrXchgBadDestination, r.node,
                 entry() + ": destination node " + std::to_string(r.node) +
                     (r.node < uint64_t{b.tiles} + b.host_nodes ? " is a host node (device-to-host data moves in a host sync)"
                                                                : " does not exist"));
  if ((r.dst & 3) || r.dst < arch::kSramBase || r.dst + last * r.dst_stride + r.bytes > b.sram_end)
    return error(r.node, arch::kDevErrXchgBadDestination, r.dst,
                 entry() + ": destination " + hex(r.dst) + (r.strided ? " (" + outside(r.dst, r.dst_stride) + ")" : "") +
                     " on tile " + std::to_string(r.node) + " is misaligned or outside SRAM");
  if (r.bytes == 0) return std::nullopt;
  if (r.dst < b.firmware_end)
    return error(r.node, arch::kDevErrXchgWriteProtected, r.dst,
                 entry() + " writes tile " + std::to_string(r.node) + " at " + hex(r.dst) +
                     ", inside the firmware's code, data or stack (below " + hex(b.firmware_end) + ")");
  if (r.count > 1 && r.dst_stride < r.bytes) {
    const uint32_t at = r.dst + r.dst_stride;
    return error(r.node, arch::kDevErrXchgDoubleWrite, at,
                 entry() + "'s runs of " + std::to_string(r.bytes) + " bytes, " + std::to_string(r.dst_stride) +
                     " apart, both write tile " + std::to_string(r.node) + " at " + hex(at));
  }
  return std::nullopt;
}

}  // namespace tessera::emu
