// Executable -> .tsx bytes. Builds the FlatBuffer bottom-up with every scalar written (so the
// file_checksum field always exists and the layout does not depend on values), then seals it:
// section checksums and the whole-file checksum are computed over the finished buffer by the
// same code the reader uses. Does not verify the content (see verify()).
#include <algorithm>
#include <fstream>
#include <span>

#include "internal.h"
#include "tessera/exe/file.h"

namespace tessera::exe {
namespace {

namespace fbs = flatbuffers;

fbs::Offset<fbs::Vector<const fb::Interval*>> intervals(fbs::FlatBufferBuilder& b, const std::vector<Interval>& v) {
  std::vector<fb::Interval> out;
  out.reserve(v.size());
  for (const Interval& i : v) out.emplace_back(i.tile, i.addr, i.offset, i.count);
  return b.CreateVectorOfStructs(out);
}

fbs::Offset<fbs::Vector<fbs::Offset<fbs::String>>> strings(fbs::FlatBufferBuilder& b,
                                                             const std::vector<std::string>& v) {
  std::vector<fbs::Offset<fbs::String>> out;
  out.reserve(v.size());
  for (const std::string& s : v) out.push_back(b.CreateString(s));
  return b.CreateVector(out);
}

// The bytes the FlatBuffer of `e` takes, or a little more: the builder starts that big and
// never grows (growing copies all it holds, hundreds of MB on AlexNet, into fresh pages).
size_t buffer_bytes(const Executable& e, size_t blob_size) {
  const auto str = [](const std::string& s) { return s.size() + 8; };  // length, terminator, alignment
  size_t n = 4096 + blob_size + e.firmware.size() + e.device_memory.size();
  n += e.segments.size() * sizeof(fb::Segment) + e.vertices.size() * sizeof(fb::VertexOrigin) +
       e.memory.size() * sizeof(fb::TileMemory);
  for (const Tensor& t : e.tensors)
    n += 64 + str(t.name) + 4 * t.shape.size() + t.intervals.size() * sizeof(fb::Interval) +
         t.live.size() * sizeof(fb::LiveRange);
  for (const Stream& s : e.streams) n += 64 + str(s.name) + 4 * s.shape.size() + s.intervals.size() * sizeof(fb::Interval);
  for (const DeviceParameter& p : e.device_parameters)
    n += 64 + str(p.name) + 4 * p.shape.size() + p.runs.size() * sizeof(fb::DeviceRun);
  for (const Program& p : e.programs) n += 64 + str(p.name) + 4 * (p.tile_program.size() + p.streams.size());
  for (const auto* names : {&e.op_names, &e.layer_names})
    for (const std::string& s : *names) n += 4 + str(s);
  return n + n / 64;  // vtables, offsets and padding
}

// The executable built into a FlatBuffer and sealed there; `use` gets the sealed bytes (valid
// only during the call, so that the caller can write them without a copy).
template <typename Use>
void build(const Executable& e, Use&& use) {
  // Segment bytes go into one blob; each Segment struct points into it.
  size_t blob_size = 0;
  for (const Segment& s : e.segments) blob_size += s.bytes.size();
  if (blob_size + e.firmware.size() + e.device_memory.size() >= FLATBUFFERS_MAX_BUFFER_SIZE / 2)
    throw ExeError("executable too large for one .tsx file (" + std::to_string(blob_size) + " bytes of segments, " +
                   std::to_string(e.device_memory.size()) + " of device memory)");

  fbs::FlatBufferBuilder b(buffer_bytes(e, blob_size));
  b.ForceDefaults(true);

  // Filled at once: `dst` is only valid until the builder next grows.
  std::vector<fb::Segment> segs;
  segs.reserve(e.segments.size());
  uint8_t* dst = nullptr;
  const auto blob = b.CreateUninitializedVector(blob_size, &dst);
  for (const Segment& s : e.segments) {
    const size_t at = segs.empty() ? 0 : size_t(segs.back().offset()) + segs.back().size();
    segs.emplace_back(s.tile, s.addr, uint32_t(at), uint32_t(s.bytes.size()));
    std::copy(s.bytes.begin(), s.bytes.end(), dst + at);
  }

  std::vector<fbs::Offset<fb::Tensor>> tensors;
  for (const Tensor& t : e.tensors) {
    std::vector<fb::LiveRange> live;
    live.reserve(t.live.size());
    for (const LiveRange& l : t.live) live.emplace_back(l.first, l.last);
    tensors.push_back(fb::CreateTensor(b, b.CreateString(t.name), fb::DType(t.dtype), b.CreateVector(t.shape),
                                       intervals(b, t.intervals), t.persistent, b.CreateVectorOfStructs(live)));
  }
  std::vector<fbs::Offset<fb::Stream>> streams;
  for (const Stream& s : e.streams)
    streams.push_back(fb::CreateStream(b, b.CreateString(s.name), s.index, fb::StreamDirection(s.direction),
                                       fb::DType(s.dtype), b.CreateVector(s.shape), intervals(b, s.intervals),
                                       s.source_offset));
  std::vector<fbs::Offset<fb::Program>> programs;
  for (const Program& p : e.programs)
    programs.push_back(fb::CreateProgram(b, b.CreateString(p.name), p.words, b.CreateVector(p.tile_program),
                                         b.CreateVector(p.streams), p.first_step, p.steps));

  std::vector<fbs::Offset<fb::DeviceParameter>> device_parameters;
  for (const DeviceParameter& p : e.device_parameters) {
    std::vector<fb::DeviceRun> runs;
    runs.reserve(p.runs.size());
    for (const DeviceRun& r : p.runs) runs.emplace_back(r.offset, r.logical, r.count, r.repeat, r.stride);
    device_parameters.push_back(fb::CreateDeviceParameter(b, b.CreateString(p.name), fb::DType(p.dtype),
                                                          b.CreateVector(p.shape), b.CreateVectorOfStructs(runs)));
  }
  std::vector<fb::VertexOrigin> vertices;
  vertices.reserve(e.vertices.size());
  for (const VertexOrigin& v : e.vertices) vertices.emplace_back(v.tile, v.compute_set, v.op, v.layer);
  std::vector<fb::TileMemory> memory;
  memory.reserve(e.memory.size());
  for (const TileMemory& m : e.memory)
    memory.emplace_back(m.code, m.stack, m.control, m.vertex_state, m.send_lists, m.landing, m.tensors);

  const fb::Checksums unsealed(0, 0, 0, 0, 0, 0, 0);
  auto root = fb::CreateExecutable(
      b, kFormatVersion, /*file_checksum=*/0, b.CreateString(e.target), e.target_hash, e.arch_hash, e.tiles,
      e.header_addr, b.CreateVector(e.firmware), e.firmware_hash, b.CreateVectorOfStructs(segs),
      blob, b.CreateVector(tensors), b.CreateVector(streams), b.CreateVector(programs),
      strings(b, e.op_names), strings(b, e.layer_names), b.CreateVectorOfStructs(vertices),
      b.CreateVectorOfStructs(memory), e.supersteps, e.exchange_bytes, &unsealed, b.CreateVector(e.device_memory),
      e.device_memory_zeros, b.CreateVector(device_parameters));
  fb::FinishExecutableBuffer(b, root);

  const std::span<uint8_t> out(b.GetBufferPointer(), b.GetSize());
  if (!detail::seal(out)) throw ExeError("internal error: the writer built a buffer it cannot verify");
  use(std::span<const uint8_t>(out));
}

}  // namespace

std::vector<uint8_t> serialize(const Executable& e) {
  std::vector<uint8_t> bytes;
  build(e, [&](std::span<const uint8_t> out) { bytes.assign(out.begin(), out.end()); });
  return bytes;
}

// Written from the builder's own buffer: no copy of the (on AlexNet 250 MB) file.
void write_file(const Executable& e, const std::filesystem::path& path) {
  build(e, [&](std::span<const uint8_t> bytes) {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    if (!f) throw ExeError(path.string() + ": cannot open for writing");
    f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    f.close();
    if (!f) throw ExeError(path.string() + ": write failed");
  });
}

}  // namespace tessera::exe
