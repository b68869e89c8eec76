// Everything checked before a device is touched. Two stages:
//   verify_buffer(): the bytes (size, identifier, FlatBuffers verifier, format version,
//                    section checksums, file checksum, segment bounds in segment_data);
//   verify():        the content against this build (arch hash, target, tiles, firmware hash)
//                    and its target's memory (addresses, intervals, indices).
// Every failure is an ExeError "NAME: where: what", so a user can tell a stale file
// (recompile) from a corrupt one (rewrite or re-download) from a compiler bug.
#include <algorithm>
#include <bit>
#include <cstdio>
#include <set>

#include "internal.h"
#include "tessera/arch/arch_hash.h"
#include "tessera/arch/targets.h"
#include "tessera/arch/tile_map.h"
#include "tessera/exe/file.h"

namespace tessera::exe {
namespace {

std::string hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%08llx", static_cast<unsigned long long>(v));
  return b;
}

[[noreturn]] void fail(const std::string& name, const std::string& what) { throw ExeError(name + ": " + what); }

// Shared state of one verify() run.
struct Ctx {
  const std::string& name;
  const Executable& e;
  const arch::Target& t;
  uint64_t sram_end() const { return uint64_t(arch::kSramBase) + t.sram_bytes; }  // exclusive

  // [addr, addr + bytes) must be word aligned, inside `tile`'s SRAM and at or above the tile
  // header (below it is the firmware's code and data). `where()` names it, called only on
  // failure (a big executable has hundreds of thousands of regions).
  template <typename Where>
  void region(const Where& where, uint32_t tile, uint32_t addr, uint64_t bytes) const {
    if (tile < e.tiles && addr >= arch::kSramBase && addr < sram_end() && addr % 4 == 0 && addr + bytes <= sram_end() &&
        addr >= e.header_addr)
      return;
    if (tile >= e.tiles)
      fail(name, where() + ": tile " + std::to_string(tile) + " out of range (target '" + e.target + "' has " +
                     std::to_string(e.tiles) + " tiles)");
    const std::string sram = "tile " + std::to_string(tile) + "'s SRAM (" + hex(arch::kSramBase) + ".." +
                             hex(sram_end() - 1) + ")";
    if (addr < arch::kSramBase || addr >= sram_end()) fail(name, where() + ": address " + hex(addr) + " outside " + sram);
    if (addr % 4) fail(name, where() + ": address " + hex(addr) + " not word-aligned");
    if (addr + bytes > sram_end())
      fail(name, where() + ": " + std::to_string(bytes) + " bytes at " + hex(addr) + " run past the end of " + sram);
    if (addr < e.header_addr)
      fail(name, where() + ": address " + hex(addr) + " below the tile header at " + hex(e.header_addr) +
                     " (firmware space)");
  }

  // Elements of `shape`; shapes of 2^32 elements or more are refused (addresses are 32-bit).
  uint64_t elements(const std::string& where, const std::vector<uint32_t>& shape) const {
    uint64_t n = 1;
    for (uint32_t d : shape) {
      n *= d;
      if (n > 0xFFFFFFFFull) fail(name, where + ": shape has 2^32 or more elements");
    }
    return n;
  }

  // The rows of `runs` (each inside [0, total), counted to `total` by the caller) cover no
  // element twice, so they cover each once: one bit per element, set a word at a time.
  void cover_once(const std::string& where, uint64_t total, const std::vector<DeviceRun>& runs) const {
    std::vector<uint64_t> seen((total + 63) / 64);
    for (size_t i = 0; i < runs.size(); ++i)
      for (uint32_t row = 0; row < runs[i].repeat; ++row) {
        const uint64_t from = runs[i].logical + uint64_t{row} * runs[i].stride, to = from + runs[i].count;
        for (uint64_t at = from; at < to;) {
          const uint64_t w = at / 64, end = std::min(to, (w + 1) * 64);
          const uint64_t bits = (end - at == 64 ? ~uint64_t{0} : ((uint64_t{1} << (end - at)) - 1)) << (at % 64);
          if (seen[w] & bits)
            fail(name, where + " run " + std::to_string(i) + ": element " +
                           std::to_string(w * 64 + std::countr_zero(seen[w] & bits)) + " is covered twice");
          seen[w] |= bits;
          at = end;
        }
      }
  }

