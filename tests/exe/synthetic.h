// A small but complete executable for the "small" target (16 tiles x 128 KiB), with every
// field set to something distinctive, and helpers to edit its file field by field.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "internal.h"
#include "tessera/exe/file.h"

namespace tessera::exe::testing {

inline constexpr uint32_t kHeader = 0x80004000;  // where the fake firmware's tile header is

Executable synthetic();

// The file with `edit` applied to its FlatBuffers view and then re-sealed (checksums
// recomputed), so that the loader's content checks, not its checksums, must catch the edit.
std::vector<uint8_t> edited(const Executable& e, const std::function<void(fb::Executable&)>& edit);

// The ExeError message of loading `bytes` as "model.tsx", or "" if it loaded.
std::string load_error(const std::vector<uint8_t>& bytes);

}  // namespace tessera::exe::testing
