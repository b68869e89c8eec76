// Section and file checksums. Each section is hashed over a canonical byte stream built from
// the FlatBuffers view, not over the buffer's layout, so that the writer (which hashes the
// buffer it just built) and the reader agree by construction: scalars as 4 little-endian
// bytes, strings and vectors as a 4-byte count followed by their bytes (vectors of structs
// and scalars are hashed as stored, which on disk is little-endian), absent as empty.
#include <algorithm>
#include <type_traits>

#include "internal.h"
#include "tessera/exe/executable.h"

namespace tessera::exe::detail {
namespace {

constexpr uint32_t kBasis = 2166136261u;

class Hasher {
 public:
  void u32(uint32_t v) {
    const uint8_t b[4] = {uint8_t(v), uint8_t(v >> 8), uint8_t(v >> 16), uint8_t(v >> 24)};
    h_ = checksum(b, 4, h_);
  }
  void str(const flatbuffers::String* s) {
    u32(s ? s->size() : 0);
    if (s) h_ = checksum(reinterpret_cast<const uint8_t*>(s->data()), s->size(), h_);
  }
  // A vector of scalars or structs: its stored bytes.
  template <typename T>
  void vec(const flatbuffers::Vector<T>* v) {
    u32(v ? v->size() : 0);
    if (v) h_ = checksum(v->Data(), size_t(v->size()) * sizeof(std::remove_pointer_t<T>), h_);
  }
  void strs(const flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>* v) {
    u32(v ? v->size() : 0);
    if (v)
      for (const flatbuffers::String* s : *v) str(s);
  }
  uint32_t value() const { return h_; }

 private:
  uint32_t h_ = kBasis;
};

// Hashes each table of a vector with `f`, after the vector's length.
template <typename T, typename F>
uint32_t tables(const flatbuffers::Vector<flatbuffers::Offset<T>>* v, F f) {
  Hasher h;
  h.u32(v ? v->size() : 0);
  if (v)
    for (const T* x : *v) f(h, *x);
  return h.value();
}

// The segments section's hash up to segment_data's bytes (Hasher::vec's count before them).
uint32_t segments_head(const fb::Executable& r) {
  Hasher h;
  h.vec(r.segments());
  h.u32(r.segment_data() ? r.segment_data()->size() : 0);
  return h.value();
}

// Every section but segments.
SectionSums other_sections(const fb::Executable& r) {
  SectionSums s;
  s.tensors = tables(r.tensors(), [](Hasher& h, const fb::Tensor& t) {
    h.str(t.name());
    h.u32(uint32_t(t.dtype()));
    h.vec(t.shape());
    h.vec(t.intervals());
    h.u32(t.persistent());
    h.vec(t.live());
  });
  s.streams = tables(r.streams(), [](Hasher& h, const fb::Stream& t) {
    h.str(t.name());
    h.u32(t.index());
    h.u32(uint32_t(t.direction()));
    h.u32(uint32_t(t.dtype()));
    h.vec(t.shape());
    h.vec(t.intervals());
    h.u32(uint32_t(t.source_offset()));
    h.u32(uint32_t(t.source_offset() >> 32));
  });
  s.programs = tables(r.programs(), [](Hasher& h, const fb::Program& p) {
    h.str(p.name());
    h.u32(p.words());
    h.vec(p.tile_program());
    h.vec(p.streams());
    h.u32(p.first_step());
    h.u32(p.steps());
  });
  {
    Hasher h;
    h.strs(r.op_names());
    h.strs(r.layer_names());
    h.vec(r.vertices());
    s.debug = h.value();
  }
  {
    Hasher h;
    h.vec(r.memory());
    s.memory = h.value();
  }
  {
    Hasher h;
    h.vec(r.device_memory());
    h.u32(uint32_t(r.device_memory_zeros()));
    h.u32(uint32_t(r.device_memory_zeros() >> 32));
    h.u32(r.device_parameters() ? r.device_parameters()->size() : 0);
    if (r.device_parameters())
      for (const fb::DeviceParameter* p : *r.device_parameters()) {
        h.str(p->name());
        h.u32(uint32_t(p->dtype()));
        h.vec(p->shape());
        h.vec(p->runs());
      }
    s.device_memory = h.value();
  }
  return s;
}

// exe::checksum of buf[from, to) after `h`, the 4 bytes of the file_checksum field (at `at`) read
// as zero.
uint32_t zero_field(std::span<const uint8_t> buf, size_t at, size_t from, size_t to, uint32_t h) {
  static constexpr uint8_t kZero[4] = {0, 0, 0, 0};
  const size_t z0 = std::clamp(at, from, to), z1 = std::clamp(at + 4, from, to);
  h = checksum(buf.data() + from, z0 - from, h);
  h = checksum(kZero, z1 - z0, h);
  return checksum(buf.data() + z1, to - z1, h);
}

size_t field_offset(std::span<const uint8_t> buf, const fb::Executable& root) {
  return size_t(file_checksum_field(root) - buf.data());
}

}  // namespace

SectionSums section_checksums(const fb::Executable& r) {
  SectionSums s = other_sections(r);
  const auto* data = r.segment_data();
  s.segments = data ? checksum(data->Data(), data->size(), segments_head(r)) : segments_head(r);
  return s;
}

uint32_t file_checksum(std::span<const uint8_t> buf, const fb::Executable& root) {
  return zero_field(buf, field_offset(buf, root), 0, buf.size(), kBasis);
}

bool seal(std::span<uint8_t> buf) {
  if (buf.size() >= FLATBUFFERS_MAX_BUFFER_SIZE) return false;
  flatbuffers::Verifier v = make_verifier(buf);
  if (!fb::VerifyExecutableBuffer(v)) return false;
  fb::Executable* root = fb::GetMutableExecutable(buf.data());
  if (!root->checksums() || !file_checksum_field(*root)) return false;
  const SectionSums s = section_checksums(*root);
  fb::Checksums* c = root->mutable_checksums();
  c->mutate_segments(s.segments);
  c->mutate_tensors(s.tensors);
  c->mutate_streams(s.streams);
  c->mutate_programs(s.programs);
  c->mutate_debug(s.debug);
  c->mutate_memory(s.memory);
  c->mutate_device_memory(s.device_memory);
  root->mutate_file_checksum(file_checksum(buf, *root));
  return true;
}

}  // namespace tessera::exe::detail
