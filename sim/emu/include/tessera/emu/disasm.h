// Disassembler for RV32IMF + Zicsr + Zifencei, in the GNU assembler's syntax.
#pragma once

#include <cstdint>
#include <string>

namespace tessera::emu {

// Disassembles one instruction at `pc` (branch targets are printed as absolute addresses).
std::string disassemble(uint32_t raw, uint32_t pc);

// ABI names: x1 -> "ra", f10 -> "fa0".
const char* xreg_name(unsigned i);
const char* freg_name(unsigned i);

}  // namespace tessera::emu
