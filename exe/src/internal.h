// Inside tessera_exe (and its tests): the FlatBuffers view of a .tsx and the checksum code
// shared by the writer (which seals a buffer) and the reader (which checks the seal).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "executable_generated.h"

namespace tessera::exe::detail {

// exe::checksum of each section's canonical bytes (docs/executable.md, "Checksums").
struct SectionSums {
  uint32_t segments = 0, tensors = 0, streams = 0, programs = 0, debug = 0, memory = 0, device_memory = 0;
};
SectionSums section_checksums(const fb::Executable& root);

// Where the file_checksum field's 4 bytes are, or nullptr if absent. (Generated tables
// inherit flatbuffers::Table privately; the object is that Table, so the cast is exact.)
inline const uint8_t* file_checksum_field(const fb::Executable& root) {
  return reinterpret_cast<const flatbuffers::Table&>(root).GetAddressOf(fb::Executable::VT_FILE_CHECKSUM);
}

// exe::checksum of the whole buffer, the 4 bytes of the file_checksum field read as zero.
// Requires the field to be present (the writer forces it).
uint32_t file_checksum(std::span<const uint8_t> buf, const fb::Executable& root);

// The FlatBuffers verifier's limits, the same for the writer's seal and the reader: tables
// are few (tensors, streams, programs), but a big graph's temporaries are tensors too
// (ResNet-18 at batch 8 on ipu-mk2 has more than the verifier's default million); the limit
// only bounds the work on bad input.
inline flatbuffers::Verifier make_verifier(std::span<const uint8_t> buf) {
  return flatbuffers::Verifier(buf.data(), buf.size(), /*max_depth=*/16, /*max_tables=*/1u << 22);
}

// Writes the section checksums and then the file checksum into a finished buffer. Returns
// false, changing nothing, if the buffer fails the FlatBuffers verifier or lacks the fields.
// The writer seals every file; tests re-seal after editing a field, to reach deeper checks.
bool seal(std::span<uint8_t> buf);

// The checks on the buffer itself (size, identifier, FlatBuffers verifier, version, section
// and file checksums, segment bounds in segment_data). Throws ExeError; returns the root.
const fb::Executable& verify_buffer(std::span<const uint8_t> buf, const std::string& name);

}  // namespace tessera::exe::detail
