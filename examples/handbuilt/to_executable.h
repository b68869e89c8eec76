// The bridge from hand-built programs to the compiler's output format: a ProgramBuilder's
// memory image becomes an exe::Executable (firmware, per-tile segments, one program), so that
// the host runtime's Engine (and `tessera run`) runs it like a compiled model. MatVec16 also
// gets its host data described as streams and tensors.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "examples.h"
#include "program_builder.h"
#include "tessera/arch/targets.h"
#include "tessera/exe/elf.h"
#include "tessera/exe/executable.h"

namespace tessera::handbuilt {

// The layout ProgramBuilder needs, from the firmware ELF's symbols and the target's SRAM.
// Throws exe::ElfError if the ELF lacks a symbol.
Layout firmware_layout(const exe::ElfImage& firmware, const arch::Target& target);

// `b`'s memory image (laid out now, if not yet) as an executable for `target` carrying
// `firmware_elf`, with one program `program_name` whose streams the caller adds. Per-tile
// memory is approximate: code and stack from the firmware, everything the builder placed as
// "tensors".
exe::Executable to_executable(ProgramBuilder& b, const arch::Target& target, const std::vector<uint8_t>& firmware_elf,
                              const std::string& program_name = "main");

// MatVec16 built for `target` (16 tiles) as an executable with program "matvec":
//   stream "x": f32[64], host to device (host sync 0), onto the top row's x blocks;
//   stream "y": f32[64], device to host (host sync 1), from every tile's slice of y;
//   tensors "A" (f32[64, 64], persistent), "x" and "y" (f32[64]).
// `edit`, if given, changes the builder after MatVec16::build (tests break programs with it).
exe::Executable matvec16_executable(MatVec16& mv, const arch::Target& target, const std::vector<uint8_t>& firmware_elf,
                                    const std::function<void(ProgramBuilder&)>& edit = {});

}  // namespace tessera::handbuilt
