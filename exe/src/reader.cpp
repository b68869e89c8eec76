// .tsx bytes -> Executable. verify_buffer() first (nothing is read from a buffer that has not
// passed the FlatBuffers verifier and its checksums), then a copy into the in-memory form,
// then verify() on the content. Absent vectors and strings read as empty.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>

#include "internal.h"
#include "tessera/exe/file.h"

namespace tessera::exe {
namespace {

namespace fbs = flatbuffers;

std::string str(const fbs::String* s) { return s ? s->str() : std::string(); }

template <typename T>
std::vector<T> scalars(const fbs::Vector<T>* v) {
  return v ? std::vector<T>(v->begin(), v->end()) : std::vector<T>();
}

std::vector<Interval> intervals(const fbs::Vector<const fb::Interval*>* v) {
  std::vector<Interval> out;
  if (!v) return out;
  out.reserve(v->size());
  for (const fb::Interval* i : *v) out.push_back({i->tile(), i->addr(), i->offset(), i->count()});
  return out;
}

std::vector<std::string> strings(const fbs::Vector<fbs::Offset<fbs::String>>* v) {
  std::vector<std::string> out;
  if (!v) return out;
  out.reserve(v->size());
  for (const fbs::String* s : *v) out.push_back(str(s));
  return out;
}

Executable convert(const fb::Executable& r) {
  Executable e;
  e.target = str(r.target());
  e.target_hash = r.target_hash();
  e.arch_hash = r.arch_hash();
  e.tiles = r.tiles();
  e.header_addr = r.header_addr();
  e.firmware = scalars(r.firmware());
  e.firmware_hash = r.firmware_hash();
  if (r.segments()) {
    const uint8_t* data = r.segment_data() ? r.segment_data()->data() : nullptr;  // bounds: verify_buffer
    e.segments.reserve(r.segments()->size());
    for (const fb::Segment* s : *r.segments())
      e.segments.push_back({s->tile(), s->addr(), std::vector<uint8_t>(data + s->offset(), data + s->offset() + s->size())});
  }
  if (r.tensors())
    for (const fb::Tensor* t : *r.tensors()) {
      Tensor& x = e.tensors.emplace_back(Tensor{str(t->name()), DType(t->dtype()), scalars(t->shape()),
                                                intervals(t->intervals()), t->persistent(), {}});
      if (t->live())
        for (const fb::LiveRange* l : *t->live()) x.live.push_back({l->first(), l->last()});
    }
  if (r.streams())
    for (const fb::Stream* s : *r.streams())
      e.streams.push_back({str(s->name()), s->index(), StreamDirection(s->direction()), DType(s->dtype()),
                           scalars(s->shape()), intervals(s->intervals()), s->source_offset()});
  if (r.programs())
    for (const fb::Program* p : *r.programs())
      e.programs.push_back({str(p->name()), p->words(), scalars(p->tile_program()), scalars(p->streams()),
                            p->first_step(), p->steps()});
  e.op_names = strings(r.op_names());
  e.layer_names = strings(r.layer_names());
  if (r.vertices()) {
    e.vertices.reserve(r.vertices()->size());
    for (const fb::VertexOrigin* v : *r.vertices()) e.vertices.push_back({v->tile(), v->compute_set(), v->op(), v->layer()});
  }
  if (r.memory())
    for (const fb::TileMemory* m : *r.memory())
      e.memory.push_back({m->code(), m->stack(), m->control(), m->vertex_state(), m->send_lists(), m->landing(),
                          m->tensors()});
  e.supersteps = r.supersteps();
  e.exchange_bytes = r.exchange_bytes();
  e.device_memory = scalars(r.device_memory());
  e.device_memory_zeros = r.device_memory_zeros();
  if (r.device_parameters())
    for (const fb::DeviceParameter* p : *r.device_parameters()) {
      DeviceParameter& x = e.device_parameters.emplace_back(
          DeviceParameter{str(p->name()), DType(p->dtype()), scalars(p->shape()), {}});
      if (p->runs()) {
        x.runs.reserve(p->runs()->size());
        for (const fb::DeviceRun* r : *p->runs())
          x.runs.push_back({r->offset(), r->logical(), r->count(), r->repeat(), r->stride()});
      }
    }
  return e;
}

}  // namespace

Executable deserialize(std::span<const uint8_t> bytes, const std::string& name) {
  // FlatBuffers reads scalars in place: give it an 8-byte aligned copy if the caller's is not.
  std::vector<uint64_t> aligned;
  if (reinterpret_cast<uintptr_t>(bytes.data()) % 8 != 0) {
    aligned.resize((bytes.size() + 7) / 8);
    std::memcpy(aligned.data(), bytes.data(), bytes.size());
    bytes = {reinterpret_cast<const uint8_t*>(aligned.data()), bytes.size()};
  }
  Executable e = convert(detail::verify_buffer(bytes, name));
  verify(e, name);
  return e;
}

namespace {

// A file's bytes in memory of the process's own. Not a mapping of the file: a file
// truncated while mapped kills the reader with SIGBUS at the first read past its new end,
// and nothing in the process can turn that into an error. read() copies a snapshot
// instead: a file that shrinks or changes while it is read fails the size check below or
// the checksums, as any damaged file does. The copy goes to fresh anonymous memory in 2 MB
// pages where the system allows it (MADV_HUGEPAGE): every byte is written, so none of
// those pages is zeroed in vain, and a 400 MB file takes hundreds of page faults rather
// than 100,000 (as fast as mapping the file, ResNet-18 and AlexNet on ipu-mk2 measured in
// docs/speed.md). Page-aligned, as FlatBuffers wants.
class FileBytes {
 public:
  explicit FileBytes(size_t n) : n_(n), cap_((n + kHuge - 1) / kHuge * kHuge) {
    if (cap_ == 0) return;
    void* p = mmap(nullptr, cap_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    p_ = static_cast<uint8_t*>(p);
    madvise(p_, cap_, MADV_HUGEPAGE);  // advice only: 4 KB pages where it is refused
  }
  FileBytes(const FileBytes&) = delete;
  FileBytes& operator=(const FileBytes&) = delete;
  ~FileBytes() {
    if (p_) munmap(p_, cap_);
  }
  uint8_t* data() { return p_; }
  std::span<const uint8_t> span() const { return {p_, n_}; }

 private:
  static constexpr size_t kHuge = size_t{2} << 20;
  size_t n_, cap_;
  uint8_t* p_ = nullptr;
};

struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

Executable read_file(const std::filesystem::path& path) {
  const std::string name = path.string();
  // A directory opens as a stream whose tellg() is 2^63 - 1; a device may never end.
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(st)) throw ExeError(name + ": cannot open (no such file)");
  if (std::filesystem::is_directory(st)) throw ExeError(name + ": is a directory, not an executable");
  if (!std::filesystem::is_regular_file(st)) throw ExeError(name + ": not a regular file");
  const Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  struct stat info;
  if (f.fd < 0 || fstat(f.fd, &info) != 0) throw ExeError(name + ": cannot open (" + std::strerror(errno) + ")");
  if (!S_ISREG(info.st_mode)) throw ExeError(name + ": not a regular file");
  const uint64_t size = uint64_t(info.st_size);
  if (size >= FLATBUFFERS_MAX_BUFFER_SIZE)
    throw ExeError(name + ": not a Tessera executable (size " + std::to_string(size) + " bytes)");
  FileBytes bytes(size);
  for (size_t got = 0; got < size;) {
    const ssize_t n = ::read(f.fd, bytes.data() + got, size - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw ExeError(name + ": read failed (" + std::strerror(errno) + ")");
    if (n == 0)
      throw ExeError(name + ": truncated while being read (" + std::to_string(got) + " of " + std::to_string(size) +
                     " bytes)");
    got += size_t(n);
  }
  return deserialize(bytes.span(), name);
}

}  // namespace tessera::exe