  // The intervals cover elements [0, total) exactly once, in offset order, each in SRAM.
  void intervals(const std::string& where, DType dtype, const std::vector<uint32_t>& shape,
                 const std::vector<Interval>& iv) const {
    const uint64_t total = elements(where, shape);
    uint64_t next = 0;  // first element not yet covered
    for (size_t i = 0; i < iv.size(); ++i) {
      const auto at = [&] { return where + " interval " + std::to_string(i); };
      const uint64_t begin = iv[i].offset, end = begin + iv[i].count;
      if (iv[i].count == 0) fail(name, at() + ": empty");
      if (begin < next)
        fail(name, at() + ": elements " + std::to_string(begin) + ".." + std::to_string(std::min(next, end) - 1) +
                       " already covered (overlap)");
      if (begin > next)
        fail(name, at() + ": elements " + std::to_string(next) + ".." + std::to_string(begin - 1) +
                       " not covered (gap before this interval)");
      if (end > total)
        fail(name, at() + ": elements up to " + std::to_string(end - 1) + " past the end (" + std::to_string(total) +
                       " elements)");
      region(at, iv[i].tile, iv[i].addr, uint64_t(iv[i].count) * dtype_bytes(dtype));
      next = end;
    }
    if (next != total)
      fail(name, where + ": intervals cover " + std::to_string(next) + " of " + std::to_string(total) +
                     " elements (missing " + std::to_string(next) + ".." + std::to_string(total - 1) + ")");
  }

  void dtype(const std::string& where, DType d) const {
    if (dtype_bytes(d) == 0) fail(name, where + ": unknown dtype " + std::to_string(unsigned(d)));
  }
};

// Names of one kind must be non-empty and unique (the runtime looks them up by name).
template <typename T>
void unique_names(const std::string& name, const char* kind, const std::vector<T>& items) {
  std::set<std::string> seen;
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].name.empty()) fail(name, std::string(kind) + " " + std::to_string(i) + ": empty name");
    if (!seen.insert(items[i].name).second)
      fail(name, std::string(kind) + " '" + items[i].name + "': name used twice");
  }
}

void segments(const Ctx& c) {
  std::vector<size_t> order(c.e.segments.size());
  for (size_t i = 0; i < order.size(); ++i) {
    const Segment& s = c.e.segments[i];
    const auto at = [&] { return "segment " + std::to_string(i); };
    if (s.bytes.size() % 4) fail(c.name, at() + ": " + std::to_string(s.bytes.size()) + " bytes, not a multiple of 4");
    c.region(at, s.tile, s.addr, s.bytes.size());
    order[i] = i;
  }
  // No two segments write the same byte of one tile.
  auto key = [&](size_t i) { return std::pair(c.e.segments[i].tile, c.e.segments[i].addr); };
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return key(a) < key(b); });
  for (size_t k = 1; k < order.size(); ++k) {
    const Segment& a = c.e.segments[order[k - 1]];
    const Segment& b = c.e.segments[order[k]];
    if (a.tile == b.tile && uint64_t(a.addr) + a.bytes.size() > b.addr)
      fail(c.name, "segment " + std::to_string(order[k]) + ": tile " + std::to_string(b.tile) + " address " +
                       hex(b.addr) + " overlaps segment " + std::to_string(order[k - 1]) + " (" + hex(a.addr) +
                       ", " + std::to_string(a.bytes.size()) + " bytes)");
  }
}

}  // namespace

void verify(const Executable& e, const std::string& name) {
  // Is this file for this build and a target it knows?
  if (e.arch_hash != arch::kArchHash)
    fail(name, "built for arch " + hex(e.arch_hash) + ", this build is " + hex(arch::kArchHash) + ": recompile");
  const arch::Target* t = arch::find_target(e.target);
  if (!t) {
    fail(name, "unknown target '" + e.target + "' (this build knows " + arch::target_names() + ")");
  }
  if (e.target_hash != t->hash)
    fail(name, "target '" + e.target + "' hash " + hex(e.target_hash) + ", this build's is " + hex(t->hash) +
                   ": arch/targets/" + e.target + ".toml changed since the compile; recompile");
  if (e.tiles != t->tiles)
    fail(name, "header: " + std::to_string(e.tiles) + " tiles, target '" + e.target + "' has " +
                   std::to_string(t->tiles));
  if (e.device_memory_zeros > kMaxDeviceMemoryBytes ||
      e.device_memory_bytes() > (uint64_t{t->device_memory_mib} << 20))
    fail(name, "device memory: " + std::to_string(e.device_memory.size()) + " bytes and " +
                   std::to_string(e.device_memory_zeros) + " of zeros, target '" + e.target + "' has " +
                   std::to_string(t->device_memory_mib) + " MiB");
  if (e.firmware.empty()) fail(name, "firmware: missing");
  const uint32_t fw = fnv1a(e.firmware.data(), e.firmware.size());
  if (fw != e.firmware_hash)
    fail(name, "firmware: hash " + hex(e.firmware_hash) + " does not match its bytes (" + hex(fw) + ")");

  const Ctx c{name, e, *t};
  if (e.header_addr % 4 || e.header_addr < arch::kSramBase || e.header_addr >= c.sram_end())
    fail(name, "header: header_addr " + hex(e.header_addr) + " not a word address in SRAM (" + hex(arch::kSramBase) +
                   ".." + hex(c.sram_end() - 1) + ")");
  if (e.memory.size() != e.tiles)
    fail(name, "memory: " + std::to_string(e.memory.size()) + " entries for " + std::to_string(e.tiles) + " tiles");

  segments(c);

  unique_names(name, "tensor", e.tensors);
  for (const Tensor& x : e.tensors) {
    const std::string at = "tensor '" + x.name + "'";
    c.dtype(at, x.dtype);
    c.intervals(at, x.dtype, x.shape, x.intervals);
    if (!x.live.empty() && x.live.size() != x.intervals.size())
      fail(name, at + ": " + std::to_string(x.live.size()) + " live ranges for " + std::to_string(x.intervals.size()) +
                     " intervals");
    for (size_t i = 0; i < x.live.size(); ++i)
      if (x.live[i].first > x.live[i].last)
        fail(name, at + ": interval " + std::to_string(i) + " live from step " + std::to_string(x.live[i].first) +
                       " to " + std::to_string(x.live[i].last));
  }

  unique_names(name, "stream", e.streams);
  std::set<uint32_t> indices;
  for (const Stream& s : e.streams) {
    const std::string at = "stream '" + s.name + "'";
    if (unsigned(s.direction) > unsigned(StreamDirection::kDeviceToDeviceMemory))
      fail(name, at + ": unknown direction " + std::to_string(unsigned(s.direction)));
    if (s.in_device_memory() && (s.source_offset % 4 || s.source_offset > e.device_memory_bytes() ||
                                   transfer_bytes(s) > e.device_memory_bytes() - s.source_offset))
      fail(name, at + ": " + std::to_string(transfer_bytes(s)) + " bytes at offset " + std::to_string(s.source_offset) +
                     " of device memory (" + std::to_string(e.device_memory_bytes()) +
                     " bytes) are not aligned or not all there");
    if (!s.in_device_memory() && s.source_offset)
      fail(name, at + ": source offset " + std::to_string(s.source_offset) + " on a stream from or to the host");
    if (!indices.insert(s.index).second) fail(name, at + ": index " + std::to_string(s.index) + " used twice");
    c.dtype(at, s.dtype);
    c.intervals(at, s.dtype, s.shape, s.intervals);
  }

  unique_names(name, "device parameter", e.device_parameters);
  for (const DeviceParameter& p : e.device_parameters) {
    const std::string at = "device parameter '" + p.name + "'";
    if (e.find_tensor(p.name)) fail(name, at + ": also the name of a tensor");
    c.dtype(at, p.dtype);
    const uint64_t total = c.elements(at, p.shape), eb = dtype_bytes(p.dtype), dram = e.device_memory_bytes();
    // Each element has its own bytes in device memory: this also bounds the bitmap below.
    if (total * eb > dram)
      fail(name, at + ": " + std::to_string(total) + " elements, more than device memory's " + std::to_string(dram) +
                     " bytes hold");
    uint64_t sum = 0;
    for (size_t i = 0; i < p.runs.size(); ++i) {
      const DeviceRun& r = p.runs[i];
      const std::string run = at + " run " + std::to_string(i);
      const uint64_t last = uint64_t{r.logical} + uint64_t{r.repeat - 1} * r.stride + r.count;  // one past
      if (r.count == 0 || r.repeat == 0 || (r.repeat > 1 && r.stride < r.count) || last > total)
        fail(name, run + ": " + std::to_string(r.repeat) + " rows of " + std::to_string(r.count) + " elements from " +
                       std::to_string(r.logical) + " at stride " + std::to_string(r.stride) +
                       " are empty, overlap or pass the end (" + std::to_string(total) + " elements)");
      if (r.offset % eb || r.offset > dram || r.elements() * eb > dram - r.offset)
        fail(name, run + ": " + std::to_string(r.elements() * eb) + " bytes at offset " + std::to_string(r.offset) +
                       " of device memory (" + std::to_string(dram) + " bytes) are not aligned or not all there");
      sum += r.elements();
    }
    if (sum != total)
      fail(name, at + ": runs cover " + std::to_string(sum) + " of " + std::to_string(total) + " elements");
    c.cover_once(at, total, p.runs);
  }

  unique_names(name, "program", e.programs);
  for (const Program& p : e.programs) {
    const std::string at = "program '" + p.name + "'";
    if (p.tile_program.size() != e.tiles)
      fail(name, at + ": " + std::to_string(p.tile_program.size()) + " tile addresses for " + std::to_string(e.tiles) +
                     " tiles");
    for (uint32_t tile = 0; tile < e.tiles; ++tile)
      c.region([&] { return at + " tile " + std::to_string(tile); }, tile, p.tile_program[tile], uint64_t(p.words) * 4);
    for (size_t i = 0; i < p.streams.size(); ++i)
      if (p.streams[i] >= e.streams.size())
        fail(name, at + ": stream " + std::to_string(i) + " is index " + std::to_string(p.streams[i]) + ", only " +
                       std::to_string(e.streams.size()) + " streams");
  }

  for (size_t i = 0; i < e.vertices.size(); ++i) {
    const VertexOrigin& v = e.vertices[i];
    const std::string at = "debug map: vertex " + std::to_string(i);
    if (v.tile >= e.tiles) fail(name, at + ": tile " + std::to_string(v.tile) + " out of range");
    if (v.op >= e.op_names.size())
      fail(name, at + ": op " + std::to_string(v.op) + ", only " + std::to_string(e.op_names.size()) + " op names");
    if (v.layer >= e.layer_names.size())
      fail(name, at + ": layer " + std::to_string(v.layer) + ", only " + std::to_string(e.layer_names.size()) +
                     " layer names");
  }
}

namespace detail {

const fb::Executable& verify_buffer(std::span<const uint8_t> buf, const std::string& name) {
  if (buf.size() < 8) fail(name, "truncated: " + std::to_string(buf.size()) + " bytes, not a Tessera executable");
  if (!fb::ExecutableBufferHasIdentifier(buf.data())) {
    std::string id;
    for (size_t i = 4; i < 8; ++i) id += (buf[i] >= 32 && buf[i] < 127) ? char(buf[i]) : '?';
    fail(name, "not a Tessera executable (file identifier '" + id + "', expected '" + fb::ExecutableIdentifier() + "')");
  }
  if (buf.size() >= FLATBUFFERS_MAX_BUFFER_SIZE) fail(name, "too large (" + std::to_string(buf.size()) + " bytes)");
  flatbuffers::Verifier v = make_verifier(buf);
  if (!fb::VerifyExecutableBuffer(v))
    fail(name, "corrupt or truncated (" + std::to_string(buf.size()) + " bytes): FlatBuffers verification failed");
  const fb::Executable& r = *fb::GetExecutable(buf.data());
  if (r.format_version() != kFormatVersion)
    fail(name, "format version " + std::to_string(r.format_version()) + ", this build reads version " +
                   std::to_string(kFormatVersion) + ": recompile with this build's compiler");

  // Section checksums first: they say which part is damaged; the file checksum then covers
  // everything else (header fields, names' layout, padding).
  if (!r.checksums()) fail(name, "checksums: missing");
  const SectionSums s = section_checksums(r);
  const uint32_t whole = file_checksum_field(r) ? file_checksum(buf, r) : 0;
  const fb::Checksums& want = *r.checksums();
  const std::pair<const char*, std::pair<uint32_t, uint32_t>> sections[] = {
      {"segments", {want.segments(), s.segments}}, {"tensors", {want.tensors(), s.tensors}},
      {"streams", {want.streams(), s.streams}},    {"programs", {want.programs(), s.programs}},
      {"debug", {want.debug(), s.debug}},          {"memory", {want.memory(), s.memory}},
      {"device_memory", {want.device_memory(), s.device_memory}}};
  for (const auto& [section, sums] : sections)
    if (sums.first != sums.second)
      fail(name, std::string("section '") + section + "': checksum " + hex(sums.first) +
                     " does not match its contents (" + hex(sums.second) + "): the file is corrupt");
  if (!file_checksum_field(r)) fail(name, "file checksum: missing");
  if (whole != r.file_checksum())
    fail(name, "file checksum " + hex(r.file_checksum()) + " does not match the contents (" + hex(whole) +
                   "): the file is corrupt");

  // Segments must lie inside segment_data before anything copies them out.
  const uint64_t data = r.segment_data() ? r.segment_data()->size() : 0;
  if (r.segments())
    for (uint32_t i = 0; i < r.segments()->size(); ++i) {
      const fb::Segment& g = *r.segments()->Get(i);
      if (uint64_t(g.offset()) + g.size() > data)
        fail(name, "segment " + std::to_string(i) + ": bytes " + std::to_string(g.offset()) + ".." +
                       std::to_string(uint64_t(g.offset()) + g.size()) + " outside segment_data (" +
                       std::to_string(data) + " bytes)");
    }
  // The FlatBuffers verifier checks that a vector's length is 4-byte aligned, not its 8-byte
  // structs: the writer aligns each parameter's runs to 8 (an empty vector need not be: the
  // builder pads only before bytes), a file whose runs are not is damaged.
  if (r.device_parameters())
    for (uint32_t i = 0; i < r.device_parameters()->size(); ++i) {
      const auto* runs = r.device_parameters()->Get(i)->runs();
      if (runs && runs->size() && reinterpret_cast<uintptr_t>(runs->Data()) % alignof(fb::DeviceRun) != 0)
        fail(name, "device parameter " + std::to_string(i) + ": runs at byte " +
                       std::to_string(runs->Data() - buf.data()) + ", not 8-byte aligned: the file is corrupt");
    }
  return r;
}

}  // namespace detail
}  // namespace tessera::exe
